// Late first attempts and quotas, on a real 3-node cluster through the public gRPC API: every mutating
// RPC is safe to retry — a retried Release, Revoke or CancelWait (same request_id) answers what the
// first attempt did and changes nothing more, a late CancelWait cannot undo a later wait, an id
// reused for another request is INVALID_ARGUMENT — and one lease cannot take every lock.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { MAX_LOCKS_PER_LEASE } from '../../../src/lockd/state-machine/index.js';
import { ApiFixture, useApiFixture, waitFor } from './api-fixture.js';
import { statusOf } from '../../support/lock-api-client.js';

const TTL_MS = 10_000;

describe('safety: retried mutating RPCs and per-lease lock quotas', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  it('a retried Release answers released = true (not NOT_FOUND), through any node, and leaves a later grant alone', async () => {
    const a = await f.keptLease(TTL_MS);
    const t1 = (await f.leader.acquire('rel', a.leaseId)).fencingToken;
    expect(await f.follower.release('rel', t1, { requestId: 'rel-1' })).to.deep.equal({ released: true });
    expect(await f.leader.release('rel', t1, { requestId: 'rel-1' })).to.deep.equal({ released: true });
    const t2 = (await f.leader.acquire('rel', a.leaseId)).fencingToken;
    expect(await f.follower.release('rel', t1, { requestId: 'rel-1' })).to.deep.equal({ released: true });
    expect(await f.leader.inspect('rel')).to.deep.include({ held: true, fencingToken: t2 });
    const reused = await statusOf(f.leader.release('rel', t2, { requestId: 'rel-1' }));
    expect(reused.code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(reused.details).to.equal('request_id rel-1 was already used for a different request');
    expect(await f.leader.inspect('rel')).to.deep.include({ held: true, fencingToken: t2 });
  });

  it('a retried Revoke answers OK (not NOT_FOUND); the same id for another lease is INVALID_ARGUMENT', async () => {
    const { leaseId } = await f.leader.grant(TTL_MS);
    const { leaseId: other } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('rv', leaseId);
    await f.follower.revoke(leaseId, { requestId: 'rv-1' });
    await f.leader.revoke(leaseId, { requestId: 'rv-1' });
    expect((await statusOf(f.leader.revoke(leaseId))).code).to.equal(grpc.status.NOT_FOUND);
    expect((await statusOf(f.leader.revoke(other, { requestId: 'rv-1' }))).code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect((await f.leader.timeToLive(other)).leaseId).to.equal(other);
    await f.leader.revoke(other);
  });

  it('a late CancelWait (same request id) does not take the lease out of a queue it joined again', async () => {
    const holder = await f.keptLease(TTL_MS);
    const waiter = await f.keptLease(TTL_MS);
    const name = 'cw-late';
    const t = (await f.leader.acquire(name, holder.leaseId)).fencingToken;
    const obs = await f.leader.observe(name);
    const queued = () => obs.events.filter((e) => e.type === 'QUEUED' && e.leaseId === waiter.leaseId).length;
    const cancelled = () => obs.events.filter((e) => e.type === 'WAIT_CANCELLED' && e.leaseId === waiter.leaseId).length;
    // The waiting call re-queues when its place is cancelled under it (lockd's Acquire does so).
    const wait = f.follower.acquire(name, waiter.leaseId, { wait: true, timeoutMs: 30_000 });
    await waitFor('the waiter queued', () => (queued() === 1 ? true : undefined));
    expect(await f.leader.cancelWait(name, waiter.leaseId, { requestId: 'cw-1' })).to.include({ removed: true });
    await waitFor('the waiter queued again', () => (queued() === 2 ? true : undefined));
    // The late duplicate of the first CancelWait: answered as the first, applied no more.
    expect(await f.follower.cancelWait(name, waiter.leaseId, { requestId: 'cw-1' })).to.include({ removed: true });
    await f.leader.release(name, t);
    const granted = await wait;
    expect(granted).to.include({ acquired: true, holderLeaseId: waiter.leaseId });
    await waitFor('the grant observed', () => (obs.events.some((e) => e.type === 'ACQUIRED' && e.leaseId === waiter.leaseId) ? true : undefined));
    // Events are in log order: a second cancel would show before the grant.
    expect(cancelled()).to.equal(1);
    expect(queued()).to.equal(2);
    obs.cancel();
    await f.leader.release(name, granted.fencingToken);
  });

  it(`one lease holds and waits for at most ${MAX_LOCKS_PER_LEASE} locks together; other leases are unaffected`, async () => {
    const greedy = await f.keptLease(TTL_MS);
    const other = await f.keptLease(TTL_MS);
    for (let i = 0; i < MAX_LOCKS_PER_LEASE; i += 128) {
      await Promise.all(Array.from({ length: Math.min(128, MAX_LOCKS_PER_LEASE - i) }, (_, k) => f.leader.acquire(`many/${i + k}`, greedy.leaseId)));
    }
    const full = await statusOf(f.follower.acquire('many/one-more', greedy.leaseId));
    expect(full.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(full.details).to.equal(`lease ${greedy.leaseId} already holds or waits for ${MAX_LOCKS_PER_LEASE} locks (the limit per lease)`);
    expect(await f.leader.acquire('many/one-more', other.leaseId)).to.include({ acquired: true, holderLeaseId: other.leaseId });
    // Waiting counts too.
    expect((await statusOf(f.leader.acquire('many/one-more', greedy.leaseId, { wait: true, timeoutMs: 5000 }))).code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect((await f.leader.timeToLive(greedy.leaseId)).locks).to.have.length(MAX_LOCKS_PER_LEASE);
    await f.leader.revoke(greedy.leaseId);
    await f.leader.revoke(other.leaseId);
  });
});
