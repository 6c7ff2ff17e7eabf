// The ways a lock changes hands, shared by Acquire/Release/CancelWait and by lease expiry/revoke.
// Each asserts the lock invariants it could break.

import type { ApplyContext } from './apply-context.js';
import type { LeaseRecord, LockRecord, MachineState } from './state.js';
import { check } from './invariant.js';

/**
 * Make `lease` the holder of `lock` with token = this entry's index, for the Acquire at
 * `lastAcquireIndex` (request id `requestId`).
 */
function grant(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  lastAcquireIndex: number,
  requestId: string | undefined,
): void {
  check(state.leases.get(lease.id) === lease, 'holder-lease-live', () => `lease ${lease.id} granted ${lock.name} but is not live`);
  check(ctx.index > lock.token, 'tokens-increase', () => `${lock.name}: token ${ctx.index} after ${lock.token}`);
  if (lock.token !== 0) state.grants.remove(lock.token, lock.name); // handed on: the old grant ends here
  state.grants.add(ctx.index, lock.name);
  lock.holder = lease.id;
  lock.token = ctx.index;
  lock.lastAcquireIndex = lastAcquireIndex;
  if (requestId === undefined) delete lock.grantRequestId;
  else lock.grantRequestId = requestId;
  lease.held.add(lock.name);
  ctx.emit('ACQUIRED', lock.name, lease.id, lock.token);
}

/** Create the lock for a free name, held by `lease`: granted by this very Acquire entry. */
export function createLock(state: MachineState, ctx: ApplyContext, name: string, lease: LeaseRecord, requestId: string | undefined): LockRecord {
  check(!state.locks.has(name), 'one-holder', () => `${name} created while already held`);
  const lock: LockRecord = { name, holder: 0, token: 0, lastAcquireIndex: 0, waiters: [] };
  state.locks.set(name, lock);
  grant(state, ctx, lock, lease, ctx.index, requestId);
  return lock;
}

/**
 * The holder lets go (`RELEASED`) or loses it (`EXPIRED`); the first waiter is granted in this same entry,
 * else the lock ceases to exist. `holder` is the holder's lease record (possibly already removed from the
 * table when its lease is ending). Waiters must all be live here: callers ending leases drop their waits first.
 */
export function releaseHolder(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  holder: LeaseRecord,
  cause: 'RELEASED' | 'EXPIRED',
): void {
  check(lock.holder === holder.id, 'one-holder', () => `${lock.name}: releasing lease ${holder.id} but holder is ${lock.holder}`);
  holder.held.delete(lock.name);
  ctx.emit(cause, lock.name, holder.id, lock.token);
  const next = lock.waiters.shift();
  if (!next) {
    state.locks.delete(lock.name);
    state.grants.remove(lock.token, lock.name);
    return;
  }
  const lease = state.leases.get(next.leaseId);
  check(lease, 'waiters-live', () => `${lock.name}: next waiter's lease ${next.leaseId} is not live`);
  lease.waiting.delete(lock.name);
  grant(state, ctx, lock, lease, next.lastAcquireIndex, next.requestId);
  if (next.requestId !== undefined) settleQueuedRecord(state, next.requestId, lock);
}

/**
 * Take back a grant no call was handed (CancelWait of an abandoned call): forget the granting
 * Acquire's settled dedup record, so a late retry of it is applied afresh instead of answering a
 * token it no longer holds, then release as the holder would (hand-off to the next waiter).
 */
export function takeBackGrant(state: MachineState, ctx: ApplyContext, lock: LockRecord, holder: LeaseRecord): void {
  const rid = lock.grantRequestId;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec?.type === 'Acquire' && rec.status === 'acquired' && rec.name === lock.name && rec.leaseId === holder.id && rec.token === lock.token)
      state.dedup.delete(rid);
  }
  releaseHolder(state, ctx, lock, holder, 'RELEASED');
}

/** The Acquire that queued this waiter now has its final answer: freeze it in the dedup table. */
function settleQueuedRecord(state: MachineState, requestId: string, lock: LockRecord): void {
  const rec = state.dedup.get(requestId);
  if (rec?.type !== 'Acquire' || rec.name !== lock.name || rec.leaseId !== lock.holder || rec.status !== 'queued') return;
  state.dedup.replace(requestId, {
    ...rec,
    status: 'acquired',
    token: lock.token,
    holderLeaseId: lock.holder,
    holderToken: lock.token,
  });
}

/** Take `leaseId` out of the queue. Returns false if it was not waiting. */
export function removeWaiter(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  cause: 'WAITER_REMOVED' | 'WAIT_CANCELLED',
): boolean {
  const i = lock.waiters.findIndex((w) => w.leaseId === lease.id);
  if (i < 0) return false;
  const [w] = lock.waiters.splice(i, 1);
  lease.waiting.delete(lock.name);
  ctx.emit(cause, lock.name, lease.id, 0);
  // The queued Acquire's outcome is no longer "queued": forget it, so a retry is applied afresh.
  if (w.requestId !== undefined) {
    const rec = state.dedup.get(w.requestId);
    if (rec?.type === 'Acquire' && rec.status === 'queued' && rec.name === lock.name && rec.leaseId === lease.id)
      state.dedup.delete(w.requestId);
  }
  return true;
}
