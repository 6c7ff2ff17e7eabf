// A node that catches up by snapshot has no applied events for the entries the snapshot covers;
// its waits and streams must still be settled from the restored state. On a real 3-node cluster
// that compacts its log every few entries (--snapshot-every 5; the lease clock's Ticks write a few
// entries a second while leases live), a node is paused with SIGSTOP while the others move on and
// compact past it, then resumed: it catches up by snapshot (checked in its log). A paused follower
// still has the entries the leader sent before its window of unacknowledged messages (256) filled
// sitting in its socket, so the test writes past that window first. Then
//  - its Lock.Observe stream gets a RESYNC event with the lock's state, its Election.Observe the
//    new leader;
//  - a waiting Acquire (no deadline) it served is answered the grant the others made meanwhile;
//  - the same for a waiting Campaign;
//  - a KeepAlive stream it served is told ttl_ms 0 for a lease revoked meanwhile (a follower's
//    stream is the leader's, proxied), or — a deposed leader ends its streams UNAVAILABLE, and so
//    does a follower whose connection to the leader dropped — a fresh KeepAlive there says
//    ttl_ms 0: never silence.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from './api-fixture.js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { ElectionClient } from '../../../src/proto/gen/lockd/v1/Election.js';
import type { CampaignResponse__Output } from '../../../src/proto/gen/lockd/v1/CampaignResponse.js';
import type { LeaderResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaderResponse.js';
import type { AcquireResponse__Output } from '../../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { LeaseKeepAliveResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';

const TTL_MS = 60_000; // outlives every pause here without keepalives
const SETTLE_MS = 20_000;

describe('a node that catches up by snapshot settles its waits and streams', function () {
  this.timeout(90_000);
  let f: ApiFixture;
  const elections = new Map<string, ElectionClient>();
  const cleanups: Array<() => void> = [];
  const leases: number[] = [];

  before(async () => {
    f = await ApiFixture.start({ extraArgs: ['--snapshot-every', '5'] });
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) c();
    for (const n of f.cluster.nodes) if (f.cluster.isRunning(n.id)) f.cluster.signal(n.id, 'SIGCONT');
    await f.refreshLeader();
    for (const id of leases.splice(0)) await f.leader.revoke(id).catch(() => {});
  });
  after(async () => {
    for (const e of elections.values()) e.close();
    await f?.stop();
  });

  const election = (id: string): ElectionClient => {
    let e = elections.get(id);
    if (!e) elections.set(id, (e = new lockdProto.lockd.v1.Election(f.cluster.node(id).address, grpc.credentials.createInsecure())));
    return e;
  };
  const lease = async (): Promise<number> => {
    const { leaseId } = await f.leader.grant(TTL_MS);
    leases.push(leaseId);
    return leaseId;
  };
  const others = (id: string): string[] => f.cluster.nodes.map((n) => n.id).filter((x) => x !== id);

  /** Campaign with no deadline (as the proto recommends for long waits); the promise settles with the answer or its error. */
  const campaign = (on: string, name: string, leaseId: number, value: string): Promise<CampaignResponse__Output> => {
    return new Promise((resolve, reject) => {
      const call = election(on).Campaign({ name, leaseId, value, requestId: `c-${leaseId}` }, (err, res) => (err ? reject(err) : resolve(res!)));
      cleanups.push(() => call.cancel());
    });
  };
  const resign = (on: string, leader: CampaignResponse__Output['leader']): Promise<unknown> =>
    new Promise((resolve, reject) =>
      election(on).Resign({ leader, requestId: `r-${leader!.leaseId}` }, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res))),
    );

  /** Index of the newest snapshot `id` has taken (0: none). */
  const snapshotTaken = (id: string): number => {
    let top = 0;
    for (const m of f.cluster.log(id).matchAll(/"event":"snapshot taken"[^\n]*?"index":(\d+)/g)) top = Math.max(top, Number(m[1]));
    return top;
  };
  const installs = (id: string): number => f.cluster.log(id).match(/"event":"snapshot installed"/g)?.length ?? 0;

  /** Wait until `leader` has compacted its log past everything applied on it now: a node behind must catch up by snapshot. */
  const compactedPastNow = async (leader: string): Promise<void> => {
    const { appliedIndex } = await f.cluster.status(leader);
    await waitFor(`a snapshot on ${leader} at or past ${appliedIndex}`, () => (snapshotTaken(leader) >= appliedIndex ? true : undefined), 15_000);
  };

  /**
   * More single-entry writes (try-locks of a lock `leaseId` holds) than the leader sends a paused
   * follower unacknowledged: what follows is sent to it only once it answers, and by then compacted.
   */
  const pastInflightWindow = async (leaseId: number): Promise<void> => {
    for (let k = 0; k < 300; k++) await f.leader.acquire('snap/filler', leaseId);
  };

  /** Resume `id` and wait until it has installed a snapshot (more than `before` installs in its log). */
  const resumeBySnapshot = async (id: string, before: number): Promise<void> => {
    f.cluster.signal(id, 'SIGCONT');
    await waitFor(`${id} catches up by snapshot`, () => (installs(id) > before ? true : undefined), SETTLE_MS);
  };

  /** `p`, or an error naming `what` once `ms` pass. */
  const within = <T>(p: Promise<T>, what: string, ms = SETTLE_MS): Promise<T> =>
    Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);

  it('Observe streams on a paused follower: Election.Observe shows the new leader, Lock.Observe a RESYNC with the lock state', async () => {
    const name = 'snap/observe';
    const follower = others(f.leaderId)[0];
    const [a, b] = [await lease(), await lease()];
    // Both streams served by the follower, subscribed before anything happens.
    const obs = await f.api(follower).observe(name);
    cleanups.push(() => obs.cancel());
    const leaders: LeaderResponse__Output[] = [];
    const eo = election(follower).Observe({ name });
    eo.on('data', (r: LeaderResponse__Output) => leaders.push(r));
    eo.on('error', () => {});
    cleanups.push(() => eo.cancel());
    await new Promise<void>((r) => eo.once('metadata', () => r()));

    const ka = await campaign(f.leaderId, name, a, 'a');
    await waitFor('the follower shows a leading', () => (leaders.at(-1)?.leader?.leaseId === a ? true : undefined), 10_000);
    const before = installs(follower);
    f.cluster.signal(follower, 'SIGSTOP');
    await pastInflightWindow(a); // so the follower's socket holds none of what follows
    const seen = obs.events.length;
    const cb = campaign(f.leaderId, name, b, 'b');
    await waitFor('b campaigns', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined), 10_000);
    await resign(f.leaderId, ka.leader);
    const kb = await within(cb, 'b campaigns');
    await compactedPastNow(f.leaderId);
    await resumeBySnapshot(follower, before);

    const last = await waitFor(
      'the follower’s Election.Observe shows b',
      () => (leaders.at(-1)?.leader?.leaseId === b ? leaders.at(-1) : undefined),
      SETTLE_MS,
    );
    expect(last).to.deep.include({ hasLeader: true, value: 'b' });
    expect(last.leader).to.deep.include({ name, leaseId: b, fencingToken: kb.leader!.fencingToken });
    const resync = await waitFor('a RESYNC on the follower’s Lock.Observe', () => obs.events.slice(seen).find((e) => e.type === 'RESYNC'), SETTLE_MS);
    expect(resync).to.deep.include({ name, fencingToken: kb.leader!.fencingToken, leaseId: b });
    expect(resync.state!.holders.map((h) => [h.leaseId, h.fencingToken])).to.deep.equal([[b, kb.leader!.fencingToken]]);
    expect(resync.index).to.be.greaterThan(0);
    expect(obs.error).to.equal(undefined);
  });

  /** A KeepAlive stream on `on` that renewed `leaseId` once (answered ttl > 0): it watches the lease. */
  const keepAlive = async (on: string, leaseId: number): Promise<{ answers: LeaseKeepAliveResponse__Output[]; error(): grpc.ServiceError | undefined }> => {
    const s = f.api(on).keepAliveStream();
    const answers: LeaseKeepAliveResponse__Output[] = [];
    let error: grpc.ServiceError | undefined;
    s.on('data', (r: LeaseKeepAliveResponse__Output) => answers.push(r));
    s.on('error', (e: grpc.ServiceError) => (error = e));
    cleanups.push(() => s.cancel());
    s.write({ leaseId });
    await waitFor(`a renewal of ${leaseId} on ${on}`, () => (error ? Promise.reject(error) : answers.some((a) => a.ttlMs > 0) ? true : undefined), 10_000);
    return { answers, error: () => error };
  };
  const toldGone = (answers: readonly LeaseKeepAliveResponse__Output[], leaseId: number) =>
    answers.some((a) => Number(a.leaseId) === leaseId && Number(a.ttlMs) === 0);

  /**
   * The stream on `on` hears that `leaseId` ended: ttl_ms 0 on it, or — never silence — it ends
   * UNAVAILABLE (its node stopped leading, or, on a follower, the proxied stream's connection to the
   * leader dropped: a node resumed after a pause may time out its own keepalive ping before it reads
   * the answer). Then the client reconnects and resends (proto), and a fresh KeepAlive on `on` says
   * ttl_ms 0 (served or proxied to the leader).
   */
  const hearsGone = async (ka: Awaited<ReturnType<typeof keepAlive>>, on: string, leaseId: number): Promise<void> => {
    const how = await waitFor(
      `the stream on ${on} hears of lease ${leaseId}`,
      () => (toldGone(ka.answers, leaseId) ? 'ttl 0' : ka.error() ? 'ended' : undefined),
      SETTLE_MS,
    );
    if (how === 'ttl 0') return;
    expect(ka.error()!.code, ka.error()!.details).to.equal(grpc.status.UNAVAILABLE);
    const s = f.api(on).keepAliveStream();
    cleanups.push(() => s.cancel());
    const first = within(
      new Promise<LeaseKeepAliveResponse__Output>((resolve, reject) => {
        s.once('data', resolve);
        s.once('error', reject);
      }),
      `a fresh KeepAlive of ${leaseId} on ${on}`,
    );
    s.write({ leaseId });
    expect(await first).to.deep.include({ leaseId, ttlMs: 0 });
  };

  it('a KeepAlive stream on a paused follower hears of a lease revoked meanwhile once it caught up by snapshot: ttl 0, or it ends UNAVAILABLE and a fresh KeepAlive says ttl 0', async () => {
    const follower = others(f.leaderId)[0];
    const [a, filler] = [await lease(), await lease()];
    const ka = await keepAlive(follower, a);
    const before = installs(follower);
    f.cluster.signal(follower, 'SIGSTOP');
    await pastInflightWindow(filler);
    await f.leader.revoke(a);
    await compactedPastNow(f.leaderId);
    expect(toldGone(ka.answers, a), 'nothing reaches a paused node').to.equal(false);
    await resumeBySnapshot(follower, before);

    await hearsGone(ka, follower, a);
  });

  it('a KeepAlive stream on a leader paused, deposed and caught up by snapshot ends UNAVAILABLE (or says ttl 0); a fresh KeepAlive there says ttl 0', async () => {
    const old = f.leaderId;
    // A second lease keeps the lease clock's Ticks going (entries, so snapshots) once `a` is revoked.
    const [a] = [await lease(), await lease()];
    const ka = await keepAlive(old, a);
    const before = installs(old);
    f.cluster.signal(old, 'SIGSTOP');
    const next = await f.cluster.waitForLeader(others(old));
    await f.api(next).revoke(a);
    await compactedPastNow(next);
    await resumeBySnapshot(old, before);

    await hearsGone(ka, old, a);
  });

  it('a waiting Acquire (no deadline) on a leader paused, deposed and caught up by snapshot is answered its grant', async () => {
    const name = 'snap/acquire';
    const old = f.leaderId;
    const [a, b] = [await lease(), await lease()];
    const held = await f.leader.acquire(name, a);
    expect(held.acquired).to.equal(true);
    const waiting: Promise<AcquireResponse__Output> = f.api(old).acquire(name, b, { wait: true, timeoutMs: Infinity, requestId: `w-${b}` });
    await waitFor('b waits', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined), 10_000);
    const before = installs(old);
    f.cluster.signal(old, 'SIGSTOP');
    const next = await f.cluster.waitForLeader(others(old));
    expect((await f.api(next).release(name, held.fencingToken)).released).to.equal(true);
    const now = await f.api(next).inspect(name);
    expect(now.holderLeaseId, 'b was granted by the new leader').to.equal(b);
    await compactedPastNow(next);
    await resumeBySnapshot(old, before);

    const r = await within(waiting, 'the waiting Acquire on the old leader');
    expect(r).to.deep.include({ acquired: true, fencingToken: now.fencingToken, holderLeaseId: b });
  });

  it('a waiting Campaign (no deadline) on a leader paused, deposed and caught up by snapshot is answered its leadership', async () => {
    const name = 'snap/campaign';
    const old = f.leaderId;
    const [a, b] = [await lease(), await lease()];
    const ka = await campaign(old, name, a, 'a');
    const waiting = campaign(old, name, b, 'b');
    await waitFor('b campaigns', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined), 10_000);
    const before = installs(old);
    f.cluster.signal(old, 'SIGSTOP');
    const next = await f.cluster.waitForLeader(others(old));
    await resign(next, ka.leader);
    const now = await f.api(next).inspect(name);
    expect(now.holderLeaseId, 'b was elected by the new leader').to.equal(b);
    await compactedPastNow(next);
    await resumeBySnapshot(old, before);

    const r = await within(waiting, 'the waiting Campaign on the old leader');
    expect(r.leader).to.deep.include({ name, leaseId: b, fencingToken: now.fencingToken });
  });
});
