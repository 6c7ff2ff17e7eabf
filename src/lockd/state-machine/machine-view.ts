// The replicated state as a viewer sees it (the study dashboard's snapshot on connect): logical now,
// leases with their deadlines, locks with their holders (a semaphore's or shared readers: several,
// in grant order) and FIFO queue, and the fenced store's
// highest token per key. A read, never a second copy: the viewer then follows the applied entries'
// events from here. Each table is cut to `limit` rows (taken in the table's order, then sorted), so
// a state of a million locks costs a viewer `limit` rows, not a million; `total` says how many exist.
// A name kept only by its lock-delay (no holder, no waiter) is not a row: no event says when a delay
// ends, so a viewer following events could not drop it (its queue and grants do show in events).
import type { LockRecord, MachineState } from './state.js';
import { compareStrings } from './order.js';

export interface MachineView {
  readonly now: number;
  readonly applied: number;
  readonly leases: { readonly rows: readonly LeaseRow[]; readonly total: number };
  readonly locks: { readonly rows: readonly LockRow[]; readonly total: number };
  readonly fence: { readonly rows: readonly FenceRow[]; readonly total: number };
}

/** Waiters listed per lock (a queue may hold MAX_WAITERS_PER_LOCK); queueLength says how many wait. */
export const VIEW_QUEUE_ROWS = 64;

/** Which locks a lease holds or waits on is in the lock rows (a lease may hold 1,024 names of 512 bytes). */
export interface LeaseRow {
  readonly leaseId: number;
  readonly ttlMs: number;
  /** Logical time the lease expires at (the first Tick with now >= deadline ends it). */
  readonly deadline: number;
}

export interface LockHolderRow {
  readonly leaseId: number;
  readonly token: number;
  /** A shared (reader) grant; false: exclusive (a mutex's holder, one of a semaphore's permits, a writer). */
  readonly shared: boolean;
  /** Election: the leader's value, cut to VIEW_VALUE_CHARS ('' = none, or not an election). */
  readonly value: string;
}

/** An election value is shown up to this many characters (a value may be far longer). */
export const VIEW_VALUE_CHARS = 64;

/** A lock's mode as a viewer needs it: what makes a semaphore of 3 or two readers not look like an exclusion violation. */
export interface LockMode {
  /** Exclusive holders allowed at once (1: a mutex or an election; N > 1: a semaphore). */
  readonly permits: number;
  /** Made by Election.Campaign: holders[0] is the leader, its value the proclaimed one. */
  readonly election: boolean;
  /** Logical ms a lock-delay ends (no grant before it); 0 = none. */
  readonly delayUntil: number;
  readonly holders: readonly LockHolderRow[];
}

export interface LockRow extends LockMode {
  readonly name: string;
  /** In grant order (one for a mutex; a semaphore's or shared readers' several; none while only queued in a lock-delay). */
  readonly holders: readonly LockHolderRow[];
  /** FIFO: queue[0] is granted next; the first VIEW_QUEUE_ROWS of queueLength. */
  readonly queue: readonly number[];
  readonly queueLength: number;
}

export interface FenceRow {
  readonly key: string;
  readonly token: number;
  /** A tombstone: the key was deleted, its highest token is still enforced. */
  readonly deleted: boolean;
}

function first<T>(it: Iterable<T>, limit: number): T[] {
  const out: T[] = [];
  if (limit <= 0) return out;
  for (const x of it) {
    out.push(x);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * What one viewer may see: lock names and fenced keys it may read (the HTTP endpoint's per-principal
 * view, decided as Lock.Inspect and Fence.Read decide). Without one, everything. A filtered view's
 * totals count only what passes, so they tell nothing of hidden names either.
 */
export interface ViewFilter {
  lock(name: string): boolean;
  fence(key: string): boolean;
}

export function machineView(s: MachineState, limit: number, only?: ViewFilter): MachineView {
  const leases = first(s.leases.values(), limit)
    .map((l) => ({ leaseId: l.id, ttlMs: l.ttlMs, deadline: l.deadline }))
    .sort((a, b) => a.leaseId - b.leaseId);
  const shown = (l: LockRecord) => l.holders.length > 0 || l.waiters.length > 0;
  if (only) return filteredView(s, limit, only, leases, shown);
  const locks = first(
    (function* () {
      for (const l of s.locks.values()) if (shown(l)) yield l;
    })(),
    limit,
  )
    .map(lockRow)
    .sort((a, b) => compareStrings(a.name, b.name));
  // Only a lock-delay keeps a name with neither (grant-waiters drops it otherwise), so count those.
  let delayedOnly = 0;
  for (const [name] of s.delays.entries()) if (!shown(s.locks.get(name)!)) delayedOnly++;
  const fence = first(s.fence.highestTokens(), limit).sort((a, b) => compareStrings(a.key, b.key));
  return {
    now: s.now,
    applied: s.appliedIndex,
    leases: { rows: leases, total: s.leases.size },
    locks: { rows: locks, total: s.locks.size - delayedOnly },
    fence: { rows: fence, total: s.fence.size + s.fence.tombstoneCount },
  };
}

function lockRow(l: LockRecord): LockRow {
  return {
    name: l.name,
    ...lockMode(l),
    queue: l.waiters.slice(0, VIEW_QUEUE_ROWS).map((w) => w.leaseId),
    queueLength: l.waiters.length,
  };
}

export function lockMode(l: LockRecord): LockMode {
  return {
    permits: l.permits,
    election: l.election,
    delayUntil: l.delayUntil,
    holders: l.holders.map((h) => ({
      leaseId: h.leaseId,
      token: h.token,
      shared: h.shared,
      value: h.value.length > VIEW_VALUE_CHARS ? `${h.value.slice(0, VIEW_VALUE_CHARS)}…` : h.value,
    })),
  };
}

/** The view of one viewer: a pass over every lock and key (so totals count only visible ones), rows cut to `limit`. */
function filteredView(s: MachineState, limit: number, only: ViewFilter, leases: LeaseRow[], shown: (l: LockRecord) => boolean): MachineView {
  const lockRows: LockRow[] = [];
  let lockTotal = 0;
  for (const l of s.locks.values()) {
    if (!shown(l) || !only.lock(l.name)) continue;
    lockTotal++;
    if (lockRows.length < limit) lockRows.push(lockRow(l));
  }
  const fenceRows: FenceRow[] = [];
  let fenceTotal = 0;
  for (const f of s.fence.highestTokens()) {
    if (!only.fence(f.key)) continue;
    fenceTotal++;
    if (fenceRows.length < limit) fenceRows.push(f);
  }
  return {
    now: s.now,
    applied: s.appliedIndex,
    leases: { rows: leases, total: s.leases.size },
    locks: { rows: lockRows.sort((a, b) => compareStrings(a.name, b.name)), total: lockTotal },
    fence: { rows: fenceRows.sort((a, b) => compareStrings(a.key, b.key)), total: fenceTotal },
  };
}
