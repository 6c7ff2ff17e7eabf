// The ways a lock changes hands, shared by Acquire/Release/CancelWait/SetPermits and by lease
// expiry/revoke and lock-delay ends. Each asserts the lock invariants it could break.
//
// The recipes live here as one rule, `fits`: a name has `permits` exclusive holders at most
// (1 = mutex, N = semaphore), or any number (up to MAX_PERMITS) of shared ones and no exclusive one
// (read-write lock), and nobody is granted while a lock-delay runs. Waiters are granted strictly in
// FIFO order while the head fits: a waiting exclusive acquirer blocks every later shared one.

import type { ApplyContext } from './apply-context.js';
import type { AcquireRecord } from './dedup.js';
import type { Ask, Holder, LeaseRecord, LockRecord, MachineState } from './state.js';
import { check } from './invariant-error.js';
import { MAX_PERMITS } from './limits.js';
import { isLive } from './lease-live.js';

/** Whether a grant for `ask` may be made now (ignoring the queue: callers grant only its head, or with it empty). */
export function fits(lock: LockRecord, ask: Ask): boolean {
  if (lock.delayUntil !== 0) return false;
  if (ask.shared) return lock.holders.length < MAX_PERMITS && lock.holders.every((h) => h.shared);
  return lock.holders.length < lock.permits && lock.holders.every((h) => !h.shared);
}

export function holderOf(lock: LockRecord | undefined, leaseId: number): Holder | undefined {
  return lock?.holders.find((h) => h.leaseId === leaseId);
}

/** The holder the single-holder fields (mutex view) report: the oldest grant, or none. */
export function firstHolder(lock: LockRecord | undefined): { holderLeaseId: number; holderToken: number } {
  const h = lock?.holders[0];
  return { holderLeaseId: h?.leaseId ?? 0, holderToken: h?.token ?? 0 };
}

/**
 * Make `lease` a holder of `lock` with a token of its own (this entry's index and its ordinal among this
 * entry's grants of `lock`: token.ts), for the Acquire at `acquire.index`
 * (a waiting one if `wait`; request id `requestId`). `fromQueue`: the grantee was the queue's head.
 */
function grant(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  ask: Ask,
  acquire: { readonly index: number; readonly wait: boolean; readonly fromQueue: boolean; readonly requestId?: string },
  requestId: string | undefined,
): Holder {
  // Never to a lease past its deadline, even one whose cleanup is pending (lease-live.ts).
  check(
    state.leases.get(lease.id) === lease && isLive(state, lease),
    'holder-lease-live',
    () => `lease ${lease.id} granted ${lock.name} but is not live (deadline ${lease.deadline}, now ${state.now})`,
  );
  check(
    lock.delayUntil === 0,
    'no-grant-in-delay',
    () => `${lock.name} granted to lease ${lease.id} during its lock-delay (until ${lock.delayUntil}, now ${state.now})`,
  );
  check(
    fits(lock, ask),
    'holders-fit',
    () => `${lock.name}: ${ask.shared ? 'shared' : 'exclusive'} grant beside ${describeHolders(lock)} (permits ${lock.permits})`,
  );
  check(acquire.fromQueue || lock.waiters.length === 0, 'fifo', () => `${lock.name} granted to lease ${lease.id} ahead of ${lock.waiters.length} waiters`);
  check(!holderOf(lock, lease.id), 'one-grant-per-lease', () => `${lock.name}: lease ${lease.id} granted twice`);
  const token = ctx.nextToken(lock.name);
  const last = lock.holders.at(-1);
  check(!last || token > last.token, 'tokens-increase', () => `${lock.name}: token ${token} after ${last?.token}`);
  const h: Holder = {
    leaseId: lease.id,
    token,
    shared: ask.shared,
    lockDelayMs: ask.lockDelayMs,
    value: ask.value,
    lastAcquireIndex: acquire.index,
    lastAcquireWait: acquire.wait,
    ...(requestId === undefined ? {} : { grantRequestId: requestId }),
    ...(acquire.requestId === undefined ? {} : { lastAcquireRequestId: acquire.requestId }),
  };
  lock.holders.push(h);
  state.grants.add(h.token, lock.name);
  if (!lease.held.has(lock.name)) state.usage.lock(lease.owner, 1);
  state.usage.value(lease.owner, h.value, 1);
  lease.held.add(lock.name);
  ctx.emit('ACQUIRED', lock.name, lease.id, h.token);
  return h;
}

