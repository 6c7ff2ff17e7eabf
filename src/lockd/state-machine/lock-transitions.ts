// The ways a lock changes hands, shared by Acquire/Release/CancelWait and by lease expiry/revoke.
// Each asserts the lock invariants it could break.

import type { ApplyContext } from './apply-context.js';
import type { AcquireRecord } from './dedup.js';
import type { LeaseRecord, LockRecord, MachineState } from './state.js';
import { check } from './invariant-error.js';

/**
 * Make `lease` the holder of `lock` with token = this entry's index, for the Acquire at
 * `lastAcquireIndex` (a waiting one if `wait`; request id `requestId`).
 */
function grant(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  acquire: { readonly index: number; readonly wait: boolean },
  requestId: string | undefined,
): void {
  check(state.leases.get(lease.id) === lease, 'holder-lease-live', () => `lease ${lease.id} granted ${lock.name} but is not live`);
  check(ctx.index > lock.token, 'tokens-increase', () => `${lock.name}: token ${ctx.index} after ${lock.token}`);
  if (lock.token !== 0) state.grants.remove(lock.token, lock.name); // handed on: the old grant ends here
  state.grants.add(ctx.index, lock.name);
  lock.holder = lease.id;
  lock.token = ctx.index;
  lock.lastAcquireIndex = acquire.index;
  lock.lastAcquireWait = acquire.wait;
  if (requestId === undefined) delete lock.grantRequestId;
  else lock.grantRequestId = requestId;
  lease.held.add(lock.name);
  ctx.emit('ACQUIRED', lock.name, lease.id, lock.token);
}

/** Create the lock for a free name, held by `lease`: granted by this very Acquire entry (waiting or not). */
export function createLock(state: MachineState, ctx: ApplyContext, name: string, lease: LeaseRecord, wait: boolean, requestId: string | undefined): LockRecord {
  check(!state.locks.has(name), 'one-holder', () => `${name} created while already held`);
  const lock: LockRecord = { name, holder: 0, token: 0, lastAcquireIndex: 0, lastAcquireWait: wait, waiters: [] };
  state.locks.set(name, lock);
  grant(state, ctx, lock, lease, { index: ctx.index, wait }, requestId);
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
  grant(state, ctx, lock, lease, { index: next.lastAcquireIndex, wait: true }, next.requestId);
  settleWaitRecords(state, lock);
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

/**
 * The waiter was just granted: every request answered 'queued' by its wait (the one that queued it,
 * retries under other ids, other calls) now has its final answer, this grant. Freezing them all is
 * what lets a later retry tell "granted, and since ended" from "never granted" (no second grant).
 */
function settleWaitRecords(state: MachineState, lock: LockRecord): void {
  for (const rid of state.dedup.waitsOf(lock.holder, lock.name)) {
    const rec = state.dedup.get(rid) as AcquireRecord;
    state.dedup.replace(rid, { ...rec, status: 'acquired', token: lock.token, holderLeaseId: lock.holder, holderToken: lock.token });
  }
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
  lock.waiters.splice(i, 1);
  lease.waiting.delete(lock.name);
  ctx.emit(cause, lock.name, lease.id, 0);
  // The wait ended without a grant: its requests' outcome is no longer "queued" and took nothing, so
  // forget them and a retry is applied afresh (a waiting retry is a waiting call: it has its own cleanup).
  for (const rid of state.dedup.waitsOf(lease.id, lock.name)) state.dedup.delete(rid);
  return true;
}
