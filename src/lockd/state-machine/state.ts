// The replicated state, as plain tables. Every field here is covered by snapshots (snapshot-codec.ts);
// `held` and `waiting` on a lease are reverse indexes of the lock table, rebuilt on restore.

import { DedupTable } from './dedup.js';
import { FenceStore } from './fence-store.js';

export interface LeaseRecord {
  /** Index of the Grant entry. */
  readonly id: number;
  readonly ttlMs: number;
  /** Logical time at which the lease expires (expired by the first Tick with now >= deadline). */
  deadline: number;
  /** Names this lease holds. */
  readonly held: Set<string>;
  /** Names this lease is queued on. */
  readonly waiting: Set<string>;
}

export interface Waiter {
  readonly leaseId: number;
  /** Request id of the Acquire that queued it, so the dedup record can follow the grant. */
  readonly requestId?: string;
}

/** A lock exists exactly while it is held; waiters of a free lock are granted at once. */
export interface LockRecord {
  readonly name: string;
  holder: number;
  token: number;
  /** FIFO: waiters[0] is granted next. */
  readonly waiters: Waiter[];
}

export class MachineState {
  /** Logical clock (ms), advanced only by Tick entries. */
  now = 0;
  appliedIndex = 0;
  readonly leases = new Map<number, LeaseRecord>();
  readonly locks = new Map<string, LockRecord>();
  readonly fence = new FenceStore();
  readonly dedup = new DedupTable();
}

export function newLease(id: number, ttlMs: number, deadline: number): LeaseRecord {
  return { id, ttlMs, deadline, held: new Set(), waiting: new Set() };
}
