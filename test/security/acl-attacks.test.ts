// A stranger with a valid certificate for its own principal, driving only the public API against
// another principal's leases, locks and waits (access control, an outside review). Real node
// processes with mTLS, client-cert auth and --acl; certificates made by the test.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { LockClient } from '../../src/client/index.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { PassThrough } from 'node:stream';
import { runLogDump } from '../../src/lockd/tools/log-dump/run-log-dump.js';

type Outcome = { code: grpc.status; details: string };

const v1 = lockdProto.lockd.v1;

function outcome(run: (cb: (err: grpc.ServiceError | null) => void) => void): Promise<Outcome> {
  return new Promise((resolve) => run((err) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' })));
}

describe('a principal attacking another principal’s leases and waits (real processes, test-made certificates)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  const certs: Record<string, CertFiles> = {};
  const clients: LockClient[] = [];
  const stubs: grpc.Client[] = [];
  let root: LockClient;

  const clientAs = (who: string) => {
    certs[who] ??= pki.client(who);
    const c = new LockClient({
      endpoints: cluster.nodes.map((n) => n.address),
      cacert: pki.caCert,
      cert: certs[who].cert,
      key: certs[who].key,
      timeoutMs: 10_000,
      watchLocks: false,
    });
    clients.push(c);
    return c;
  };
  const stub = <T extends grpc.Client>(ctor: new (a: string, c: grpc.ChannelCredentials) => T, address: string, who: string): T => {
    const s = new ctor(address, pki.channelCredentials((certs[who] ??= pki.client(who))));
    stubs.push(s);
    return s;
  };

  before(async () => {
    pki = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, extraArgs: ['--acl', '--admin', 'root'] });
    await cluster.waitForLeader();
    root = clientAs('root');
    for (const principal of ['alice', 'bob']) expect(await root.aclGrant({ principal, verb: 'lock', prefix: 'shared/' })).to.equal(true);
  });
  after(async function () {
    for (const c of clients) c.close();
    for (const s of stubs) s.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it("alice's refused Acquire with bob's waiting lease does not stop the cleanup of bob's abandoned wait (no orphan lock for bob)", async () => {
    const bob = clientAs('bob');
    const holder = await bob.grantLease(30_000);
    const waiter = await bob.grantLease(30_000);
    await bob.acquire('shared/q', { lease: holder, wait: false });
    const leader = cluster.node(await cluster.waitForLeader()).address;
    // bob's waiter queues with a short deadline; at the deadline its node cancels the queue entry.
    const bobLock = stub(v1.Lock, leader, 'bob');
    const waiting = outcome((cb) => bobLock.Acquire({ name: 'shared/q', leaseId: waiter.id, wait: true }, { deadline: Date.now() + 4000 }, cb));
    await waitFor('bob queued', async () => ((await bob.inspect('shared/q')).waitingLeaseIds.includes(waiter.id) ? true : undefined));
    // alice (who may lock shared/) tries a waiting Acquire with bob's lease: refused...
    const aliceLock = stub(v1.Lock, leader, 'alice');
    const forged = await outcome((cb) => aliceLock.Acquire({ name: 'shared/q', leaseId: waiter.id, wait: true }, { deadline: Date.now() + 10_000 }, cb));
    expect(forged.code, forged.details).to.equal(grpc.status.PERMISSION_DENIED);
    expect((await waiting).code).to.equal(grpc.status.DEADLINE_EXCEEDED);
    // ...and bob's abandoned wait still leaves the queue (before the fix the cleanup was sent as
    // alice's and refused, so the lock would later go to a lease whose caller no longer waits).
    await waitFor(
      'bob’s abandoned wait cancelled',
      async () => ((await bob.inspect('shared/q')).waitingLeaseIds.includes(waiter.id) ? undefined : true),
      10_000,
    );
    await holder.revoke();
    expect((await bob.inspect('shared/q')).held).to.equal(false);
    await waiter.revoke();
  });

  it('keeping a lease alive needs `lock` on some prefix, like granting one: a principal whose last rule is revoked cannot keep its leases (and their locks) forever', async () => {
    expect(await root.aclGrant({ principal: 'kate', verb: 'lock', prefix: 'ka/' })).to.equal(true);
    const kate = clientAs('kate');
    const lease = await kate.grantLease(30_000);
    const leader = cluster.node(await cluster.waitForLeader()).address;
    const keepAlive = () =>
      new Promise<Outcome>((resolve) => {
        const s = stub(v1.Lease, leader, 'kate').KeepAlive();
        s.on('data', () => {
          s.cancel();
          resolve({ code: grpc.status.OK, details: 'renewed' });
        });
        s.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details }));
        s.write({ leaseId: lease.id });
      });
    expect((await keepAlive()).code).to.equal(grpc.status.OK);
    expect(await root.aclRevoke({ principal: 'kate', verb: 'lock', prefix: 'ka/' })).to.equal(true);
    const refused = await keepAlive();
    expect(refused.code, refused.details).to.equal(grpc.status.PERMISSION_DENIED);
    expect(refused.details).to.contain('kate may not keep leases alive').and.contain('`lock`');
    // Giving the lease up needs ownership only.
    await lease.revoke();
  });

  it('a rule revoked while alice waits ends her wait PERMISSION_DENIED: the lock is not handed to her after the revoke', async () => {
    expect(await root.aclGrant({ principal: 'alice', verb: 'lock', prefix: 'rv/' })).to.equal(true);
    expect(await root.aclGrant({ principal: 'bob', verb: 'lock', prefix: 'rv/' })).to.equal(true);
    const bob = clientAs('bob');
    const alice = clientAs('alice');
    const bobLease = await bob.grantLease(30_000);
    const aliceLease = await alice.grantLease(30_000);
    const held = await bob.acquire('rv/x', { lease: bobLease, wait: false });
    const leader = cluster.node(await cluster.waitForLeader()).address;
    const aliceLock = stub(v1.Lock, leader, 'alice');
    const waiting = outcome((cb) => aliceLock.Acquire({ name: 'rv/x', leaseId: aliceLease.id, wait: true }, { deadline: Date.now() + 30_000 }, cb));
    await waitFor('alice queued', async () => ((await bob.inspect('rv/x')).waitingLeaseIds.includes(aliceLease.id) ? true : undefined));
    expect(await root.aclRevoke({ principal: 'alice', verb: 'lock', prefix: 'rv/' })).to.equal(true);
    const w = await waiting;
    expect(w.code, w.details).to.equal(grpc.status.PERMISSION_DENIED);
    expect(w.details).to.contain('alice may not acquire "rv/x"');
    await held.release();
    expect((await bob.inspect('rv/x')).held).to.equal(false);
    await Promise.all([bobLease.revoke(), aliceLease.revoke()]);
  });

  it("a certificate naming several CNs (alice, then root) is no principal at all: UNAUTHENTICATED, not root's rights", async () => {
    certs.multi ??= pki.issue('multi', { cn: 'alice/CN=root', usage: 'client' }); // openssl -subj: two CN attributes
    const auth = stub(v1.Auth, cluster.node(await cluster.waitForLeader()).address, 'multi');
    const list = await outcome((cb) => auth.List({}, cb));
    expect(list.code, list.details).to.equal(grpc.status.UNAUTHENTICATED);
    expect(list.details).to.contain('several subject CNs');
  });

  // Last: it stops the nodes.
  it("revoking another principal's lease is refused before proposing: it costs no log entry (Revoke needs no rule, so even a principal without any could otherwise write to the log)", async () => {
    const bob = clientAs('bob');
    const lease = await bob.grantLease(30_000);
    for (const who of ['carol', 'alice']) {
      const e = await outcome((cb) => stub(v1.Lease, cluster.node(cluster.nodes[0].id).address, who).Revoke({ leaseId: lease.id }, cb));
      expect(e.code, e.details).to.equal(grpc.status.PERMISSION_DENIED);
      expect(e.details).to.contain(`${who} may not revoke lease ${lease.id}`);
    }
    await lease.revoke();
    // Every node stopped cleanly, then each one's log read: bob's Revoke is there, none of theirs.
    for (const n of cluster.nodes) {
      const exited = new Promise((r) => n.proc!.once('exit', r));
      cluster.signal(n.id, 'SIGTERM');
      await exited;
    }
    for (const n of cluster.nodes) {
      const stdout = new PassThrough();
      let out = '';
      stdout.on('data', (b: Buffer) => (out += b.toString()));
      const code = await runLogDump(
        { dataDir: n.dataDir, type: 'Revoke' },
        { stdout, stderr: new PassThrough(), env: {}, interrupted: new AbortController().signal, json: true },
      );
      expect(code).to.equal(0);
      const revokes = out.split('\n').filter((l) => l.includes('"Revoke"') && l.includes(`"leaseId":${lease.id},`));
      expect(
        revokes.some((l) => l.includes('"principal":"bob"')),
        `${n.id}: ${out}`,
      ).to.equal(true);
      expect(
        revokes.filter((l) => l.includes('"principal":"carol"') || l.includes('"principal":"alice"')),
        n.id,
      ).to.deep.equal([]);
    }
  });
});
