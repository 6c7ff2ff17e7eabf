// Backup and restore on real processes: a TLS cluster with --acl holds a
// lease, locks, a fenced value and access rules; `lockctl snapshot save` (admin only) writes a
// backup and `snapshot status` checks it; every node is killed and its data dir wiped; `lockd
// restore` makes new data dirs from the file (a new cluster id); the restored cluster holds the
// same locks (same tokens, same leases), fence store and rules, no lease has gained time, a stale
// token is still refused, and a new grant's token is above every token before.
import { expect } from 'chai';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { LockClient } from '../../src/client/index.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { tokenIndex } from '../../src/lockd/state-machine/index.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { lockctl } from '../support/lockctl-run.js';

describe('backup and restore (real processes, TLS with --acl)', function () {
  this.timeout(180_000);
  let pki: TestPki | undefined;
  let cluster: ProcessCluster | undefined;
  const clients: LockClient[] = [];
  const certs: Record<string, CertFiles> = {};

  afterEach(async function () {
    for (const c of clients.splice(0)) c.close();
    const failed = this.currentTest?.state === 'failed';
    await cluster?.stop(failed);
    cluster = undefined;
    if (!failed) pki?.remove();
  });

  const clientAs = (who: string): LockClient => {
    certs[who] ??= pki!.client(who);
    const c = new LockClient({
      endpoints: cluster!.nodes.map((n) => n.address),
      cacert: pki!.caCert,
      cert: certs[who].cert,
      key: certs[who].key,
      timeoutMs: 10_000,
      watchLocks: false,
    });
    clients.push(c);
    return c;
  };
  const ctl = (who: string, ...args: string[]) => {
    certs[who] ??= pki!.client(who);
    return lockctl([
      '--cacert',
      pki!.caCert,
      '--cert',
      certs[who].cert,
      '--key',
      certs[who].key,
      '--endpoints',
      cluster!.nodes.map((n) => n.address).join(','),
      ...args,
    ]);
  };

  it('save → wipe every node → restore → the same locks, fence store and ACLs; new tokens above every token before; no lease gains time', async () => {
    pki = TestPki.create();
    const c = (cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, extraArgs: ['--acl', '--admin', 'root'] }));
    await c.waitForLeader();
    const root = clientAs('root');
    expect(await root.aclGrant({ principal: 'alice', verb: 'lock', prefix: 'shared/' })).to.equal(true);
    const lease = await root.grantLease(120_000);
    const lock = await root.acquire('db', { lease, wait: false });
    await root.fenceWrite('row', 'v1', lock.token);
    const alice = clientAs('alice');
    const aliceLock = await alice.acquire('shared/a', { ttlMs: 120_000, wait: false });
    lease.close(); // no more keepalives: the lease's deadline stays where it is
    alice.close();
    const before = {
      db: await root.inspect('db'),
      shared: await root.inspect('shared/a'),
      row: await root.fenceRead('row'),
      acl: await root.aclList(),
      ttl: await root.timeToLive(lease.id),
    };
    const highest = Math.max(lock.token, aliceLock.token, before.row.fencingToken);

    const file = join(c.baseDir, 'backup.lockd');
    // Not an admin: refused, and nothing written.
    const denied = await ctl('alice', 'snapshot', 'save', file);
    expect(denied.code, denied.stderr).to.equal(1);
    expect(denied.stderr).to.match(/PERMISSION_DENIED: .*take a backup/);
    expect(existsSync(file) || existsSync(`${file}.part`)).to.equal(false);
    // A follower does not stream one: UNAVAILABLE, naming the leader (lockctl follows that).
    const leaderId = await c.waitForLeader();
    const follower = c.nodes.find((n) => n.id !== leaderId)!;
    const stub = new lockdProto.lockd.v1.Maintenance(follower.address, pki.channelCredentials(certs.root));
    const refusal = await new Promise<grpc.StatusObject>((resolve) => {
      const call = stub.Snapshot({}, { deadline: Date.now() + 5000 });
      call.on('data', () => {});
      call.on('error', () => {});
      call.on('status', resolve);
    });
    stub.close();
    expect(refusal.code).to.equal(grpc.status.UNAVAILABLE);
    expect(refusal.details).to.match(new RegExp(`not the leader: a backup is streamed by the leader; the leader is ${leaderId}`));
    expect(refusal.metadata.get('lockd-leader')).to.deep.equal([c.node(leaderId).address]);
    const saved = await ctl('root', 'snapshot', 'save', file);
    expect(saved.code, saved.stderr).to.equal(0);
    const m = /saved a backup of index (\d+) \(term (\d+)\) from leader (n\d)/.exec(saved.stdout);
    expect(m, saved.stdout).to.not.equal(null);
    const index = Number(m![1]);
    expect(saved.stdout).to.match(/2 leases, 2 locks, 1 fenced keys, 1 access rules/);
    const status = await ctl('root', 'snapshot', 'status', file);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(new RegExp(`a sound lockd backup[^]*index ${index} \\(term`));
    expect(status.stdout).to.match(/voters n1, n2, n3/);
    process.stderr.write(`      lockctl snapshot save:\n${saved.stdout}      lockctl snapshot status:\n${status.stdout}`);

    // Every node gone, data and all.
    for (const n of c.nodes) {
      await c.kill(n.id);
      rmSync(n.dataDir, { recursive: true, force: true });
    }
    const idFile = join(c.baseDir, 'restored-cluster-id');
    for (const n of c.nodes) {
      const r = await c.runToExit(['restore', '--from', file, '--data-dir', n.dataDir, '--id', n.id, '--peers', c.peersFlag(), '--cluster-id-file', idFile]);
      expect(r.code, r.output).to.equal(0);
      expect(r.output).to.match(/the log starts at \d+ \(--bump-index 1000000000\)/);
      if (n.id === 'n1') process.stderr.write(`      lockd restore:\n${r.output}`);
    }
    for (const n of c.nodes) c.startNode(n.id, { '--cluster-id-file': idFile });
    await c.waitForLeader();

    const root2 = clientAs('root');
    const db = await root2.inspect('db');
    expect(db).to.deep.include({ held: true, fencingToken: lock.token, holderLeaseId: lease.id });
    expect((await root2.inspect('shared/a')).holders).to.deep.equal(before.shared.holders);
    const row = await root2.fenceRead('row');
    expect(Buffer.from(row.value).toString()).to.equal('v1');
    expect(row.fencingToken).to.equal(before.row.fencingToken);
    expect(await root2.aclList()).to.deep.equal(before.acl);
    // The lease kept its deadline on the logical clock: no more time than it had when backed up.
    const ttl = await root2.timeToLive(lease.id);
    expect(ttl.remainingMs).to.be.at.most(before.ttl.remainingMs).and.above(0);
    // alice's rule still holds, and still ends at its prefix.
    const alice2 = clientAs('alice');
    const other = await alice2.acquire('other/x', { ttlMs: 5000, wait: false }).then(
      () => 'acquired',
      (e: Error) => e.message,
    );
    expect(other).to.match(/PERMISSION_DENIED/);
    // A new grant: its token is above every token before the restore, and its entry past the backup + bump.
    const fresh = await alice2.acquire('shared/b', { ttlMs: 5000, wait: false });
    expect(fresh.token).to.be.above(highest);
    expect(tokenIndex(fresh.token)).to.be.above(index + 1_000_000_000);
    // The fence store kept its highest token: a stale one is refused, the new holder's accepted.
    const stale = await root2.fenceWrite('row', 'stale', lock.token - 1).then(
      () => 'written',
      (e: Error) => e.message,
    );
    expect(stale).to.match(/FAILED_PRECONDITION: stale fencing token/);
    // The restored lease is the same lease: its holder keeps it alive and goes on.
    const attached = await root2.attachLease(lease.id);
    expect((await root2.timeToLive(lease.id)).remainingMs).to.be.above(ttl.remainingMs);
    attached.close();
  });
});
