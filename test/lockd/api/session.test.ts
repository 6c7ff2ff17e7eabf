// lockd.v1 Session on a real 3-node cluster: many operations on one stream, answered by id out of
// order, per-operation errors that leave the stream open, leader-only service (UNAVAILABLE with the
// lockd-leader trailer elsewhere, and when the leader steps down), the in-flight bound; and the
// SessionClient on top (reconnecting to the new leader after a step-down).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { SessionClient as SessionStub } from '../../../src/proto/gen/lockd/v1/Session.js';
import type { SessionRequest } from '../../../src/proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse__Output } from '../../../src/proto/gen/lockd/v1/SessionResponse.js';
import { SessionClient } from '../../../src/client/session-client.js';
import type { LockdError } from '../../../src/client/errors.js';
import { ApiFixture, waitFor } from './api-fixture.js';

const TTL_MS = 60_000;

/** A raw Session stream: send requests, await the response to an id, or the stream's end status. */
class RawSession {
  readonly call: grpc.ClientDuplexStream<SessionRequest, SessionResponse__Output>;
  readonly responses: SessionResponse__Output[] = [];
  readonly ended: Promise<grpc.StatusObject>;
  private readonly stub: SessionStub;
  private readonly waiters = new Map<number, (r: SessionResponse__Output) => void>();

  constructor(address: string) {
    this.stub = new lockdProto.lockd.v1.Session(address, grpc.credentials.createInsecure());
    this.call = this.stub.Open();
    this.call.on('data', (r: SessionResponse__Output) => {
      this.responses.push(r);
      this.waiters.get(r.id)?.(r);
    });
    this.ended = new Promise((resolve) => this.call.on('status', resolve));
    this.call.on('error', () => {}); // the status carries it
  }

  send(req: SessionRequest): void {
    this.call.write(req);
  }

  /** The response to `id` (already received or still to come). */
  answer(id: number, timeoutMs = 10_000): Promise<SessionResponse__Output> {
    const got = this.responses.find((r) => r.id === id);
    if (got) return Promise.resolve(got);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to session id ${id} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
  }

  close(): void {
    this.call.cancel();
    this.stub.close();
  }
}

/** Node `id`'s log entries of an abandoned wait's cleanup for (name, leaseId): done or failed. */
const cleanupLogs = (log: string, name: string, leaseId: number) =>
  log
    .split('\n')
    .filter((l) => l.includes('"event":"wait cancelled"') || l.includes('"event":"wait cancel failed"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.name === name && e.leaseId === leaseId);

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return (e as LockdError).codeName;
  }
  throw new Error('expected the operation to fail');
};

