// The cleanup of an abandoned waiting Acquire on a real 3-node cluster (test/faults/README.md,
// bug 1): it takes the lease out of the queue, or releases a grant nobody was handed — and leaves
// alone what a later call of the same lease was given (a try-lock on the same node, or a retry of
// the same wait served by another node after a leader change).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from './api-fixture.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';
import { statusOf, type LockApi } from '../../support/lock-api-client.js';

/** Long enough to outlive every pause here without keepalives (a paused node would stall a keepalive stream). */
const TTL_MS = 60_000;

describe('lock API: cleanup of an abandoned wait', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const leases: number[] = [];

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(async () => {
    for (const id of leases.splice(0)) await f.leader.revoke(id).catch(() => {});
  });
  after(async () => {
    await f?.stop();
  });

  const lease = async (via: LockApi = f.leader) => {
    const { leaseId } = await via.grant(TTL_MS);
    leases.push(leaseId);
    return leaseId;
  };

  /** The `event` log entries of node `id` about (name, leaseId), parsed. */
  const logged = (id: string, event: string, name: string, leaseId: number) =>
    f.cluster
      .log(id)
      .split('\n')
      .filter((l) => l.includes(`"event":"${event}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.name === name && e.leaseId === leaseId);

  const cleanedUp = (id: string, name: string, leaseId: number) =>
    waitFor(`${id}'s cleanup of the abandoned wait for ${name}`, () => logged(id, 'wait cancelled', name, leaseId)[0], 15_000);

  /** Cancel the waiting call and wait until node `id` has seen it go (its grace period has begun). */
  const abandon = async (id: string, call: { result: Promise<unknown>; cancel(): void }, name: string, leaseId: number) => {
    call.cancel();
    expect((await statusOf(call.result)).code).to.equal(grpc.status.CANCELLED);
    await waitFor(`${id} to see the waiting call go`, () => logged(id, 'waiter gone', name, leaseId)[0], 5000, 10);
  };

  /** L waits for `name` (held by H) on `api`, with request id `rid`; resolves once L is queued. */
  const waitBehind = async (api: LockApi, name: string, H: number, L: number, rid: string) => {
    const held = await api.acquire(name, H);
    expect(held.acquired).to.equal(true);
    const call = api.acquireCancellable(name, L, { requestId: rid, timeoutMs: 30_000 });
    await waitFor('queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(L) ? true : undefined));
    return { call, tH: held.fencingToken };
  };

  it('releases a grant made during the grace period, handing it to the next waiter', async () => {
    const name = 'abandon-plain';
    const [H, L, M] = [await lease(), await lease(), await lease()];
    const { call, tH } = await waitBehind(f.leader, name, H, L, 'plain-1');
    const next = f.leader.acquire(name, M, { wait: true, timeoutMs: 30_000 });
    await waitFor('M queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 2 ? true : undefined));
    await abandon(f.leaderId, call, name, L);
    await f.leader.release(name, tH);
    const granted = await f.leader.inspect(name);
    expect(granted).to.include({ held: true, holderLeaseId: L });
    // Nobody got L's grant: the cleanup releases it and M, next in line, is granted.
    const m = await next;
    expect(m).to.include({ acquired: true, holderLeaseId: M });
    expect(m.fencingToken).to.be.greaterThan(granted.fencingToken);
    expect(await cleanedUp(f.leaderId, name, L)).to.include({ released: true, heldToken: granted.fencingToken });
  });

  it('leaves alone the grant a later try-lock of the same lease returned (the repro)', async () => {
    const name = 'abandon-trylock';
    const [H, L] = [await lease(), await lease()];
    const { call, tH } = await waitBehind(f.leader, name, H, L, 'try-1');
    await abandon(f.leaderId, call, name, L);
    await f.leader.release(name, tH);
    const tried = await f.leader.acquire(name, L, { wait: false, requestId: 'try-2' });
    expect(tried).to.include({ acquired: true, holderLeaseId: L });
    expect(await cleanedUp(f.leaderId, name, L)).to.include({ released: false, heldToken: 0 });
    expect(await f.leader.inspect(name)).to.include({ held: true, holderLeaseId: L, fencingToken: tried.fencingToken });
    expect(await f.leader.release(name, tried.fencingToken)).to.deep.equal({ released: true });
  });

  it('leaves alone the grant a retry of the same wait got from the next leader', async () => {
    const name = 'abandon-failover';
    const [H, L] = [await lease(), await lease()];
    const old = f.leaderId;
    const { call, tH } = await waitBehind(f.leader, name, H, L, 'failover-1');
    const others = f.cluster.nodes.map((n) => n.id).filter((id) => id !== old);
    // Watched from a node that stays up: a cleanup that ran before the pause would show as WAIT_CANCELLED.
    // It must have applied L's queueing first (a follower learns the commit index with the next App or
    // heartbeat), or the stream would open with that QUEUED event.
    await f.cluster.waitForApplied((await f.cluster.status(old)).appliedIndex, [others[0]]);
    const obs = await f.api(others[0]).observe(name);
    // The client gives up on the waiting node, which stops within the grace period (its cleanup
    // timer frozen); the client retries the same request on the next leader.
    await abandon(old, call, name, L);
    f.cluster.signal(old, 'SIGSTOP');
    try {
      const leader = f.api(await f.cluster.waitForLeader(others));
      const retry = leader.acquire(name, L, { wait: true, requestId: 'failover-1', timeoutMs: 30_000 });
      await leader.release(name, tH);
      const got = await retry;
      expect(got).to.include({ acquired: true, holderLeaseId: L });
      // The race this test is about did happen: the cleanup had not run before the pause, so the
      // retry was served from L's original queue place.
      await f.cluster.waitForApplied(tokenIndex(got.fencingToken), others);
      await waitFor('the grant observed', () => (obs.events.some((e) => e.type === 'ACQUIRED' && e.leaseId === L) ? true : undefined), 5000);
      expect(obs.events.map((e) => [e.type, e.leaseId])).to.deep.equal([
        ['RELEASED', H],
        ['ACQUIRED', L],
      ]);
      expect(logged(old, 'wait cancelled', name, L)).to.deep.equal([]);
      // The old node wakes up and cleans up now (the grace period has passed meanwhile): it finds
      // the grant the retry was handed and leaves it alone.
      f.cluster.signal(old, 'SIGCONT');
      expect(await cleanedUp(old, name, L)).to.include({ removed: false, released: false, heldToken: 0 });
      expect(obs.events.filter((e) => e.type === 'WAIT_CANCELLED' || e.type === 'RELEASED').map((e) => e.leaseId)).to.deep.equal([H]);
      obs.cancel();
      expect(await leader.inspect(name)).to.include({ held: true, holderLeaseId: L, fencingToken: got.fencingToken });
      expect(await leader.release(name, got.fencingToken)).to.deep.equal({ released: true });
    } finally {
      f.cluster.signal(old, 'SIGCONT');
      await f.refreshLeader();
    }
  });
});
