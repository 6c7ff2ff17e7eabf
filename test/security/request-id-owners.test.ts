// Request ids and lease ids across principals, on real node processes with test-made certificates:
// a Grant's request id is its principal's (another's reuse never gets that lease, live or ended),
// a keepalive for a lease this leader has not applied yet is not renewed on someone else's behalf,
// and Membership request ids share the one namespace with every other request.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { LockClient } from '../../src/client/index.js';

const v1 = lockdProto.lockd.v1;
type Outcome = { code: grpc.status; details: string; res?: Record<string, unknown> };

function unaryOutcome<Res>(run: (cb: (err: grpc.ServiceError | null, res?: Res) => void) => void): Promise<Outcome> {
  return new Promise((resolve) =>
    run((err, res) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '', res: res as Record<string, unknown> })),
  );
}

describe('request ids and lease ids across principals (real processes, test-made certificates)', function () {
  this.timeout(180_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  let root: LockClient;
  const certs: Record<string, CertFiles> = {};
  const stubs: grpc.Client[] = [];
  const creds = (who: string) => pki.channelCredentials((certs[who] ??= pki.client(who)));
  const stub = <T extends grpc.Client>(ctor: new (a: string, c: grpc.ChannelCredentials) => T, address: string, who: string): T => {
    const s = new ctor(address, creds(who));
    stubs.push(s);
    return s;
  };
  const leaderAddress = async () => {
    const id = await cluster.waitForLeader();
    return cluster.nodes.find((n) => n.id === id)!.address;
  };
  const deadline = () => ({ deadline: Date.now() + 10_000 });

  before(async () => {
    pki = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, extraArgs: ['--acl', '--admin', 'root'] });
    await cluster.waitForLeader();
    certs.root = pki.client('root');
    root = new LockClient({
      endpoints: cluster.nodes.map((n) => n.address),
      cacert: pki.caCert,
      cert: certs.root.cert,
      key: certs.root.key,
      timeoutMs: 10_000,
      watchLocks: false,
    });
    for (const principal of ['alice', 'bob']) expect(await root.aclGrant({ principal, verb: 'lock', prefix: `${principal}/` })).to.equal(true);
  });
  after(async function () {
    root?.close();
    for (const s of stubs) s.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it("a Grant request id reused by another principal after the lease ended is PERMISSION_DENIED, never the dead lease; the owner's retry still gets it", async () => {
    const at = await leaderAddress();
    const alice = stub(v1.Lease, at, 'alice');
    const bob = stub(v1.Lease, at, 'bob');
    const rid = `grant-${process.pid}-${Date.now()}`;
    const first = await unaryOutcome((cb) => alice.Grant({ ttlMs: 5000, requestId: rid }, deadline(), cb));
    expect(first.code, first.details).to.equal(grpc.status.OK);
    const leaseId = Number(first.res!.leaseId);
    expect((await unaryOutcome((cb) => alice.Revoke({ leaseId }, deadline(), cb))).code).to.equal(grpc.status.OK);
    const reused = await unaryOutcome((cb) => bob.Grant({ ttlMs: 5000, requestId: rid }, deadline(), cb));
    expect(reused.code, `bob got ${JSON.stringify(reused.res)}`).to.equal(grpc.status.PERMISSION_DENIED);
    expect(reused.details).to.contain('another principal').and.not.match(/lease/);
    const retry = await unaryOutcome((cb) => alice.Grant({ ttlMs: 5000, requestId: rid }, deadline(), cb));
    expect(retry.code, retry.details).to.equal(grpc.status.OK);
    expect(Number(retry.res!.leaseId)).to.equal(leaseId);
  });

  it("a keepalive for a lease id the leader has not applied yet never renews another principal's lease", async () => {
    const at = await leaderAddress();
    const alice = stub(v1.Lease, at, 'alice');
    const bobLease = stub(v1.Lease, at, 'bob');
    const WINDOW = 200;
    const leaks: string[] = [];
    for (let round = 0; round < 5 && leaks.length === 0; round++) {
      // Lease ids are log indexes: bob guesses the next ones from a lease of his own.
      const mine = await unaryOutcome((cb) => bobLease.Grant({ ttlMs: 5000 }, deadline(), cb));
      expect(mine.code, mine.details).to.equal(grpc.status.OK);
      const base = Number(mine.res!.leaseId);
      // bob keeps one keepalive in flight for every guessed id: each answer is sent again at once.
      const s = bobLease.KeepAlive();
      const first = new Promise<void>((resolve) => s.once('data', () => resolve()));
      const ended = new Promise<Outcome>((resolve) => {
        s.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details }));
        s.on('end', () => resolve({ code: grpc.status.OK, details: 'ended' }));
      });
      let leaked!: (o: Outcome) => void;
      const leak = new Promise<Outcome>((resolve) => (leaked = resolve));
      s.on('data', (r: { leaseId: number | string; ttlMs: number | string }) => {
        const id = Number(r.leaseId);
        if (Number(r.ttlMs) > 0 && id !== base) {
          leaks.push(`bob renewed lease ${id} (ttl ${r.ttlMs})`);
          leaked({ code: grpc.status.OK, details: leaks[0] });
        } else s.write({ leaseId: id });
      });
      for (let id = base + 1; id <= base + WINDOW; id++) s.write({ leaseId: id });
      await first;
      const granted = await unaryOutcome((cb) => alice.Grant({ ttlMs: 5000 }, deadline(), cb));
      expect(granted.code, granted.details).to.equal(grpc.status.OK);
      const theirs = Number(granted.res!.leaseId);
      expect(theirs).to.be.within(base + 1, base + WINDOW);
      // Once alice's lease is applied, bob's next keepalive for it is refused: the stream ends.
      const end = await Promise.race([ended, leak]);
      s.cancel();
      if (leaks.length > 0) break;
      expect(end.code, end.details).to.equal(grpc.status.PERMISSION_DENIED);
      expect(end.details).to.contain(`lease ${theirs}`);
      const ttl = await unaryOutcome((cb) => alice.TimeToLive({ leaseId: theirs }, deadline(), cb));
      expect(ttl.code, ttl.details).to.equal(grpc.status.OK);
    }
    expect(leaks).to.deep.equal([]);
  });

  it('Membership request ids share the one namespace: a Grant id reused for MemberRemove, and a member change id reused for Grant, are INVALID_ARGUMENT', async () => {
    const at = await leaderAddress();
    const lease = stub(v1.Lease, at, 'root');
    const members = stub(v1.Membership, at, 'root');
    const rid = `ns-${process.pid}-${Date.now()}`;
    expect((await unaryOutcome((cb) => lease.Grant({ ttlMs: 5000, requestId: `${rid}-g` }, deadline(), cb))).code).to.equal(grpc.status.OK);
    // n9 is no member: judged afresh this would be NOT_FOUND, and nothing changes either way.
    const remove = await unaryOutcome((cb) => members.MemberRemove({ id: 'n9', requestId: `${rid}-g` }, deadline(), cb));
    expect(remove.code, remove.details).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(remove.details).to.contain('request_id');
    // A committed change's id (a learner that never starts: quorum is untouched) reused for a Grant.
    const add = await unaryOutcome((cb) => members.MemberAdd({ id: 'n9', peerUrl: '127.0.0.1:9', learner: true, requestId: `${rid}-m` }, deadline(), cb));
    expect(add.code, add.details).to.equal(grpc.status.OK);
    try {
      const grant = await unaryOutcome((cb) => lease.Grant({ ttlMs: 5000, requestId: `${rid}-m` }, deadline(), cb));
      expect(grant.code, `Grant answered ${JSON.stringify(grant.res)}`).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(grant.details).to.contain('request_id');
      // The change's own retry keeps its answer.
      const again = await unaryOutcome((cb) => members.MemberAdd({ id: 'n9', peerUrl: '127.0.0.1:9', learner: true, requestId: `${rid}-m` }, deadline(), cb));
      expect(again.code, again.details).to.equal(grpc.status.OK);
    } finally {
      await unaryOutcome((cb) => members.MemberRemove({ id: 'n9', requestId: `${rid}-r` }, deadline(), cb));
    }
  });
});
