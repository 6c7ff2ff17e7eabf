// Which leases are live (docs/design.md §4, "bounded work per entry"). A Tick ends at most
// MAX_TICK_EXPIRY_WORK of the leases it finds due; the others stay in `state.leases` with their
// deadline passed — their cleanup is pending — until a later Tick ends them. Such a lease is dead for
// its own use: an Acquire, a renewal, a Revoke, a write or release through its grant, a hand-off to
// it, TimeToLive and List all look through `isLive`, never at mere presence in the table. Its grants
// stand (Inspect shows them) until its cleanup or a reap of the lock ends them, with their events. The pending set is derivable from the
// snapshot (the leases whose deadline is <= now), so it needs no state of its own. Pure.

import type { LeaseRecord, MachineState } from './state.js';

/** Live: in the table and its deadline not reached on the replicated clock. */
export function isLive(state: MachineState, lease: LeaseRecord | undefined): lease is LeaseRecord {
  return lease !== undefined && lease.deadline > state.now;
}

/** The lease if it is live; undefined if unknown, ended, or past its deadline with cleanup pending. */
export function liveLease(state: MachineState, id: number): LeaseRecord | undefined {
  const lease = state.leases.get(id);
  return isLive(state, lease) ? lease : undefined;
}

/** Whether lease `id` is live (undefined ids and ended leases are not). */
export function leaseIsLive(state: MachineState, id: number): boolean {
  return isLive(state, state.leases.get(id));
}
