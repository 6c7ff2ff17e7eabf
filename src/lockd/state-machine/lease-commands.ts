// Grant, Revoke and Tick: the lease lifecycle on the replicated logical clock (docs/design.md §4). Pure.
// A lease enters `state.leases` and `state.expiry` together and leaves both together; its deadline
// changes only here, and always in both.

import type { ApplyContext } from './apply-context.js';
import type { GrantCommand, RevokeCommand, TickCommand } from './commands.js';
import type { LeaseRecord, MachineState } from './state.js';
import type { RenewedLease, ResultFor } from './results.js';
import { failure } from './results.js';
import { newLease } from './state.js';
import { endDelay, grantWaiters, releaseHolder, removeWaiter } from './lock-transitions.js';
import { check } from './invariant-error.js';
import { sortedNames } from './order.js';
import { leaseDeadline } from './deadline-margin.js';
import { ANONYMOUS } from './acl-table.js';
import { liveLease } from './lease-live.js';
import { dedupCharge, leaseQuotaFailure } from './quotas.js';

export function applyGrant(state: MachineState, ctx: ApplyContext, cmd: GrantCommand): ResultFor<'Grant'> {
  const rid = cmd.requestId || undefined;
  const principal = cmd.principal ?? ANONYMOUS;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec) {
      // Another principal's Grant: not its request. Refused alike whether that lease is live or
      // ended, so it learns nothing of the lease (an ended one's id would otherwise be handed out).
      if (rec.type === 'Grant' && rec.owner !== principal)
        return failure('Grant', 'PERMISSION_DENIED', `request_id ${rid} was already used by another principal; use a fresh request_id`);
      if (rec.type !== 'Grant' || rec.ttlMs !== cmd.ttlMs)
        return failure('Grant', 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`);
      return { type: 'Grant', ok: true, leaseId: rec.leaseId, ttlMs: rec.ttlMs, duplicate: true };
    }
  }
  if (state.leases.size >= state.maxLeases)
    return failure(
      'Grant',
      'RESOURCE_EXHAUSTED',
      `${state.maxLeases} leases exist (live, or expired with their cleanup pending: the next Ticks end those); revoke some or retry shortly`,
    );
  const over = leaseQuotaFailure(state, cmd);
  if (over) return over;
  const lease = newLease(ctx.index, cmd.ttlMs, leaseDeadline(state.now, cmd.ttlMs, cmd.marginMs, cmd.driftPpm ?? 0), principal);
  check(!state.leases.has(lease.id), 'lease-ids-unique', () => `lease ${lease.id} granted twice`);
  state.leases.set(lease.id, lease);
  state.usage.lease(lease.owner, 1);
  state.expiry.set(lease.id, lease.deadline);
  ctx.emit('LEASE_GRANTED', '', lease.id, 0);
  if (rid !== undefined) state.dedup.add(rid, { type: 'Grant', ttlMs: cmd.ttlMs, leaseId: lease.id, owner: principal }, dedupCharge(state, cmd));
  return { type: 'Grant', ok: true, leaseId: lease.id, ttlMs: cmd.ttlMs, duplicate: false };
}

export function applyRevoke(state: MachineState, ctx: ApplyContext, cmd: RevokeCommand): ResultFor<'Revoke'> {
  const lease = liveLease(state, cmd.leaseId);
  if (!lease) return failure('Revoke', 'NOT_FOUND', `lease ${cmd.leaseId} not found (expired, revoked or never granted)`);
  const releasedLocks = sortedNames(lease.held);
  endLeases(state, ctx, [lease], 'revoked');
  return { type: 'Revoke', ok: true, leaseId: lease.id, releasedLocks };
}

export function applyTick(state: MachineState, ctx: ApplyContext, cmd: TickCommand): ResultFor<'Tick'> {
  const before = state.now;
  state.now += cmd.elapsedMs;
  // Renew first: a keepalive that reached the leader during this interval counts, as long as the lease
  // was still live before this entry (its deadline not reached at the previous now). A lease already
  // past its deadline (its cleanup pending: lease-live.ts) is gone, like one ended.
  const renewed: RenewedLease[] = [];
  const gone: number[] = [];
  const seen = new Set<number>();
  for (const id of cmd.renewed) {
    if (seen.has(id)) continue;
    seen.add(id);
    const lease = state.leases.get(id);
    if (!lease || lease.deadline <= before) {
      gone.push(id);
      continue;
    }
    // Never shorten: a smaller margin than the Grant's (config change) must not pull a deadline in.
    const deadline = Math.max(lease.deadline, leaseDeadline(state.now, lease.ttlMs, cmd.marginMs, cmd.driftPpm ?? 0));
    if (deadline !== lease.deadline) {
      lease.deadline = deadline;
      state.expiry.set(id, deadline);
    }
    renewed.push({ leaseId: id, ttlMs: lease.ttlMs });
  }
  const expiring = dueBatch(state, cmd.expiryWork ?? Infinity);
  endLeases(state, ctx, expiring, 'expired');
  // Then the lock-delays this Tick reaches, from their own index: a delay set just now by
  // an expiry above ends later (now + delay > now). Its waiters are granted by this entry.
  for (const name of state.delays.due(state.now)) {
    const lock = state.locks.get(name);
    check(lock, 'delay-index', () => `the delay index lists ${name}, which does not exist`);
    endDelay(state, ctx, lock);
  }
  return { type: 'Tick', ok: true, now: state.now, renewed, gone, expired: expiring.map((l) => l.id) };
}

/**
 * The leases this Tick ends: the due ones in (deadline, id) order — the earliest deadline first, so
 * none waits behind later ones — up to the Tick's expiryWork (MAX_TICK_EXPIRY_WORK from a 0.2.0
 * leader; absent, all of them, as 0.1.0 did), at least one. They are ended
 * ascending by id (the order a Tick has always ended them in). The index hands them over without
 * visiting the leases that are not due.
 */
function dueBatch(state: MachineState, budget: number): LeaseRecord[] {
  const batch: LeaseRecord[] = [];
  let work = 0;
  for (const id of state.expiry.dueInOrder(state.now)) {
    const lease = state.leases.get(id);
    check(lease && lease.deadline <= state.now, 'expiry-index', () => `the expiry index lists lease ${id} as due at ${state.now}, deadline ${lease?.deadline}`);
    const cost = 1 + lease.held.size + lease.waiting.size;
    if (batch.length > 0 && work + cost > budget) break;
    batch.push(lease);
    work += cost;
  }
  return batch.sort((a, b) => a.id - b.id);
}

/**
 * End leases in one entry. All of them die first and all their waits are dropped before any lock is handed
 * on, so a lock is never handed to a waiter whose own lease ends in this same entry. A lost grant starts
 * its lock-delay (expiry and revoke alike: neither is a normal release). Locks whose queue lost a waiter
 * are then offered to the rest of their queue (its head may have been an exclusive ask among readers).
 */
function endLeases(state: MachineState, ctx: ApplyContext, leases: LeaseRecord[], how: 'expired' | 'revoked'): void {
  for (const lease of leases) {
    if (state.leases.delete(lease.id)) state.usage.lease(lease.owner, -1);
    state.expiry.delete(lease.id);
  }
  const shortened = new Set<string>();
  for (const lease of leases) {
    for (const name of sortedNames(lease.waiting)) {
      const lock = state.locks.get(name);
      check(lock, 'waits-on-held-locks', () => `lease ${lease.id} waits on ${name}, which is not held`);
      removeWaiter(state, ctx, lock, lease, 'WAITER_REMOVED');
      shortened.add(name);
    }
  }
  for (const lease of leases) {
    for (const name of sortedNames(lease.held)) {
      const lock = state.locks.get(name);
      check(lock, 'held-locks-exist', () => `lease ${lease.id} holds ${name}, which does not exist`);
      releaseHolder(state, ctx, lock, lease, how === 'expired' ? 'EXPIRED' : 'RELEASED', true);
    }
    ctx.emit(how === 'expired' ? 'LEASE_EXPIRED' : 'LEASE_REVOKED', '', lease.id, 0);
  }
  for (const name of sortedNames(shortened)) {
    const lock = state.locks.get(name);
    if (lock) grantWaiters(state, ctx, lock);
  }
}