describe('lock API: Session stream', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const closers: Array<() => void> = [];
  const raw = (address: string) => {
    const s = new RawSession(address);
    closers.push(() => s.close());
    return s;
  };
  const client = () => {
    const c = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address), timeoutMs: 10_000 });
    closers.push(() => c.close());
    return c;
  };

  const logged = (id: string, name: string, leaseId: number) => cleanupLogs(f.cluster.log(id), name, leaseId);

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  after(async () => {
    await f?.stop();
  });

  it('grant, acquire, release and fence write/read on one stream, a waiting acquire answered after later operations', async () => {
    const s = client();
    const a = await s.grant(TTL_MS);
    const b = await s.grant(TTL_MS);
    expect(a.leaseId).to.be.greaterThan(0);
    expect(s.address()).to.equal(f.cluster.node(f.leaderId).address);
    const first = await s.acquire('sess-1', a.leaseId);
    expect(first).to.include({ acquired: true, holderLeaseId: a.leaseId });

    const order: string[] = [];
    const waiting = s.acquire('sess-1', b.leaseId, { wait: true, timeoutMs: 30_000 }).then((r) => (order.push('wait'), r));
    await waitFor('b queued', async () => ((await s.inspect('sess-1')).waitingLeaseIds.includes(b.leaseId) ? true : undefined));
    expect(await s.fenceWrite('sess-key', 'from a', first.fencingToken)).to.equal(first.fencingToken);
    order.push('write');
    expect((await s.fenceRead('sess-key')).value.toString()).to.equal('from a');
    order.push('read');
    expect((await s.timeToLive(a.leaseId)).locks).to.deep.equal(['sess-1']);
    expect(await s.release('sess-1', first.fencingToken)).to.equal(true);
    const second = await waiting;
    expect(order).to.deep.equal(['write', 'read', 'wait']);
    expect(second).to.include({ acquired: true, holderLeaseId: b.leaseId });
    expect(second.fencingToken).to.be.greaterThan(first.fencingToken);

    // The same semantics as the unary calls: a stale token is refused and a stale release changes nothing.
    await s.fenceWrite('sess-key', 'from b', second.fencingToken);
    expect(await code(s.fenceWrite('sess-key', 'late a', first.fencingToken))).to.equal('FAILED_PRECONDITION');
    expect(await s.release('sess-1', first.fencingToken)).to.equal(false);
    expect((await f.leader.inspect('sess-1')).holderLeaseId).to.equal(b.leaseId);
    await s.revoke(a.leaseId);
    await s.revoke(b.leaseId);
    expect(await code(s.timeToLive(a.leaseId))).to.equal('NOT_FOUND');
  });

  it('answers in completion order by id on the wire', async () => {
    const s = raw(f.cluster.node(f.leaderId).address);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    const held = await f.leader.acquire('sess-order', a);
    s.send({ id: 7, acquire: { name: 'sess-order', leaseId: b, wait: true }, timeoutMs: 30_000 });
    s.send({ id: 3, inspect: { name: 'sess-order' } });
    const inspected = await s.answer(3);
    expect(inspected.result).to.equal('inspect');
    await f.leader.release('sess-order', held.fencingToken);
    const granted = await s.answer(7);
    expect(granted.result).to.equal('acquire');
    expect(granted.acquire).to.include({ acquired: true, holderLeaseId: b });
    expect(s.responses.map((r) => r.id)).to.deep.equal([3, 7]);
    await f.leader.revoke(a);
    await f.leader.revoke(b);
  });

  it('answers a bad operation with its error and keeps the stream open', async () => {
    const s = raw(f.cluster.node(f.leaderId).address);
    s.send({ id: 1, acquire: { name: '', leaseId: 1, wait: false } });
    s.send({ id: 2, release: { name: 'x', fencingToken: 0 } });
    s.send({ id: 3 }); // no operation
    s.send({ id: 4, inspect: { name: 'x' }, timeoutMs: -1 });
    s.send({ id: 5, acquire: { name: 'sess-nolease', leaseId: 987654321, wait: false } });
    s.send({ id: 6, grant: { ttlMs: TTL_MS } });
    for (const id of [1, 2, 3, 4]) {
      const r = await s.answer(id);
      expect(r.result, `id ${id}`).to.equal('error');
      expect(r.error!.code, `id ${id}: ${r.error!.message}`).to.equal(grpc.status.INVALID_ARGUMENT);
    }
    expect((await s.answer(5)).error).to.include({ code: grpc.status.NOT_FOUND });
    const granted = await s.answer(6);
    expect(granted.result).to.equal('grant');
    s.send({ id: 7, revoke: { leaseId: granted.grant!.leaseId } });
    expect((await s.answer(7)).result).to.equal('revoke');
    // Half-close: the server answers what is in flight, then ends OK.
    s.call.end();
    expect((await s.ended).code).to.equal(grpc.status.OK);
  });

  it('a waiting acquire with timeout_ms answers DEADLINE_EXCEEDED and leaves the queue', async () => {
    const s = raw(f.cluster.node(f.leaderId).address);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('sess-deadline', a);
    s.send({ id: 1, acquire: { name: 'sess-deadline', leaseId: b, wait: true, requestId: 'sess-deadline-1' }, timeoutMs: 300 });
    const r = await s.answer(1);
    expect(r.error).to.include({ code: grpc.status.DEADLINE_EXCEEDED });
    await waitFor('b out of the queue', async () => ((await f.leader.inspect('sess-deadline')).waitingLeaseIds.length === 0 ? true : undefined));
    await f.leader.revoke(a);
    await f.leader.revoke(b);
  });

  it('refuses a session on a follower with UNAVAILABLE and the lockd-leader trailer', async () => {
    const s = raw(f.follower.address);
    s.send({ id: 1, inspect: { name: 'x' } });
    const st = await s.ended;
    expect(st.code).to.equal(grpc.status.UNAVAILABLE);
    expect(st.metadata.get('lockd-leader')).to.deep.equal([f.cluster.node(f.leaderId).address]);
    expect(s.responses).to.have.length(0);
  });

  it('answers RESOURCE_EXHAUSTED beyond 1024 operations in flight, and goes on', async () => {
    const s = raw(f.cluster.node(f.leaderId).address);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('sess-bound', a);
    // 1024 waits of one lease for a held lock stay in flight until the lease goes.
    for (let id = 1; id <= 1024; id++) s.send({ id, acquire: { name: 'sess-bound', leaseId: b, wait: true }, timeoutMs: 50_000 });
    s.send({ id: 1025, inspect: { name: 'sess-bound' } });
    const refused = await s.answer(1025);
    expect(refused.error).to.include({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect(s.responses).to.have.length(1);
    await f.leader.revoke(b);
    const ends = await Promise.all(Array.from({ length: 1024 }, (_, k) => s.answer(k + 1)));
    expect(new Set(ends.map((r) => r.error?.code))).to.deep.equal(new Set([grpc.status.NOT_FOUND]));
    s.send({ id: 1, inspect: { name: 'sess-bound' } }); // ids are free again once answered
    await waitFor('a fresh answer to id 1', () => (s.responses.filter((r) => r.id === 1).length === 2 ? true : undefined));
    expect(s.responses.filter((r) => r.id === 1)[1].inspect).to.include({ held: true, holderLeaseId: a });
    await f.leader.revoke(a);
  });

  it("answers 8192 waits ended by one Revoke without holding the leader's loop for half an election timeout", async function () {
    this.timeout(120_000);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('sess-many', a);
    const sessions = Array.from({ length: 8 }, () => raw(f.cluster.node(f.leaderId).address));
    // Queued 128 at a time (what this test is about is their end, not 4096 arriving at once): a
    // stream's Inspect answered means the waits before it were proposed, and a write after them
    // is applied after them.
    const CHUNK = 128;
    for (let first = 1; first <= 1024; first += CHUNK) {
      for (const s of sessions) {
        for (let id = first; id < first + CHUNK; id++) s.send({ id, acquire: { name: 'sess-many', leaseId: b, wait: true }, timeoutMs: 100_000 });
        s.send({ id: 2000 + first, inspect: { name: 'sess-many' } });
      }
      for (const s of sessions) await s.answer(2000 + first, 30_000);
      await f.leader.grant(TTL_MS);
    }
    const before = f.cluster.log(f.leaderId).length;
    const leader = f.leaderId;
    await f.leader.revoke(b);
    for (const s of sessions) {
      const ends = await Promise.all(Array.from({ length: 1024 }, (_, k) => s.answer(k + 1, 60_000)));
      expect(new Set(ends.map((r) => r.error?.code))).to.deep.equal(new Set([grpc.status.NOT_FOUND]));
    }
    await f.leader.grant(TTL_MS); // a turn of the leader's loop after the last answer: its stall watch has run
    // The cluster's election timeout is 20 ticks of 20 ms; a turn longer than half of it is logged
    // as a loop stall (200 ms) and leaves the followers close to campaigning.
    const stalls = f.cluster
      .log(leader)
      .slice(before)
      .split('\n')
      .filter((l) => l.includes('"event":"loop stall"'));
    expect(stalls, 'loop stalls on the leader while it answered the ended waits').to.deep.equal([]);
    expect(await f.cluster.waitForLeader(), 'leader changed during the test').to.equal(leader);
    await f.leader.revoke(a);
  });

  it('ends the stream with INVALID_ARGUMENT when an id in flight is reused', async () => {
    const s = raw(f.cluster.node(f.leaderId).address);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('sess-dup', a);
    s.send({ id: 9, acquire: { name: 'sess-dup', leaseId: b, wait: true }, timeoutMs: 30_000 });
    await waitFor('b queued', async () => ((await f.leader.inspect('sess-dup')).waitingLeaseIds.includes(b) ? true : undefined));
    s.send({ id: 9, inspect: { name: 'sess-dup' } });
    expect((await s.ended).code).to.equal(grpc.status.INVALID_ARGUMENT);
    await f.leader.revoke(a);
    await f.leader.revoke(b);
  });

  // Last: it moves the leadership.
  it('ends sessions with UNAVAILABLE naming the new leader when the leader steps down; the client reconnects there', async () => {
    const old = f.leaderId;
    const s = raw(f.cluster.node(old).address);
    const c = client();
    const { leaseId: a } = await c.grant(TTL_MS);
    const { leaseId: b } = await c.grant(TTL_MS);
    await c.acquire('sess-move', a);
    const inFlight = c.acquire('sess-move', b, { wait: true, timeoutMs: 50_000, requestId: 'sess-move-b' });
    await waitFor('b queued', async () => ((await f.leader.inspect('sess-move')).waitingLeaseIds.includes(b) ? true : undefined));
    // A second waiter behind b (a unary call on another node): a b cancelled and re-queued would come back behind it.
    const { leaseId: d } = await f.leader.grant(TTL_MS);
    const other = f.api(f.cluster.nodes.find((n) => n.id !== old)!.id);
    const behind = other.acquire('sess-move', d, { wait: true, timeoutMs: 50_000 });
    await waitFor('d queued behind b', async () => ((await f.leader.inspect('sess-move')).waitingLeaseIds.length === 2 ? true : undefined));
    s.send({ id: 1, inspect: { name: 'sess-move' } });
    await s.answer(1);
    // Freeze the leader until the others elect a new one; thawed, it steps down and ends its sessions.
    f.cluster.signal(old, 'SIGSTOP');
    let next: string;
    try {
      next = await f.cluster.waitForLeader(f.cluster.nodes.map((n) => n.id).filter((id) => id !== old));
    } finally {
      f.cluster.signal(old, 'SIGCONT');
    }
    const st = await s.ended;
    expect(st.code).to.equal(grpc.status.UNAVAILABLE);
    expect(st.metadata.get('lockd-leader')).to.deep.equal([f.cluster.node(next).address]);
    const lost = (await inFlight.then(
      () => undefined,
      (e: unknown) => e,
    )) as LockdError;
    expect(lost?.codeName).to.equal('UNAVAILABLE');
    expect(lost.leader).to.equal(f.cluster.node(next).address);
    // The retry (same request id) keeps the wait's place; the next stream goes to the new leader.
    const retried = c.acquire('sess-move', b, { wait: true, timeoutMs: 30_000, requestId: 'sess-move-b' });
    // The old leader abandoned b's wait when its session ended: its cleanup, after the grace
    // period, must find the retry and change nothing.
    const cleanup = await waitFor(`${old}'s cleanup of b's abandoned wait`, () => logged(old, 'sess-move', b)[0], 20_000);
    expect(cleanup).to.include({ event: 'wait cancelled', removed: false, released: false });
    expect((await c.inspect('sess-move')).waitingLeaseIds).to.deep.equal([b, d]);
    expect(c.address()).to.equal(f.cluster.node(next).address);
    await c.revoke(a);
    expect(await retried).to.include({ acquired: true, holderLeaseId: b });
    await c.revoke(b);
    expect(await behind).to.include({ acquired: true, holderLeaseId: d });
    await c.revoke(d);
    await f.refreshLeader();
  });
});