function describeHolders(lock: LockRecord): string {
  return lock.holders.length === 0 ? 'no holder' : lock.holders.map((h) => `${h.leaseId}${h.shared ? ' (shared)' : ''}`).join(', ');
}

/** Create the lock for a free name, held by `lease`: granted by this very Acquire entry (waiting or not). */
export function createLock(
  state: MachineState,
  ctx: ApplyContext,
  name: string,
  permits: number,
  lease: LeaseRecord,
  ask: Ask,
  wait: boolean,
  requestId: string | undefined,
  election: boolean,
): Holder {
  check(!state.locks.has(name), 'lock-table', () => `${name} created while it exists`);
  const lock: LockRecord = { name, permits, holders: [], waiters: [], delayUntil: 0, election };
  state.locks.set(name, lock);
  return grant(state, ctx, lock, lease, ask, { index: ctx.index, wait, fromQueue: false, requestId }, requestId);
}

/** A grant of a name that exists, to a lease that neither holds nor waits (callers check `fits` and an empty queue). */
export function grantNow(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  ask: Ask,
  wait: boolean,
  requestId: string | undefined,
): Holder {
  return grant(state, ctx, lock, lease, ask, { index: ctx.index, wait, fromQueue: false, requestId }, requestId);
}

/**
 * The holder lets go (`RELEASED`) or loses it (`EXPIRED`); waiters that now fit are granted in this same
 * entry, else a lock with no holder and no lock-delay ceases to exist. `holder` is the holder's lease
 * record (possibly already removed from the table when its lease is ending). `lostLease`: the lease
 * expired or was revoked, so the grant's lock-delay (if any) starts now — not on a normal release.
 * Waiters must all be live here: callers ending leases drop their waits first.
 */
export function releaseHolder(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  holder: LeaseRecord,
  cause: 'RELEASED' | 'EXPIRED',
  lostLease = false,
): void {
  const i = lock.holders.findIndex((h) => h.leaseId === holder.id);
  check(i >= 0, 'lease-index', () => `${lock.name}: releasing lease ${holder.id} but the holders are ${describeHolders(lock)}`);
  const [h] = lock.holders.splice(i, 1);
  state.grants.remove(h.token, lock.name);
  if (holder.held.delete(lock.name)) state.usage.lock(holder.owner, -1);
  state.usage.value(holder.owner, h.value, -1);
  ctx.emit(cause, lock.name, holder.id, h.token);
  if (lostLease && h.lockDelayMs > 0) {
    lock.delayUntil = Math.max(lock.delayUntil, state.now + h.lockDelayMs);
    state.delays.set(lock.name, lock.delayUntil);
  }
  grantWaiters(state, ctx, lock);
}

/** A lock-delay is over (the Tick that reached its end): grant the waiters that fit, or let the lock go. */
export function endDelay(state: MachineState, ctx: ApplyContext, lock: LockRecord): void {
  check(lock.delayUntil !== 0 && lock.delayUntil <= state.now, 'delay-index', () => `${lock.name}: delay until ${lock.delayUntil} ended at ${state.now}`);
  lock.delayUntil = 0;
  state.delays.delete(lock.name);
  grantWaiters(state, ctx, lock);
}

/**
 * Grant the queue's head while it fits (FIFO: the first that does not fit stops everyone behind it),
 * then drop the lock if nothing holds or delays it (its queue is then empty: with no holder and no
 * delay every ask fits). Worked example: shared holders A, B; queue X (exclusive), C (shared). C would
 * fit beside A and B but waits behind X; when A and B release, X is granted alone, and C after X.
 */
export function grantWaiters(state: MachineState, ctx: ApplyContext, lock: LockRecord): void {
  while (lock.waiters.length > 0) {
    const head = state.leases.get(lock.waiters[0].leaseId);
    check(head, 'waiters-live', () => `${lock.name}: next waiter's lease ${lock.waiters[0].leaseId} is not live`);
    // A waiter past its deadline whose cleanup is pending is dead: it leaves the queue, never granted.
    if (!isLive(state, head)) {
      removeWaiter(state, ctx, lock, head, 'WAITER_REMOVED');
      continue;
    }
    if (!fits(lock, lock.waiters[0])) break;
    const next = lock.waiters.shift()!;
    const lease = head;
    if (lease.waiting.delete(lock.name)) state.usage.lock(lease.owner, -1);
    state.usage.value(lease.owner, next.value, -1);
    const h = grant(
      state,
      ctx,
      lock,
      lease,
      next,
      { index: next.lastAcquireIndex, wait: true, fromQueue: true, requestId: next.lastAcquireRequestId },
      next.requestId,
    );
    settleWaitRecords(state, lock.name, h);
  }
  if (lock.holders.length === 0 && lock.delayUntil === 0) {
    check(lock.waiters.length === 0, 'fifo', () => `${lock.name} is free with ${lock.waiters.length} waiters`);
    state.locks.delete(lock.name);
  }
}

