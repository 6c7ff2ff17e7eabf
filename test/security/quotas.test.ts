// Per-principal quotas through the gRPC API with --acl (real node processes, test-made
// certificates): an admin sets alice's lease quota with Auth.SetQuota, alice's Grant over it is
// RESOURCE_EXHAUSTED naming the quota, its value and the principal, bob is unaffected, GetQuota
// answers an admin or the principal itself, and only admins set quotas. The state machine's rules
// are tested in test/lockd/state-machine/quotas.test.ts; this checks the wiring (the leader's
// `quota` mark, the RPCs, the refusal as the client sees it).
import { useMtlsCluster } from '../support/mtls-cluster.js';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { LOCKCTL_MAIN } from '../support/build.js';
import { waitFor } from '../support/process-cluster.js';
import { failure } from '../support/lockd-failure.js';

describe('per-principal quotas with --acl (real processes, gRPC)', function () {
  this.timeout(120_000);
  const fx = useMtlsCluster(['--acl', '--admin', 'root']);
  const clientAs = (who: string) => fx.clientAs(who);

  it('a Grant over alice’s lease quota is RESOURCE_EXHAUSTED naming it; bob is unaffected; only admins set quotas', async () => {
    const root = clientAs('root');
    const alice = clientAs('alice');
    const bob = clientAs('bob');
    for (const principal of ['alice', 'bob']) await root.aclGrant({ principal, verb: 'lock', prefix: '' });
    // Quotas apply once the leader has heard every member's version (right after an election it may not have).
    const set = await waitFor(
      'quotas in use',
      async () => {
        try {
          return await root.quotaSet('alice', { leases: 2 });
        } catch (e) {
          if ((e as { codeName?: string }).codeName === 'FAILED_PRECONDITION') return undefined;
          throw e;
        }
      },
      15_000,
      100,
    );
    expect(set.find((q) => q.name === 'leases')).to.deep.equal({ name: 'leases', limit: 2, used: 0, isDefault: false });
    expect(set.find((q) => q.name === 'locks')).to.include({ limit: 10_000, isDefault: true });

    const leases = [await alice.grantLease(10_000), await alice.grantLease(10_000)];
    const over = await failure(alice.grantLease(10_000));
    expect(over.codeName).to.equal('RESOURCE_EXHAUSTED');
    expect(over.message).to.contain('quota leases=2').and.contain('alice');
    // Bob has his own.
    const b = await bob.grantLease(10_000);
    expect((await alice.quotaGet('alice')).find((q) => q.name === 'leases')).to.include({ limit: 2, used: 2 });
    expect((await root.quotaGet('bob')).find((q) => q.name === 'leases')).to.include({ limit: 10_000, used: 1, isDefault: true });
    expect((await failure(alice.quotaGet('bob'))).codeName).to.equal('PERMISSION_DENIED');
    expect((await failure(alice.quotaSet('alice', { leases: 100 }))).codeName).to.equal('PERMISSION_DENIED');
    expect((await failure(root.quotaSet('alice', { leasez: 1 }))).message).to.contain('unknown quota');
    // Room again after a revoke; then the quota reset to the default.
    await leases[0].revoke();
    await alice.grantLease(10_000);
    expect((await root.quotaSet('alice', {}, { reset: true })).find((q) => q.name === 'leases')).to.include({ limit: 10_000, isDefault: true });
    await alice.grantLease(10_000);
    await b.revoke();
  });

  it('lockctl acl quota: root sets and shows; a principal without admin is refused setting', async () => {
    const lockctl = (who: string, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const tls = [
          '--cacert',
          fx.pki.caCert,
          '--cert',
          fx.certs(who).cert,
          '--key',
          fx.certs(who).key,
          '--endpoints',
          fx.cluster.nodes.map((n) => n.address).join(','),
        ];
        // Not from the checkout: lockctl would pick up a ./fx.cluster.sh cluster's .cluster/tls/.
        execFile(process.execPath, [LOCKCTL_MAIN, ...tls, ...args], { cwd: tmpdir(), timeout: 20_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
        );
      });
    const set = await lockctl('root', '--json', 'acl', 'quota', 'carol', 'locks=3', 'fence_keys=0');
    expect(set.code, set.stderr).to.equal(0);
    const quotas = (JSON.parse(set.stdout) as { quotas: Array<{ name: string; limit: number; isDefault: boolean }> }).quotas;
    expect(quotas.find((q) => q.name === 'locks')).to.include({ limit: 3, isDefault: false });
    expect(quotas.find((q) => q.name === 'fence_keys')).to.include({ limit: 0, isDefault: false });
    const shown = await lockctl('root', 'acl', 'quota', 'carol');
    expect(shown.stdout).to.match(/locks\s+3\s+0\s+set/);
    expect((await lockctl('carol', 'acl', 'quota', 'carol', 'locks=100')).stderr).to.contain('PERMISSION_DENIED');
    expect((await lockctl('root', 'acl', 'quota', 'carol', 'nonsense')).code).to.equal(2);
  });
});
