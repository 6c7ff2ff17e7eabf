// Acquire, Release and CancelWait (DESIGN §5): create-if-absent with fencing tokens, compare-and-delete,
// and a FIFO wait queue granted by the entry that frees the lock.

import type { ApplyContext } from './apply-context.js';
import type { AcquireCommand, CancelWaitCommand, ReleaseCommand } from './commands.js';
import type { AcquireRecord } from './dedup.js';
import type { LeaseRecord, LockRecord, MachineState } from './state.js';
import type { AcquireResult, Failure, ResultFor } from './results.js';
import { failure } from './results.js';
import { createLock, releaseHolder, removeWaiter, takeBackGrant } from './lock-transitions.js';
import { check } from './invariant-error.js';
import { MAX_LOCKS, MAX_LOCKS_PER_LEASE, MAX_WAITERS_PER_LOCK } from './limits.js';

type Outcome = Omit<AcquireResult, 'type' | 'ok' | 'duplicate'>;

export function applyAcquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand): ResultFor<'Acquire'> {
  const rid = cmd.requestId || undefined;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec) {
      if (rec.type !== 'Acquire' || rec.name !== cmd.name || rec.leaseId !== cmd.leaseId || rec.wait !== cmd.wait)
        return failure('Acquire', 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`);
      const now = replay(state, ctx, rid, rec);
      return now.ok ? { type: 'Acquire', ok: true, ...now.outcome, duplicate: true } : now.failure;
    }
  }
  const r = acquire(state, ctx, cmd, rid);
  if (r.ok && rid !== undefined) {
    check(r.status !== 'ended', 'acquire-status', () => `a first Acquire answered ${r.status}`);
    state.dedup.add(rid, {
      type: 'Acquire',
      name: cmd.name,
      leaseId: cmd.leaseId,
      wait: cmd.wait,
      status: r.status,
      token: r.token,
      holderLeaseId: r.holderLeaseId,
      holderToken: r.holderToken,
    });
  }
  return r;
}

/**
 * A retry answered with what is true now about its request (LESSONS 11), never a second grant:
 *  - granted, and the grant (name, token) still holds → acquired (re-asserted: see lastAcquireIndex);
 *  - granted, and it has ended → 'ended' with that token and the current holder; its lease gone → NOT_FOUND;
 *  - a wait still open (records of open waits are kept true: lock-transitions.ts) → queued, current place;
 *  - a try-lock that got nothing → not acquired, the holder now. It never takes or queues afresh: its
 *    first answer was delivered or not, and a late duplicate must not leave an orphan lock behind.
 * Worked example: A acquires rp with R1 (token 5), releases it; B acquires rp (token 7); A retries R1
 * → ended, endedToken 5, holder B / 7.
 */
function replay(state: MachineState, ctx: ApplyContext, rid: string, rec: AcquireRecord): { ok: true; outcome: Outcome } | { ok: false; failure: Failure } {
  const lock = state.locks.get(rec.name);
  const lease = state.leases.get(rec.leaseId);
  if (!lease) {
    const ended = rec.status === 'acquired' ? `; the grant of ${rec.name} (token ${rec.token}) made for request_id ${rid} ended with it` : '';
    return { ok: false, failure: failure('Acquire', 'NOT_FOUND', `lease ${rec.leaseId} not found (expired, revoked or never granted)${ended}`) };
  }
  const now = { holderLeaseId: lock?.holder ?? 0, holderToken: lock?.token ?? 0, position: 0, endedToken: 0 };
  const answer = (o: Partial<Outcome> & Pick<Outcome, 'status'>) => ({ ok: true as const, outcome: { token: 0, ...now, ...o } });
  if (rec.status === 'acquired') {
    if (lock?.holder !== rec.leaseId || lock.token !== rec.token) return answer({ status: 'ended', endedToken: rec.token });
    reassertGrant(lock, ctx, rec.wait);
    return answer({ status: 'acquired', token: lock.token });
  }
  const i = lock ? lock.waiters.findIndex((w) => w.leaseId === rec.leaseId) : -1;
  if (rec.wait) {
    check(lock && i >= 0, 'dedup-open-waits', () => `request ${rid} is recorded queued for ${rec.name}, but lease ${rec.leaseId} does not wait for it`);
    lock.waiters[i].lastAcquireIndex = ctx.index;
    return answer({ status: 'queued', position: i + 1 });
  }
  return i >= 0 ? answer({ status: 'queued', position: i + 1 }) : answer({ status: 'held' });
}

/** Answering the lease's grant hands it to this call too: a cleanup for an earlier, abandoned call must leave it alone. */
function reassertGrant(lock: LockRecord, ctx: ApplyContext, wait: boolean): void {
  lock.lastAcquireIndex = ctx.index;
  lock.lastAcquireWait = wait;
}

function acquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand, rid: string | undefined): ResultFor<'Acquire'> {
  const ok = (o: Omit<Outcome, 'endedToken'>): AcquireResult => ({ type: 'Acquire', ok: true, ...o, endedToken: 0, duplicate: false });
  // Grant-time validity (LESSONS 3): the lease must be live at this log position.
  const lease = state.leases.get(cmd.leaseId);
  if (!lease) return failure('Acquire', 'NOT_FOUND', `lease ${cmd.leaseId} not found (expired, revoked or never granted)`);
  const lock = state.locks.get(cmd.name);
  if (!lock) {
    if (leaseFull(lease)) return leaseFullFailure(lease);
    if (state.locks.size >= MAX_LOCKS) return failure('Acquire', 'RESOURCE_EXHAUSTED', `${MAX_LOCKS} locks are held`);
    const created = createLock(state, ctx, cmd.name, lease, cmd.wait, rid);
    return ok({ status: 'acquired', token: created.token, holderLeaseId: lease.id, holderToken: created.token, position: 0 });
  }
  const held = { holderLeaseId: lock.holder, holderToken: lock.token };
  // Answering the lease's existing grant or queue place hands it to this call too: record that, so a
  // cleanup for an earlier, abandoned call leaves it alone. A try-lock answered 'queued' does not wait.
  if (lock.holder === lease.id) {
    reassertGrant(lock, ctx, cmd.wait);
    return ok({ status: 'acquired', token: lock.token, ...held, position: 0 });
  }
  const i = lock.waiters.findIndex((w) => w.leaseId === lease.id);
  if (i >= 0) {
    if (cmd.wait) lock.waiters[i].lastAcquireIndex = ctx.index;
    return ok({ status: 'queued', token: 0, ...held, position: i + 1 });
  }
  if (!cmd.wait) return ok({ status: 'held', token: 0, ...held, position: 0 });
  if (leaseFull(lease)) return leaseFullFailure(lease);
  if (lock.waiters.length >= MAX_WAITERS_PER_LOCK)
    return failure('Acquire', 'RESOURCE_EXHAUSTED', `${cmd.name} already has ${MAX_WAITERS_PER_LOCK} waiters`);
  lock.waiters.push(rid === undefined ? { leaseId: lease.id, lastAcquireIndex: ctx.index } : { leaseId: lease.id, requestId: rid, lastAcquireIndex: ctx.index });
  lease.waiting.add(cmd.name);
  ctx.emit('QUEUED', cmd.name, lease.id, 0);
  return ok({ status: 'queued', token: 0, ...held, position: lock.waiters.length });
}

/** Per-lease quota: the locks a lease holds and waits for (each wait may become a hold). */
const leaseFull = (lease: LeaseRecord): boolean => lease.held.size + lease.waiting.size >= MAX_LOCKS_PER_LEASE;
const leaseFullFailure = (lease: LeaseRecord) =>
  failure('Acquire', 'RESOURCE_EXHAUSTED', `lease ${lease.id} already holds or waits for ${MAX_LOCKS_PER_LEASE} locks (the limit per lease)`);

export function applyRelease(state: MachineState, ctx: ApplyContext, cmd: ReleaseCommand): ResultFor<'Release'> {
  const lock = state.locks.get(cmd.name);
  if (!lock) return failure('Release', 'NOT_FOUND', `lock ${cmd.name} is not held`);
  if (lock.token !== cmd.token) return { type: 'Release', ok: true, released: false };
  const holder = state.leases.get(lock.holder);
  check(holder, 'holder-lease-live', () => `${cmd.name} is held by lease ${lock.holder}, which is not live`);
  releaseHolder(state, ctx, lock, holder, 'RELEASED');
  return { type: 'Release', ok: true, released: true };
}

export function applyCancelWait(state: MachineState, ctx: ApplyContext, cmd: CancelWaitCommand): ResultFor<'CancelWait'> {
  const answer = (removed: boolean, heldToken: number, released: boolean) => ({ type: 'CancelWait' as const, ok: true as const, removed, heldToken, released });
  const abandonedAt = cmd.abandonedAtIndex ?? 0;
  if (abandonedAt >= ctx.index)
    return failure('CancelWait', 'INVALID_ARGUMENT', `abandoned_at_index ${abandonedAt} names no earlier log entry (this is entry ${ctx.index})`);
  const lock = state.locks.get(cmd.name);
  const lease = state.leases.get(cmd.leaseId);
  if (!lock || !lease) return answer(false, 0, false);
  const holds = lock.holder === lease.id;
  if (abandonedAt === 0) {
    const removed = removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED');
    return answer(removed, holds ? lock.token : 0, false);
  }
  // A cleanup (LESSONS 13) proves it is one by naming exactly the Acquire entry the lease's wait or
  // grant answers last — a waiting Acquire, the only kind a node abandons. Any other index (an
  // earlier call's, a later one's, a try-lock's, one past every Acquire) changes nothing: the wait or
  // grant belongs to a call that was not abandoned. E.g. L waits by the Acquire at 12 and is granted
  // at 15: CancelWait{abandonedAtIndex: 12} releases token 15; 13, 14 or 10^12 release nothing.
  const w = holds ? undefined : lock.waiters.find((x) => x.leaseId === lease.id);
  const mine = holds ? lock.lastAcquireWait && lock.lastAcquireIndex === abandonedAt : w?.lastAcquireIndex === abandonedAt;
  if (!mine) return answer(false, 0, false);
  if (!holds) return answer(removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED'), 0, false);
  const token = lock.token;
  takeBackGrant(state, ctx, lock, lease);
  return answer(false, token, true);
}
