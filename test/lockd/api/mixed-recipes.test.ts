// Recipes mixed on one name, on a real 3-node cluster through the public gRPC API only (the wire,
// not the TS client): an election name is not a semaphore (SetPermits, shared and downgrade on it
// are refused, so it keeps one leader that Leader() answers and Proclaim accepts); every change of
// a lock is an event (a downgrade, SetPermits with no waiters); a retried exclusive Acquire after a
// downgrade says it is shared now; and a third party that reads a waiter's index (Inspect, a QUEUED
// event) cannot free the grant that waiter's call was handed. Calls use the raw stubs with
// untyped requests, so new fields reach the server as protobufjs sends them.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import { useApiFixture, waitFor, type ApiFixture } from './api-fixture.js';
import { statusOf, type Observation } from '../../support/lock-api-client.js';

const TTL_MS = 60_000;

type Any = Record<string, unknown>;
type RawClient = grpc.Client &
  Record<string, (req: Any, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Any) => void) => grpc.ClientUnaryCall>;

/** One unary call by method name, with an untyped request and answer. */
function call(client: unknown, method: string, req: Any, timeoutMs = 10_000): Promise<Any> {
  const c = client as RawClient;
  return new Promise((resolve, reject) =>
    c[method].call(c, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (e, r) => (e ? reject(e) : resolve(r!))),
  );
}

/** Election.Observe responses of one stream. */
class LeaderStream {
  readonly seen: Any[] = [];
  private constructor(private readonly stream: grpc.ClientReadableStream<Any>) {
    stream.on('data', (r: Any) => this.seen.push(r));
    stream.on('error', () => {});
  }
  static async open(election: unknown, name: string): Promise<LeaderStream> {
    const stream = (election as { Observe(req: Any): grpc.ClientReadableStream<Any> }).Observe({ name });
    const s = new LeaderStream(stream);
    await new Promise<void>((resolve, reject) => {
      stream.once('metadata', () => resolve());
      stream.once('error', reject);
    });
    return s;
  }
  cancel(): void {
    this.stream.cancel();
  }
}

const eventOf = (obs: Observation, type: string) => obs.events.find((e) => e.type === type);

