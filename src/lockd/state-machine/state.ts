// The replicated state, as plain tables. Every field here is covered by snapshots (snapshot-codec.ts);
// `held` and `waiting` on a lease and `grants` are reverse indexes of the lock table, and `expiry`
// orders the leases by deadline (and `delays` the locks' lock-delay ends), and `usage` counts leases and
// locks per owner: derived, rebuilt on restore.

import { MAX_LEASES } from './limits.js';
import { ExpiryIndex } from './expiry-index.js';
import { AclTable } from './acl-table.js';
import { DedupTable } from './dedup.js';
import { FenceStore } from './fence-store.js';
import { GrantIndex } from './grant-index.js';
import { FenceCharges, PrincipalUsage, QuotaTable } from './quotas.js';

export interface LeaseRecord {
  /** Index of the Grant entry. */
  readonly id: number;
  readonly ttlMs: number;
  /** The principal that granted it: only it (or an admin) may use it (authorize.ts). */
  readonly owner: string;
  /**
   * Logical time at which the lease expires (expired by the first Tick with now >= deadline).
   * Indexed in MachineState.expiry: change it only through lease-commands.ts, which keeps both in step.
   */
  deadline: number;
  /** Names this lease holds. */
  readonly held: Set<string>;
  /** Names this lease is queued on. */
  readonly waiting: Set<string>;
}

/** How a lease asks for a name: the mode its grant will have, and the delay its loss imposes. */
export interface Ask {
  /** Read-write locks: shared holders coexist; an exclusive one (false) is alone (or one of `permits`). */
  readonly shared: boolean;
  /** Lock-delay (ms, logical clock) imposed on the name when this holder's lease expires or is revoked; 0 = none. */
  readonly lockDelayMs: number;
  /** Election: the campaign's value, carried to the grant ('' = none). */
  readonly value: string;
}

export interface Waiter extends Ask {
  readonly leaseId: number;
  /** Request id of the Acquire that queued it, so the dedup record can follow the grant. */
  readonly requestId?: string;
  /**
   * Index of the latest Acquire (wait=true) by this lease for this name: the one that queued it, or
   * a later one (a retry) answered 'queued'. A CancelWait for an abandoned call older than this
   * changes nothing: a later call still waits (lock-commands.ts applyCancelWait).
   */
  lastAcquireIndex: number;
  /** Request id of the Acquire at lastAcquireIndex: a cleanup CancelWait must name it too (only that call knows it). */
  lastAcquireRequestId?: string;
}

/** One grant of a lock: a lock has 1..permits of them (or any number of shared ones). */
export interface Holder {
  readonly leaseId: number;
  /** Fencing token: the granting entry's index and this grant's ordinal in it (token.ts). No other grant of this lock has it. */
  readonly token: number;
  /** Downgrade (exclusive → shared) flips it; nothing ever flips it back. */
  shared: boolean;
  readonly lockDelayMs: number;
  /** Election: the leader's value (Campaign's, then each Proclaim's). */
  value: string;
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
  /** Request id of the Acquire at lastAcquireIndex (see Waiter.lastAcquireRequestId). */
  lastAcquireRequestId?: string;
  /** Request id of the Acquire the grant was made for (creating or queued), so taking it back forgets its dedup record. */
  grantRequestId?: string;
}

/**
 * A lock exists while it is held or under a lock-delay; waiters are granted, in FIFO order, as soon as
 * the head waiter fits (lock-transitions.ts `fits`). A mutex is permits = 1 with exclusive holders.
 */
export interface LockRecord {
  readonly name: string;
  /** Exclusive holders allowed at once (1 = mutex, N > 1 = semaphore). Shared asks need permits = 1. */
  permits: number;
  /** In grant order (tokens strictly increasing); holders[0] is the one the single-holder fields report. */
  readonly holders: Holder[];
  /** FIFO: waiters[0] is granted next. */
  readonly waiters: Waiter[];
  /** Logical time a lock-delay ends (granted by the first Tick with now >= it); 0 = no delay. Indexed in MachineState.delays. */
  delayUntil: number;
  /**
   * Made by Election.Campaign: one exclusive leader, permits 1. Only campaigns join it (and only
   * campaigns may join a name that is not one); SetPermits is refused. Set with the lock (or by the
   * first waiter of an idle one), like permits.
   */
  election: boolean;
}

export class MachineState {
  /**
   * Live leases at which a Grant is refused: MAX_LEASES in every node (a constant of the build, not
   * replicated: replicas with different caps would split on a Grant at the cap). Only an in-process
   * benchmark of the state machine sets another (LockStateMachineOptions.maxLeases).
   */
  maxLeases = MAX_LEASES;
  /** Logical clock (ms), advanced only by Tick entries. */
  now = 0;
  appliedIndex = 0;
  readonly leases = new Map<number, LeaseRecord>();
  /** Every lease of `leases` by deadline, so a Tick visits only the leases it expires. */
  readonly expiry = new ExpiryIndex<number>();
  /** Locks under a lock-delay by its end, so a Tick visits only the delays it ends. */
  readonly delays = new ExpiryIndex<string>();
  readonly locks = new Map<string, LockRecord>();
  /** Lock names by their grant's token (grant-index.ts). */
  readonly grants = new GrantIndex();
  readonly fence = new FenceStore();
  readonly dedup = new DedupTable();
  /** Access rules (acl-table.ts). */
  readonly acl = new AclTable();
  /** Quotas set by admins (quotas.ts); the rest are the defaults. */
  readonly quotas = new QuotaTable();
  /** The principal each fenced key created under quotas is charged to (quotas.ts). */
  readonly fenceCharges = new FenceCharges();
  /** Derived: live leases and locks per lease owner (quotas.ts), kept in step with `leases`. */
  readonly usage = new PrincipalUsage();
}

export function newLease(id: number, ttlMs: number, deadline: number, owner: string): LeaseRecord {
  return { id, ttlMs, owner, deadline, held: new Set(), waiting: new Set() };
}
