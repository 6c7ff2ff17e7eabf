// Principals, lease ownership and access rules on real node processes (access control), with
// certificates the test makes: a principal is its client certificate's CN, rules are log entries
// every node enforces (also after a leader change and a restart from a snapshot), a lease is its
// granter's, and a client cannot name itself with the lockd-principal header.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockClient, LockdError } from '../../src/client/index.js';
import { tokenIndex } from '../../src/lockd/state-machine/token.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { execFile } from 'node:child_process';
import { ProcessCluster, freePort, waitFor } from '../support/process-cluster.js';
import { LOCKCTL_MAIN } from '../support/build.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { failure } from '../support/lockd-failure.js';
import { httpsGet } from '../support/https-get.js';

type Outcome = { code: grpc.status; details: string };

const v1 = lockdProto.lockd.v1;

/** A unary call's outcome (OK or the error), with optional extra request metadata. */
function outcome(run: (md: grpc.Metadata, cb: (err: grpc.ServiceError | null) => void) => void, extra: Record<string, string> = {}): Promise<Outcome> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(extra)) md.set(k, v);
  return new Promise((resolve) => run(md, (err) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' })));
}

/** Lock.Observe on one node: OK once it is subscribed (headers sent), else its error. Served from that node's own state. */
function observeVia(address: string, creds: grpc.ChannelCredentials, name: string): Promise<Outcome> {
  const c = new v1.Lock(address, creds);
  return new Promise((resolve) => {
    const done = (o: Outcome) => {
      call.cancel();
      c.close();
      resolve(o);
    };
    const call = c.Observe({ name }, { deadline: Date.now() + 5000 });
    call.on('metadata', () => done({ code: grpc.status.OK, details: '' }));
    call.on('error', (err: grpc.ServiceError) => done({ code: err.code, details: err.details }));
  });
}

describe('principals, lease ownership and access rules (real processes, test-made certificates)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  const certs: Record<string, CertFiles> = {};
  const clients: LockClient[] = [];
  const stubs: grpc.Client[] = [];

  const creds = (who: string) => pki.channelCredentials((certs[who] ??= pki.client(who)));
  const clientAs = (who: string, endpoints = cluster.nodes.map((n) => n.address)) => {
    certs[who] ??= pki.client(who);
    const c = new LockClient({ endpoints, cacert: pki.caCert, cert: certs[who].cert, key: certs[who].key, timeoutMs: 10_000, watchLocks: false });
    clients.push(c);
    return c;
  };
  const stub = <T extends grpc.Client>(ctor: new (a: string, c: grpc.ChannelCredentials) => T, address: string, who: string): T => {
    const s = new ctor(address, creds(who));
    stubs.push(s);
    return s;
  };
  let root: LockClient;
  const httpPort = new Map<string, number>();

  before(async () => {
    pki = TestPki.create();
    // --snapshot-every 20: the rules below are carried by snapshots (checked after a restart).
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    cluster = await ProcessCluster.start({
      size: 3,
      tls: pki,
      clientCertAuth: true,
      extraArgs: ['--acl', '--admin', 'root', '--snapshot-every', '20'],
      nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }),
    });
    await cluster.waitForLeader();
    root = clientAs('root');
    for (const [principal, verb, prefix] of [
      ['alice', 'lock', 'alice/'],
      ['alice', 'lock', 'shared/'],
      ['alice', 'fence', 'shared/'],
      ['bob', 'lock', 'bob/'],
      ['bob', 'lock', 'shared/'],
      ['bob', 'fence', 'shared/'],
    ] as const)
      expect(await root.aclGrant({ principal, verb, prefix })).to.equal(true);
  });
  after(async function () {
    for (const c of clients) c.close();
    for (const s of stubs) s.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it('alice with `lock` on alice/ acquires alice/x and is denied bob/x, naming the verb and the name', async () => {
    const alice = clientAs('alice');
    const lease = await alice.grantLease(10_000);
    const lock = await alice.acquire('alice/x', { lease, wait: false });
    expect(lock.token).to.be.greaterThan(0);
    const e = await failure(alice.acquire('bob/x', { lease, wait: false }));
    expect(e.codeName).to.equal('PERMISSION_DENIED');
    expect(e.details).to.contain('alice may not acquire "bob/x"').and.contain('`lock`');
    expect((await root.inspect('bob/x')).held).to.equal(false);
    expect((await failure(alice.inspect('bob/x'))).codeName).to.equal('PERMISSION_DENIED');
    // The lease is alice's, and shows so.
    expect((await alice.timeToLive(lease.id)).owner).to.equal('alice');
    await lease.revoke();
  });

  it("alice cannot revoke bob's lease, release bob's lock with bob's token, cancel bob's wait, keep bob's lease alive or fence-write with bob's token", async () => {
    const bob = clientAs('bob');
    const alice = clientAs('alice');
    const holder = await bob.grantLease(20_000);
    const waiter = await bob.grantLease(20_000);
    const lock = await bob.acquire('shared/x', { lease: holder, wait: false });
    // bob's second lease waits for shared/x (a raw call, so it stays queued while alice tries).
    const leader = cluster.node(await cluster.waitForLeader()).address;
    const bobLock = stub(v1.Lock, leader, 'bob');
    const waiting = outcome((md, cb) => bobLock.Acquire({ name: 'shared/x', leaseId: waiter.id, wait: true }, md, { deadline: Date.now() + 30_000 }, cb));
    await waitFor('bob queued', async () => ((await bob.inspect('shared/x')).waitingLeaseIds.includes(waiter.id) ? true : undefined));

    const denied = (e: LockdError) => {
      expect(e.codeName, e.message).to.equal('PERMISSION_DENIED');
      expect(e.details).to.contain('another principal');
    };
    denied(await failure(alice.revokeLease(holder.id)));
    denied(await failure(alice.release('shared/x', lock.token)));
    denied(await failure(alice.acquireRaw('shared/y', holder.id, { wait: false })));
    denied(await failure(alice.fenceWrite('shared/k', 'v', lock.token)));
    const aliceLock = stub(v1.Lock, leader, 'alice');
    const cancel = await outcome((md, cb) => aliceLock.CancelWait({ name: 'shared/x', leaseId: waiter.id }, md, cb));
    expect(cancel.code).to.equal(grpc.status.PERMISSION_DENIED);
    // KeepAlive: the stream ends PERMISSION_DENIED before the renewal joins a Tick.
    const aliceLease = stub(v1.Lease, leader, 'alice');
    const ka = await new Promise<Outcome>((resolve) => {
      const s = aliceLease.KeepAlive();
      s.on('data', () => resolve({ code: grpc.status.OK, details: 'renewed' }));
      s.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details }));
      s.write({ leaseId: holder.id });
    });
    expect(ka.code, ka.details).to.equal(grpc.status.PERMISSION_DENIED);
    // Lease.List shows alice none of bob's leases.
    expect((await alice.listLeases()).map((l) => l.leaseId)).to.not.include(holder.id);

    // Nothing changed: bob still holds it with his token, his lease waits.
    const now = await bob.inspect('shared/x');
    expect(now).to.include({ held: true, fencingToken: lock.token, holderLeaseId: holder.id });
    expect(now.waitingLeaseIds).to.deep.equal([waiter.id]);
    // The owner may; so may an admin (root revokes bob's holder: the lock goes to bob's waiter).
    expect(await bob.fenceWrite('shared/k', 'v', lock.token)).to.equal(lock.token);
    await root.revokeLease(holder.id);
    expect((await waiting).code).to.equal(grpc.status.OK);
    expect((await root.listLeases()).map((l) => [l.leaseId, l.owner])).to.deep.include([waiter.id, 'bob']);
    await root.revokeLease(waiter.id);
  });

  it("several holders: alice cannot release or downgrade bob's semaphore or shared grant, set permits, or campaign/proclaim/resign with bob's lease", async () => {
    const bob = clientAs('bob');
    const alice = clientAs('alice');
    const b1 = await bob.grantLease(20_000);
    const b2 = await bob.grantLease(20_000);
    const a1 = await alice.grantLease(20_000);
    const denied = (e: LockdError, what: string) => {
      expect(e.codeName, `${what}: ${e.message}`).to.equal('PERMISSION_DENIED');
    };
    // A semaphore of 2: bob's grant and alice's side by side.
    const sem = await bob.acquireRaw('shared/sem', b1.id, { permits: 2 });
    const mine = await alice.acquireRaw('shared/sem', a1.id, { permits: 2 });
    expect([sem.acquired, mine.acquired]).to.deep.equal([true, true]);
    denied(await failure(alice.release('shared/sem', sem.fencingToken, { leaseId: b1.id })), 'release by lease');
    denied(await failure(alice.release('shared/sem', sem.fencingToken)), 'release by token');
    // SetPermits is admin-only with --acl (like Membership): alice and bob are refused, root may.
    denied(await failure(alice.setPermits('shared/sem', 3)), 'alice set-permits');
    denied(await failure(bob.setPermits('shared/sem', 3)), 'bob set-permits');
    expect((await root.inspect('shared/sem')).holders.map((h) => h.leaseId)).to.deep.equal([b1.id, a1.id]);
    expect((await root.inspect('shared/sem')).permits).to.equal(2);
    expect(await root.setPermits('shared/sem', 3)).to.deep.equal({ previous: 2, granted: 0 });
    expect(await alice.release('shared/sem', mine.fencingToken, { leaseId: a1.id })).to.equal(true);

    // A read-write lock: bob writes; alice may not downgrade bob's grant (an Acquire with his lease).
    const w = await bob.acquireRaw('shared/rw', b1.id);
    denied(await failure(alice.acquireRaw('shared/rw', b1.id, { shared: true })), 'downgrade');
    expect((await root.inspect('shared/rw')).holders).to.deep.equal([{ leaseId: b1.id, fencingToken: w.fencingToken, shared: false, lockDelayMs: 0 }]);
    // Two readers queue (bob's b2, alice's a1); bob's downgrade grants both in one entry: one token
    // each, both naming that entry.
    const readers = [bob.acquireRaw('shared/rw', b2.id, { shared: true, wait: true }), alice.acquireRaw('shared/rw', a1.id, { shared: true, wait: true })];
    await waitFor('both readers queued', async () => ((await root.inspect('shared/rw')).waitingLeaseIds.length === 2 ? true : undefined));
    expect((await bob.acquireRaw('shared/rw', b1.id, { shared: true })).acquired).to.equal(true);
    const [rb, ra] = await Promise.all(readers);
    expect(ra.fencingToken).to.not.equal(rb.fencingToken);
    expect(tokenIndex(ra.fencingToken)).to.equal(tokenIndex(rb.fencingToken));
    denied(await failure(alice.release('shared/rw', rb.fencingToken, { leaseId: b2.id })), "release of bob's shared grant");
    // Without lease_id bob's token still names only bob's grant: refused too.
    denied(await failure(alice.release('shared/rw', rb.fencingToken)), "release of bob's shared grant by token");
    expect((await root.inspect('shared/rw')).holders.map((h) => h.leaseId).sort()).to.deep.equal([b1.id, b2.id, a1.id].sort());
    expect(await alice.release('shared/rw', ra.fencingToken)).to.equal(true);

    // Elections: bob leads; alice may not campaign with bob's lease, nor proclaim or resign his leadership.
    const key = await bob.campaign('shared/el', b1.id, 'bob-value');
    denied(await failure(alice.campaign('shared/el', b1.id, 'alice-value', { timeoutMs: 5000 })), 'campaign');
    denied(await failure(alice.proclaim(key, 'alice-value')), 'proclaim');
    denied(await failure(alice.resign(key)), 'resign');
    // Leader (a read) is allowed to alice; carol (no rules) may not read it. Nothing changed.
    expect(await alice.leader('shared/el')).to.deep.equal({ leader: key, value: 'bob-value' });
    denied(await failure(clientAs('carol').leader('shared/el')), 'carol leader');
    expect(await bob.resign(key)).to.equal(true);
    for (const l of [b1, b2, a1]) await l.revoke();
  });

  it('a principal with no rules is denied everything but Cluster.Status; only admins see or change rules', async () => {
    const carol = clientAs('carol');
    for (const p of [
      carol.grantLease(5000),
      carol.inspect('alice/x'),
      carol.fenceRead('shared/k'),
      carol.aclList(),
      carol.aclGrant({ principal: 'carol', verb: 'admin', prefix: '' }),
    ])
      expect((await failure(p)).codeName).to.equal('PERMISSION_DENIED');
    expect((await carol.status()).leaderId).to.not.equal('');
    expect((await failure(clientAs('alice').aclList())).details).to.contain('`admin`');
    expect((await root.aclList('alice')).map((r) => `${r.verb}:${r.prefix}`)).to.deep.equal(['lock:alice/', 'lock:shared/', 'fence:shared/']);
  });

  it('membership changes and leader transfer are admin-only with --acl, also through a follower; a refusal changes nothing', async () => {
    const leaderId = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n.id !== leaderId)!;
    const before = await root.memberList();
    for (const endpoints of [[cluster.node(leaderId).address], [follower.address]]) {
      const alice = clientAs('alice', endpoints);
      for (const p of [
        alice.memberList(),
        alice.memberAdd({ id: 'n9', peerUrl: '127.0.0.1:1', learner: true }),
        alice.memberPromote(follower.id),
        alice.memberRemove(follower.id),
        alice.transferLeader(follower.id),
      ]) {
        const e = await failure(p);
        expect(e.codeName, e.details).to.equal('PERMISSION_DENIED');
        expect(e.details).to.contain('alice may not').and.contain('`admin`');
      }
    }
    const after = await root.memberList();
    expect(after.configIndex).to.equal(before.configIndex);
    expect(after.members.map((m) => `${m.id}:${m.role}`)).to.deep.equal(before.members.map((m) => `${m.id}:${m.role}`));
    expect(after.leaderId).to.equal(leaderId);
  });

  it('a lockd-principal header sent by a client is ignored, on the leader and through a follower (which carries the real principal)', async () => {
    const leaderId = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n.id !== leaderId)!;
    const bob = clientAs('bob');
    const bobLease = await bob.grantLease(20_000);
    for (const address of [cluster.node(leaderId).address, follower.address]) {
      const auth = stub(v1.Auth, address, 'alice');
      const forged = { 'lockd-principal': 'root' };
      const list = await outcome((md, cb) => auth.List({}, md, cb), forged);
      expect(list.code, address).to.equal(grpc.status.PERMISSION_DENIED);
      expect(list.details).to.contain('alice may not');
      const grant = await outcome((md, cb) => auth.Grant({ rule: { principal: 'alice', prefix: '', verb: 'admin' } }, md, cb), forged);
      expect(grant.code).to.equal(grpc.status.PERMISSION_DENIED);
      const lease = stub(v1.Lease, address, 'alice');
      const asBob = await outcome((md, cb) => lease.Revoke({ leaseId: bobLease.id }, md, cb), { 'lockd-principal': 'bob' });
      expect(asBob.code).to.equal(grpc.status.PERMISSION_DENIED);
    }
    expect((await root.timeToLive(bobLease.id)).owner).to.equal('bob');
    expect(await root.aclList('alice')).to.have.length(3);
    // Through the follower alone: the leader grants the lease to alice, the principal the follower established.
    const viaFollower = clientAs('alice', [follower.address]);
    const l = await viaFollower.grantLease(5000);
    expect((await viaFollower.timeToLive(l.id)).owner).to.equal('alice');
    await l.revoke();
    await bobLease.revoke();
  });

  it('a rule change is seen by every node, after a leader change and after a restart from a snapshot', async () => {
    const daveCreds = creds('dave');
    const everyNode = async (name: string, code: grpc.status) => {
      for (const n of cluster.nodes.filter((x) => cluster.isRunning(x.id)))
        await waitFor(`dave observing ${name} on ${n.id} answers ${grpc.status[code]}`, async () =>
          (await observeVia(n.address, daveCreds, name)).code === code ? true : undefined,
        );
    };
    await everyNode('d/x', grpc.status.PERMISSION_DENIED);
    await root.aclGrant({ principal: 'dave', verb: 'read', prefix: 'd/' });
    await everyNode('d/x', grpc.status.OK);
    await everyNode('e/x', grpc.status.PERMISSION_DENIED);
    // Enough entries for every node to snapshot (--snapshot-every 20) past the rule.
    for (let i = 0; i < 25; i++) await root.aclGrant({ principal: `filler${i}`, verb: 'read', prefix: 'f/' });
    const oldLeader = await cluster.waitForLeader();
    await waitFor('every node snapshotted', () => (cluster.nodes.every((n) => cluster.log(n.id).includes('"snapshot taken')) ? true : undefined));
    await cluster.kill(oldLeader);
    const newLeader = await cluster.waitForLeader(cluster.nodes.map((n) => n.id).filter((id) => id !== oldLeader));
    expect(newLeader).to.not.equal(oldLeader);
    await everyNode('d/x', grpc.status.OK);
    // Revoked under the new leader: denied on every running node...
    expect(await root.aclRevoke({ principal: 'dave', verb: 'read', prefix: 'd/' })).to.equal(true);
    await everyNode('d/x', grpc.status.PERMISSION_DENIED);
    // ...and on the old leader once it restarts from its snapshot and catches up.
    cluster.startNode(oldLeader);
    const started = await waitFor('the restart logged', () => {
      const lines = cluster
        .log(oldLeader)
        .split('\n')
        .filter((l) => l.includes('"node started"'));
      return lines.length >= 2 ? (JSON.parse(lines[lines.length - 1]) as { snapshotIndex: number }) : undefined;
    });
    expect(started.snapshotIndex).to.be.greaterThan(0);
    await everyNode('d/x', grpc.status.PERMISSION_DENIED);
    expect((await root.aclList('filler3')).length).to.equal(1);
  });

  it('lockctl acl grant / list / revoke as root; the rules then apply to the principal named', async () => {
    const lockctl = (who: string, ...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        certs[who] ??= pki.client(who);
        const tls = ['--cacert', pki.caCert, '--cert', certs[who].cert, '--key', certs[who].key, '--endpoints', cluster.nodes.map((n) => n.address).join(',')];
        // Not from the checkout: lockctl would pick up a ./cluster.sh cluster's .cluster/tls/.
        execFile(process.execPath, [LOCKCTL_MAIN, ...tls, ...args], { cwd: tmpdir(), timeout: 20_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
        );
      });
    expect((await lockctl('erin', 'lock', 'try', 'erin/x')).stderr).to.contain('PERMISSION_DENIED');
    expect(await lockctl('root', 'acl', 'grant', 'erin', 'lock', 'erin/')).to.include({ code: 0, stdout: 'granted lock on "erin/" for erin\n' });
    const listed = await lockctl('root', '--json', 'acl', 'list');
    expect(JSON.parse(listed.stdout)).to.deep.include({ principal: 'erin', prefix: 'erin/', verb: 'lock' });
    expect((await lockctl('erin', 'lock', 'try', 'erin/x')).code).to.equal(0);
    const other = await lockctl('erin', 'lock', 'try', 'other/x');
    expect(other.code).to.equal(1);
    expect(other.stderr).to.contain('PERMISSION_DENIED: erin may not acquire "other/x"');
    expect((await lockctl('erin', 'acl', 'list')).stderr).to.contain('needs `admin`');
    expect((await lockctl('root', 'acl', 'grant', 'erin', 'write', 'erin/')).code).to.equal(2);
    expect(await lockctl('root', 'acl', 'revoke', 'erin', 'lock', 'erin/')).to.include({ code: 0, stdout: 'revoked lock on "erin/" for erin\n' });
    expect((await lockctl('erin', 'lock', 'try', 'erin/y')).stderr).to.contain('PERMISSION_DENIED');
  });

  it("the HTTPS endpoint: /metrics, /state and the dashboard need `read` on '' (or admin); the probes stay open", async () => {
    certs.frank ??= pki.client('frank');
    certs.root ??= pki.client('root');
    for (const id of ['n1', 'n2', 'n3']) {
      const port = httpPort.get(id)!;
      expect((await httpsGet(port, '/readyz', pki)).status, `${id} /readyz`).to.be.oneOf([200, 503]);
      const denied = await httpsGet(port, '/metrics', pki, certs.frank);
      expect(denied.status, `${id} /metrics as frank`).to.equal(403);
      expect(denied.body).to.contain('frank may not read').and.contain('`read`');
      expect((await httpsGet(port, '/state', pki, certs.root)).status, `${id} /state as root`).to.equal(200);
    }
    // `read` on a narrower prefix is not the whole cluster's state.
    expect(await root.aclGrant({ principal: 'frank', verb: 'read', prefix: 'frank/' })).to.equal(true);
    expect(await root.aclGrant({ principal: 'frank', verb: 'read', prefix: '' })).to.equal(true);
    for (const id of ['n1', 'n2', 'n3'])
      await waitFor(`${id} to let frank read`, async () =>
        (await httpsGet(httpPort.get(id)!, '/metrics', pki, certs.frank)).status === 200 ? true : undefined,
      );
    expect(await root.aclRevoke({ principal: 'frank', verb: 'read', prefix: '' })).to.equal(true);
    for (const id of ['n1', 'n2', 'n3'])
      await waitFor(`${id} to refuse frank again`, async () => ((await httpsGet(httpPort.get(id)!, '/', pki, certs.frank)).status === 403 ? true : undefined));
  });

  it('a node refuses to start with --acl but without TLS and client certificates (exit 2, a clear message)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockd-acl-'));
    try {
      const [a, b] = [await freePort(), await freePort()];
      const base = [
        '--id',
        'n1',
        '--listen',
        `127.0.0.1:${a}`,
        '--peer-listen',
        `127.0.0.1:${b}`,
        '--peers',
        `n1=127.0.0.1:${b}`,
        '--data-dir',
        join(dir, 'd'),
        '--cluster-id',
        'c',
        '--acl',
      ];
      const plain = await cluster.runToExit(base);
      expect(plain.code).to.equal(2);
      expect(plain.output).to.contain('--acl needs TLS and --client-cert-auth');
      const files = pki.nodeFiles('n1');
      const noClientAuth = await cluster.runToExit([...base, '--tls-cert', files.cert, '--tls-key', files.key, '--tls-ca', pki.caCert]);
      expect(noClientAuth.code).to.equal(2);
      expect(noClientAuth.output).to.contain('--acl needs TLS and --client-cert-auth');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
