// Grant, Revoke and Tick: the lease lifecycle on the replicated logical clock (DESIGN §4).

import type { ApplyContext } from './apply-context.js';
import type { GrantCommand, RevokeCommand, TickCommand } from './commands.js';
import type { LeaseRecord, MachineState } from './state.js';
import type { RenewedLease, ResultFor } from './results.js';
import { failure } from './results.js';
import { newLease } from './state.js';
import { releaseHolder, removeWaiter } from './lock-transitions.js';
import { check } from './invariant.js';
import { sortedNames } from './order.js';
import { MAX_LEASES } from './limits.js';

export function applyGrant(state: MachineState, ctx: ApplyContext, cmd: GrantCommand): ResultFor<'Grant'> {
  const rid = cmd.requestId || undefined;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec) {
      if (rec.type !== 'Grant' || rec.ttlMs !== cmd.ttlMs)
        return failure('Grant', 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`);
      return { type: 'Grant', ok: true, leaseId: rec.leaseId, ttlMs: rec.ttlMs, duplicate: true };
    }
  }
  if (state.leases.size >= MAX_LEASES)
    return failure('Grant', 'RESOURCE_EXHAUSTED', `${MAX_LEASES} leases are live; revoke some first`);
  const lease = newLease(ctx.index, cmd.ttlMs, state.now + cmd.ttlMs + cmd.marginMs);
  check(!state.leases.has(lease.id), 'lease-ids-unique', () => `lease ${lease.id} granted twice`);
  state.leases.set(lease.id, lease);
  ctx.emit('LEASE_GRANTED', '', lease.id, 0);
  if (rid !== undefined) state.dedup.add(rid, { type: 'Grant', ttlMs: cmd.ttlMs, leaseId: lease.id });
  return { type: 'Grant', ok: true, leaseId: lease.id, ttlMs: cmd.ttlMs, duplicate: false };
}

export function applyRevoke(state: MachineState, ctx: ApplyContext, cmd: RevokeCommand): ResultFor<'Revoke'> {
  const lease = state.leases.get(cmd.leaseId);
  if (!lease) return failure('Revoke', 'NOT_FOUND', `lease ${cmd.leaseId} not found (expired, revoked or never granted)`);
  const releasedLocks = sortedNames(lease.held);
  endLeases(state, ctx, [lease], 'revoked');
  return { type: 'Revoke', ok: true, leaseId: lease.id, releasedLocks };
}

export function applyTick(state: MachineState, ctx: ApplyContext, cmd: TickCommand): ResultFor<'Tick'> {
  state.now += cmd.elapsedMs;
  // Renew first: a keepalive that reached the leader during this interval counts, as long as the lease
  // was still live before this entry (i.e. no earlier entry expired it).
  const renewed: RenewedLease[] = [];
  const gone: number[] = [];
  const seen = new Set<number>();
  for (const id of cmd.renewed) {
    if (seen.has(id)) continue;
    seen.add(id);
    const lease = state.leases.get(id);
    if (!lease) {
      gone.push(id);
      continue;
    }
    // Never shorten: a smaller margin than the Grant's (config change) must not pull a deadline in.
    lease.deadline = Math.max(lease.deadline, state.now + lease.ttlMs + cmd.marginMs);
    renewed.push({ leaseId: id, ttlMs: lease.ttlMs });
  }
  // O(leases) per tick; fine at the scale MAX_LEASES allows, and it keeps the state free of derived indexes.
  const expiring = [...state.leases.values()].filter((l) => l.deadline <= state.now).sort((a, b) => a.id - b.id);
  endLeases(state, ctx, expiring, 'expired');
  return { type: 'Tick', ok: true, now: state.now, renewed, gone, expired: expiring.map((l) => l.id) };
}

/**
 * End leases in one entry. All of them die first and all their waits are dropped before any lock is handed
 * on, so a lock is never handed to a waiter whose own lease ends in this same entry.
 */
function endLeases(state: MachineState, ctx: ApplyContext, leases: LeaseRecord[], how: 'expired' | 'revoked'): void {
  for (const lease of leases) state.leases.delete(lease.id);
  for (const lease of leases) {
    for (const name of sortedNames(lease.waiting)) {
      const lock = state.locks.get(name);
      check(lock, 'waits-on-held-locks', () => `lease ${lease.id} waits on ${name}, which is not held`);
      removeWaiter(state, ctx, lock, lease, 'WAITER_REMOVED');
    }
  }
  for (const lease of leases) {
    for (const name of sortedNames(lease.held)) {
      const lock = state.locks.get(name);
      check(lock, 'held-locks-exist', () => `lease ${lease.id} holds ${name}, which does not exist`);
      releaseHolder(state, ctx, lock, lease, how === 'expired' ? 'EXPIRED' : 'RELEASED');
    }
    ctx.emit(how === 'expired' ? 'LEASE_EXPIRED' : 'LEASE_REVOKED', '', lease.id, 0);
  }
}