describe('mixed recipes on one name (real cluster, wire API)', function () {
  this.timeout(90_000);
  let f: ApiFixture;
  let election: unknown;
  const leases: number[] = [];
  const streams: { cancel(): void }[] = [];
  useApiFixture((x) => {
    f = x;
    election = new lockdProto.lockd.v1.Election(f.leader.address, grpc.credentials.createInsecure());
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.cancel();
    for (const id of leases.splice(0)) await f.leader.revoke(id).catch(() => {});
  });
  after(() => (election as grpc.Client | undefined)?.close());

  const lease = async () => {
    const { leaseId } = await f.leader.grant(TTL_MS);
    leases.push(leaseId);
    return leaseId;
  };
  const queued = (name: string, n: number) =>
    waitFor(`${n} waiting on ${name}`, async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === n ? true : undefined), 15_000);

  it('an election name is not a semaphore: SetPermits(3) is refused, one leader stays, Leader and Proclaim work', async () => {
    const name = 'mixed/el-permits';
    const [A, B, C] = [await lease(), await lease(), await lease()];
    const a = await call(election, 'Campaign', { name, leaseId: A, value: 'a', requestId: 'el-permits-a' });
    const ka = a.leader as Any;
    const campaigns = [B, C].map((id, k) =>
      call(election, 'Campaign', { name, leaseId: id, value: `c${k}`, requestId: `el-permits-${k}` }, 60_000).catch((e: unknown) => e),
    );
    await queued(name, 2);

    const refused = await statusOf(call(f.leader.lock, 'SetPermits', { name, permits: 3, requestId: 'el-permits-set' }));
    expect(refused.code, refused.message).to.equal(grpc.status.FAILED_PRECONDITION);

    const now = await f.leader.inspect(name);
    expect(now.holders.map((h) => h.leaseId)).to.deep.equal([A]);
    expect(now.waitingLeaseIds).to.deep.equal([B, C]);
    const led = await call(election, 'Leader', { name });
    expect(led).to.deep.include({ hasLeader: true, value: 'a' });
    expect((led.leader as Any).leaseId).to.equal(A);
    await call(election, 'Proclaim', { leader: ka, value: 'a2' });
    expect((await call(election, 'Leader', { name })).value).to.equal('a2');
    // A shared Acquire by a campaigner, or a downgrade by the leader, is no way round it either.
    expect((await statusOf(f.leader.acquire(name, A, { requestId: 'el-permits-down' }))).code).to.equal(grpc.status.FAILED_PRECONDITION);
    const shared = await statusOf(call(f.leader.lock, 'Acquire', { name, leaseId: A, shared: true, wait: false, requestId: 'el-permits-sh' }));
    expect(shared.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect((await f.leader.inspect(name)).holders.map((h) => [h.leaseId, h.shared])).to.deep.equal([[A, false]]);
    for (const id of [B, C]) await f.leader.revoke(id);
    await Promise.all(campaigns);
  });

  it('a downgrade and a SetPermits with no waiters are each a Lock.Observe event', async () => {
    const rw = 'mixed/rw-down';
    const A = await lease();
    const got = await f.leader.acquire(rw, A, { requestId: 'down-x' });
    expect(got.acquired).to.equal(true);
    const obs = await f.leader.observe(rw);
    streams.push(obs);
    const down = await call(f.leader.lock, 'Acquire', { name: rw, leaseId: A, shared: true, wait: false, requestId: 'down-s' });
    expect(down).to.include({ acquired: true, fencingToken: got.fencingToken });
    const ev = await waitFor('a DOWNGRADED event', () => eventOf(obs, 'DOWNGRADED'), 10_000);
    expect(ev).to.include({ leaseId: A, fencingToken: got.fencingToken });

    const sem = 'mixed/sem-permits';
    const S = await lease();
    expect((await f.leader.acquire(sem, S)).acquired).to.equal(true);
    const sObs = await f.leader.observe(sem);
    streams.push(sObs);
    expect(await call(f.leader.lock, 'SetPermits', { name: sem, permits: 3, requestId: 'sem-permits-3' })).to.include({ previous: 1, granted: 0 });
    await waitFor('a PERMITS_CHANGED event', () => eventOf(sObs, 'PERMITS_CHANGED'), 10_000);
    expect((await f.leader.inspect(sem)).permits).to.equal(3);
    expect(sObs.events.map((e) => e.type)).to.deep.equal(['PERMITS_CHANGED']);
  });

  it('on an election, a refused downgrade and SetPermits change nothing Election.Observe or Proclaim see', async () => {
    const name = 'mixed/el-observe';
    const A = await lease();
    const ka = (await call(election, 'Campaign', { name, leaseId: A, value: 'v1', requestId: 'el-obs-a' })).leader as Any;
    const watch = await LeaderStream.open(election, name);
    streams.push(watch);
    await waitFor('the current leader first', () => watch.seen[0], 10_000);
    const down = await statusOf(call(f.leader.lock, 'Acquire', { name, leaseId: A, shared: true, wait: false, requestId: 'el-obs-down' }));
    expect(down.code).to.equal(grpc.status.FAILED_PRECONDITION);
    const perm = await statusOf(call(f.leader.lock, 'SetPermits', { name, permits: 2, requestId: 'el-obs-perm' }));
    expect(perm.code).to.equal(grpc.status.FAILED_PRECONDITION);
    // The leadership is unchanged: its own key still proclaims, and the stream shows that, next.
    await call(election, 'Proclaim', { leader: ka, value: 'v2' });
    await waitFor('the Proclaim observed', () => (watch.seen.some((r) => r.value === 'v2') ? true : undefined), 10_000);
    expect(watch.seen.map((r) => [r.hasLeader, (r.leader as Any | null)?.fencingToken, r.value])).to.deep.equal([
      [true, ka.fencingToken, 'v1'],
      [true, ka.fencingToken, 'v2'],
    ]);
  });

  it('a retry of the exclusive Acquire after a downgrade answers shared: true', async () => {
    const name = 'mixed/rw-retry';
    const A = await lease();
    const req = { name, leaseId: A, wait: false, requestId: 'retry-x' };
    const first = await call(f.leader.lock, 'Acquire', req);
    expect(first.acquired).to.equal(true);
    expect(first.shared ?? false).to.equal(false); // absent on a server that predates the field
    await call(f.leader.lock, 'Acquire', { name, leaseId: A, shared: true, wait: false, requestId: 'retry-s' });
    const retry = await call(f.leader.lock, 'Acquire', req);
    expect(retry).to.include({ acquired: true, fencingToken: first.fencingToken, shared: true });
  });

  /** H holds `name`; L's waiting Acquire (request id `rid`) queues behind it and is handed the grant H releases. */
  const handedAfterQueue = async (name: string, rid: string) => {
    const [H, L] = [await lease(), await lease()];
    const held = await f.leader.acquire(name, H);
    const obs = await f.leader.observe(name);
    streams.push(obs);
    const waiting = f.leader.acquire(name, L, { wait: true, requestId: rid, timeoutMs: 30_000 });
    const q = await waitFor('a QUEUED event', () => eventOf(obs, 'QUEUED'), 15_000);
    await f.leader.release(name, held.fencingToken);
    const got = await waiting;
    expect(got).to.include({ acquired: true, holderLeaseId: L });
    return { L, index: q.index, token: got.fencingToken };
  };

  /** A third party's CancelWait cleanups with `index`: none names the Acquire's request id, so L keeps its grant. */
  const thirdPartyCannotFree = async (name: string, L: number, index: number, token: number) => {
    for (const [k, acquireRequestId] of [undefined, 'guess'].entries()) {
      const req: Any = { name, leaseId: L, abandonedAtIndex: index, requestId: `${name}-cancel-${k}` };
      if (acquireRequestId) req.acquireRequestId = acquireRequestId;
      const r = await call(f.leader.lock, 'CancelWait', req).catch((e: grpc.ServiceError) => e);
      if (r instanceof Error) expect(r.code, r.message).to.equal(grpc.status.INVALID_ARGUMENT);
      else expect(r).to.include({ released: false });
      expect(await f.leader.inspect(name), `after cleanup ${k}`).to.include({ held: true, holderLeaseId: L, fencingToken: token });
    }
  };

  it('a third party cannot free a grant handed to a waiting Acquire, with the index of its QUEUED event', async () => {
    const name = 'mixed/cancel-queued';
    const { L, index, token } = await handedAfterQueue(name, 'cq-wait');
    await thirdPartyCannotFree(name, L, index, token);
  });

  it('a third party cannot free a grant handed to a waiting Acquire, with the index Inspect shows', async () => {
    const name = 'mixed/cancel-inspect';
    const L = await lease();
    // A waiting Acquire granted at once: its grant's token is its own entry's index.
    const got = await f.leader.acquire(name, L, { wait: true, requestId: 'ci-wait', timeoutMs: 30_000 });
    expect(got.acquired).to.equal(true);
    const seen = await f.leader.inspect(name);
    await thirdPartyCannotFree(name, L, seen.fencingToken, got.fencingToken);
  });
});