/**
 * Take back a grant no call was handed (CancelWait of an abandoned call): forget the granting
 * Acquire's settled dedup record, so a late retry of it is applied afresh instead of answering a
 * token it no longer holds, then release as the holder would (hand-off to the next waiters).
 */
export function takeBackGrant(state: MachineState, ctx: ApplyContext, lock: LockRecord, holder: LeaseRecord): void {
  const h = holderOf(lock, holder.id);
  const rid = h?.grantRequestId;
  if (h && rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec?.type === 'Acquire' && rec.status === 'acquired' && rec.name === lock.name && rec.leaseId === holder.id && rec.token === h.token)
      state.dedup.delete(rid);
  }
  releaseHolder(state, ctx, lock, holder, 'RELEASED');
}

/**
 * The waiter was just granted: every request answered 'queued' by its wait (the one that queued it,
 * retries under other ids, other calls) now has its final answer, this grant. Freezing them all is
 * what lets a later retry tell "granted, and since ended" from "never granted" (no second grant).
 */
function settleWaitRecords(state: MachineState, name: string, h: Holder): void {
  for (const rid of state.dedup.waitsOf(h.leaseId, name)) {
    const rec = state.dedup.get(rid) as AcquireRecord;
    state.dedup.replace(rid, { ...rec, status: 'acquired', token: h.token, holderLeaseId: h.leaseId, holderToken: h.token });
  }
}

/**
 * Take `leaseId` out of the queue. Returns false if it was not waiting. Grants nothing: the caller
 * calls grantWaiters once every wait it ends is gone (a waiter behind may fit now: the head was an
 * exclusive ask among shared holders), so that no lease ending in this entry is granted.
 */
export function removeWaiter(
  state: MachineState,
  ctx: ApplyContext,
  lock: LockRecord,
  lease: LeaseRecord,
  cause: 'WAITER_REMOVED' | 'WAIT_CANCELLED',
): boolean {
  const i = lock.waiters.findIndex((w) => w.leaseId === lease.id);
  if (i < 0) return false;
  const [gone] = lock.waiters.splice(i, 1);
  if (lease.waiting.delete(lock.name)) state.usage.lock(lease.owner, -1);
  state.usage.value(lease.owner, gone.value, -1);
  ctx.emit(cause, lock.name, lease.id, 0);
  // The wait ended without a grant: its requests' outcome is no longer "queued" and took nothing, so
  // forget them and a retry is applied afresh (a waiting retry is a waiting call: it has its own cleanup).
  for (const rid of state.dedup.waitsOf(lease.id, lock.name)) state.dedup.delete(rid);
  return true;
}

/**
 * Before a command reads lock `name`: the grants and queue places of its leases that are past their
 * deadline with cleanup pending (lease-live.ts) end now, as their expiry would have ended them (a
 * lost grant starts its lock-delay, from now), and the waiters that then fit are granted. So every
 * command sees a lock whose holders and waiters are live, at a cost bounded by one lock's holders
 * and queue (MAX_PERMITS + MAX_WAITERS_PER_LOCK), never the backlog. The leases themselves end
 * later, at their Tick. The views showed those grants until now: this entry's events say they ended.
 */
export function reapLock(state: MachineState, ctx: ApplyContext, name: string): void {
  const lock = state.locks.get(name);
  if (!lock) return;
  const dead = (leaseId: number) => !isLive(state, state.leases.get(leaseId));
  const waiters = lock.waiters.filter((w) => dead(w.leaseId));
  const holders = lock.holders.filter((h) => dead(h.leaseId));
  if (waiters.length === 0 && holders.length === 0) return;
  for (const w of waiters) removeWaiter(state, ctx, lock, state.leases.get(w.leaseId)!, 'WAITER_REMOVED');
  for (const h of holders) {
    if (state.locks.get(name) !== lock) break; // released to nobody: the lock is gone
    releaseHolder(state, ctx, lock, state.leases.get(h.leaseId)!, 'EXPIRED', true);
  }
  if (state.locks.get(name) === lock) grantWaiters(state, ctx, lock);
}
