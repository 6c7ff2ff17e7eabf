// Acquire, Release and CancelWait (DESIGN §5): create-if-absent with fencing tokens, compare-and-delete,
// and a FIFO wait queue granted by the entry that frees the lock.

import type { ApplyContext } from './apply-context.js';
import type { AcquireCommand, CancelWaitCommand, ReleaseCommand } from './commands.js';
import type { AcquireRecord } from './dedup.js';
import type { LeaseRecord, MachineState } from './state.js';
import type { AcquireResult, ResultFor } from './results.js';
import { failure } from './results.js';
import { createLock, releaseHolder, removeWaiter, takeBackGrant } from './lock-transitions.js';
import { check } from './invariant.js';
import { MAX_LOCKS, MAX_LOCKS_PER_LEASE, MAX_WAITERS_PER_LOCK } from './limits.js';

type Outcome = Omit<AcquireResult, 'type' | 'ok' | 'duplicate'>;

export function applyAcquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand): ResultFor<'Acquire'> {
  const rid = cmd.requestId || undefined;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec) {
      if (rec.type !== 'Acquire' || rec.name !== cmd.name || rec.leaseId !== cmd.leaseId || rec.wait !== cmd.wait)
        return failure('Acquire', 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`);
      const first = replay(state, ctx, rid, rec);
      if (first) return { type: 'Acquire', ok: true, ...first, duplicate: true };
      // The first attempt's wait ended without a grant: apply the retry afresh.
      state.dedup.delete(rid);
    }
  }
  const r = acquire(state, ctx, cmd, rid);
  if (r.ok && rid !== undefined) {
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
 * The first outcome of a request id, or undefined if it was a wait that ended without a grant.
 * A replay that hands out the lease's current grant or queue place re-asserts it (lastAcquireIndex).
 */
function replay(state: MachineState, ctx: ApplyContext, rid: string, rec: AcquireRecord): Outcome | undefined {
  const { status, token, holderLeaseId, holderToken } = rec;
  const lock = state.locks.get(rec.name);
  if (status !== 'queued') {
    if (status === 'acquired' && lock?.holder === rec.leaseId && lock.token === token) lock.lastAcquireIndex = ctx.index;
    return { status, token, holderLeaseId, holderToken, position: 0 };
  }
  // Still open: grants settle the record (lock-transitions), but a second request id for the same
  // waiter is not tracked by the waiter, so answer from the current state.
  if (lock?.holder === rec.leaseId) {
    const acquired = { status: 'acquired' as const, token: lock.token, holderLeaseId: lock.holder, holderToken: lock.token };
    state.dedup.replace(rid, { ...rec, ...acquired });
    lock.lastAcquireIndex = ctx.index;
    return { ...acquired, position: 0 };
  }
  const i = lock ? lock.waiters.findIndex((w) => w.leaseId === rec.leaseId) : -1;
  if (lock && i >= 0) {
    if (rec.wait) lock.waiters[i].lastAcquireIndex = ctx.index;
    return { status: 'queued', token: 0, holderLeaseId: lock.holder, holderToken: lock.token, position: i + 1 };
  }
  return undefined;
}

function acquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand, rid: string | undefined): ResultFor<'Acquire'> {
  const ok = (o: Outcome): AcquireResult => ({ type: 'Acquire', ok: true, ...o, duplicate: false });
  // Grant-time validity (LESSONS 3): the lease must be live at this log position.
  const lease = state.leases.get(cmd.leaseId);
  if (!lease) return failure('Acquire', 'NOT_FOUND', `lease ${cmd.leaseId} not found (expired, revoked or never granted)`);
  const lock = state.locks.get(cmd.name);
  if (!lock) {
    if (leaseFull(lease)) return leaseFullFailure(lease);
    if (state.locks.size >= MAX_LOCKS) return failure('Acquire', 'RESOURCE_EXHAUSTED', `${MAX_LOCKS} locks are held`);
    const created = createLock(state, ctx, cmd.name, lease, rid);
    return ok({ status: 'acquired', token: created.token, holderLeaseId: lease.id, holderToken: created.token, position: 0 });
  }
  const held = { holderLeaseId: lock.holder, holderToken: lock.token };
  // Answering the lease's existing grant or queue place hands it to this call too: record that, so a
  // cleanup for an earlier, abandoned call leaves it alone. A try-lock answered 'queued' does not wait.
  if (lock.holder === lease.id) {
    lock.lastAcquireIndex = ctx.index;
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
  const lock = state.locks.get(cmd.name);
  const lease = state.leases.get(cmd.leaseId);
  if (!lock || !lease) return answer(false, 0, false);
  const holds = lock.holder === lease.id;
  const abandonedAt = cmd.abandonedAtIndex ?? 0;
  if (abandonedAt === 0) {
    const removed = removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED');
    return answer(removed, holds ? lock.token : 0, false);
  }
  // A cleanup: act only if no Acquire after the abandoned call re-asserted the lease's wait or grant.
  const last = holds ? lock.lastAcquireIndex : lock.waiters.find((w) => w.leaseId === lease.id)?.lastAcquireIndex;
  if (last === undefined || last > abandonedAt) return answer(false, 0, false);
  if (!holds) return answer(removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED'), 0, false);
  const token = lock.token;
  takeBackGrant(state, ctx, lock, lease);
  return answer(false, token, true);
}
