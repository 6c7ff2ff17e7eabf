// The replicated state, as plain tables. Every field here is covered by snapshots (snapshot-codec.ts);
// `held` and `waiting` on a lease and `grants` are reverse indexes of the lock table, and `expiry`
// orders the leases by deadline: derived, rebuilt on restore.

import { ExpiryIndex } from '../lease/expiry-index.js';
import { AclTable } from './acl-table.js';
import { DedupTable } from './dedup.js';
import { FenceStore } from './fence-store.js';
import { GrantIndex } from './grant-index.js';

export interface LeaseRecord {
  /** Index of the Grant entry. */
  readonly id: number;
  readonly ttlMs: number;
  /** The principal that granted it: only it (or an admin) may use it (authorize.ts). */
  readonly owner: string;
  /**
   * Logical time at which the lease expires (expired by the first Tick with now >= deadline).
   * Indexed in MachineState.expiry: change it only through lease/lease-commands.ts, which keeps both in step.
   */
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
  /**
   * Index of the latest Acquire (wait=true) by this lease for this name: the one that queued it, or
   * a later one (a retry) answered 'queued'. A CancelWait for an abandoned call older than this
   * changes nothing: a later call still waits (lock-commands.ts applyCancelWait).
   */
  lastAcquireIndex: number;
}

/** A lock exists exactly while it is held; waiters of a free lock are granted at once. */
export interface LockRecord {
  readonly name: string;
  holder: number;
  token: number;
  /**
   * Index of the latest Acquire by the holder for this name that this grant answers: the waiter's
   * lastAcquireIndex for a grant from the queue, the creating entry for a free name, or any later
   * Acquire by the holder answered 'acquired' (a try-lock, a retry). See Waiter.lastAcquireIndex.
   */
  lastAcquireIndex: number;
  /**
   * Whether the Acquire at lastAcquireIndex was a waiting one (wait=true). Only a waiting call is
   * ever abandoned, so a cleanup naming a try-lock's entry is not a cleanup and takes nothing back.
   */
  lastAcquireWait: boolean;
  /** Request id of the Acquire the grant was made for (creating or queued), so taking it back forgets its dedup record. */
  grantRequestId?: string;
  /** FIFO: waiters[0] is granted next. */
  readonly waiters: Waiter[];
}

export class MachineState {
  /** Logical clock (ms), advanced only by Tick entries. */
  now = 0;
  appliedIndex = 0;
  readonly leases = new Map<number, LeaseRecord>();
  /** Every lease of `leases` by deadline, so a Tick visits only the leases it expires. */
  readonly expiry = new ExpiryIndex();
  readonly locks = new Map<string, LockRecord>();
  /** Lock names by their grant's token (grant-index.ts). */
  readonly grants = new GrantIndex();
  readonly fence = new FenceStore();
  readonly dedup = new DedupTable();
  /** Access rules (acl-table.ts). */
  readonly acl = new AclTable();
}

export function newLease(id: number, ttlMs: number, deadline: number, owner: string): LeaseRecord {
  return { id, ttlMs, owner, deadline, held: new Set(), waiting: new Set() };
}
