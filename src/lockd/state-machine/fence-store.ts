// The fenced store: a tiny key/value map that refuses writes carrying a token lower than the highest
// it has accepted for that key — the storage-side half of fencing (docs/design.md §5). The rules (which
// write is accepted, quotas) are fence-commands.ts'; this file keeps the tables consistent.
//  - A live key remembers the lease charged for creating it (0: no live grant held its token), so
//    per-lease quotas are counted without scanning.
//  - A deleted key leaves a tombstone with its highest token, so a stale writer cannot bring it back.
//    Tombstones are a FIFO bounded by MAX_FENCE_TOMBSTONES; forgetting the oldest raises `floor`,
//    the lowest token a write without a lock may create a key with from then on.

import { compareStrings } from './order.js';
import { MAX_FENCE_TOMBSTONES } from './limits.js';

export interface FenceEntry {
  readonly token: number;
  readonly value: Uint8Array;
  /** The lease charged for this key (MAX_FENCE_KEYS_PER_LEASE); 0 = the shared unowned pool. */
  readonly owner: number;
}

export class FenceStore {
  private readonly entries = new Map<string, FenceEntry>();
  /** Deleted keys → their highest token; insertion order = deletion order (replicated, snapshotted). */
  private readonly tombstones = new Map<string, number>();
  /** Live keys per owner (derived from entries). */
  private readonly charged = new Map<number, number>();
  /** Highest token of a forgotten tombstone (0: none forgotten). */
  floor = 0;

  constructor(readonly tombstoneCapacity: number = MAX_FENCE_TOMBSTONES) {}

  get size(): number {
    return this.entries.size;
  }

  get tombstoneCount(): number {
    return this.tombstones.size;
  }

  get(key: string): FenceEntry | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The highest token accepted for key: its value's, or its tombstone's; undefined if neither. */
  highest(key: string): number | undefined {
    return this.entries.get(key)?.token ?? this.tombstones.get(key);
  }

  /** Every key with its highest token, live keys first, then tombstones (oldest deletion first). */
  *highestTokens(): IterableIterator<{ readonly key: string; readonly token: number; readonly deleted: boolean }> {
    for (const [key, e] of this.entries) yield { key, token: e.token, deleted: false };
    for (const [key, token] of this.tombstones) yield { key, token, deleted: true };
  }

  isTombstoned(key: string): boolean {
    return this.tombstones.has(key);
  }

  /** Live keys charged to `owner` (0: the unowned pool). */
  keysOf(owner: number): number {
    return this.charged.get(owner) ?? 0;
  }

  /**
   * Store a value (copied). A new key is charged to `owner`; an existing one keeps its owner. The
   * caller has checked the rules (token >= highest(key), quotas).
   */
  put(key: string, value: Uint8Array, token: number, owner: number): void {
    const cur = this.entries.get(key);
    if (!cur) this.charge(owner, +1);
    this.tombstones.delete(key);
    this.entries.set(key, { token, value: value.slice(), owner: cur ? cur.owner : owner });
  }

  /** Delete a live key, leaving a tombstone at `token` (>= its token); forgets the oldest beyond capacity. */
  delete(key: string, token: number): void {
    const cur = this.entries.get(key);
    if (!cur) throw new Error(`fence: delete of ${key}, which holds no value`);
    this.entries.delete(key);
    this.charge(cur.owner, -1);
    this.addTombstone(key, token);
  }

  /** Restore: a tombstone in FIFO position (snapshot-codec.ts). */
  addTombstone(key: string, token: number): void {
    this.tombstones.set(key, token);
    while (this.tombstones.size > this.tombstoneCapacity) {
      const [oldest, t] = this.tombstones.entries().next().value as [string, number];
      this.tombstones.delete(oldest);
      this.floor = Math.max(this.floor, t);
    }
  }

  private charge(owner: number, by: 1 | -1): void {
    const n = (this.charged.get(owner) ?? 0) + by;
    if (n === 0) this.charged.delete(owner);
    else this.charged.set(owner, n);
  }

  /** Keys in sorted order (for snapshots: same state, same bytes). */
  sorted(): [string, FenceEntry][] {
    return [...this.entries].sort(([a], [b]) => compareStrings(a, b));
  }

  /** Tombstones oldest first (their FIFO order is state). */
  tombstoneEntries(): [string, number][] {
    return [...this.tombstones];
  }

  /** Owner → live keys, for the invariant sweep. */
  chargedCounts(): ReadonlyMap<number, number> {
    return this.charged;
  }
}
