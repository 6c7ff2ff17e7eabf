// A node's simulated disk: exactly what the node has durably persisted. A crash keeps this and loses everything
// else (the RaftNode, its MemoryStorage, the app state, and any Ready batch not yet written here).

import { MemoryStorage } from '../../src/raft/memory-storage.js';
import { EMPTY_SNAPSHOT, type Entry, type HardState, type NodeId, type Snapshot } from '../../src/raft/types.js';

export class Disk {
  hardState: HardState = { term: 0, vote: '', commit: 0 };
  snapshot: Snapshot = EMPTY_SNAPSHOT;
  /** Entries after the snapshot, contiguous: entries[k].index === snapshot.metadata.index + 1 + k. */
  entries: Entry[] = [];
  /** Number of synced writes, for the stats. */
  writes = 0;

  get snapshotIndex(): number {
    return this.snapshot.metadata.index;
  }

  lastIndex(): number {
    return this.snapshotIndex + this.entries.length;
  }

  /** Term of the entry at i, or undefined if the disk cannot say (compacted below the snapshot, or beyond the end). */
  term(i: number): number | undefined {
    const s = this.snapshotIndex;
    if (i === s) return this.snapshot.metadata.term;
    if (i < s || i > this.lastIndex()) return undefined;
    return this.entries[i - s - 1].term;
  }

  entry(i: number): Entry | undefined {
    const s = this.snapshotIndex;
    return i > s && i <= this.lastIndex() ? this.entries[i - s - 1] : undefined;
  }

  /** One synced write of a Ready batch's durable parts: snapshot, then entries, then hard state. */
  write(hardState: HardState | undefined, entries: readonly Entry[], snapshot: Snapshot | undefined): void {
    this.writes++;
    if (snapshot && snapshot.metadata.index > 0) this.installSnapshot(snapshot);
    if (entries.length > 0) this.append(entries);
    if (hardState) this.hardState = hardState;
  }

  /** A snapshot the application took of its own state: entries it covers are compacted away. */
  saveAppSnapshot(snapshot: Snapshot): void {
    this.writes++;
    const i = snapshot.metadata.index;
    if (i <= this.snapshotIndex) return;
    if (i > this.lastIndex()) throw new Error(`disk: app snapshot at ${i} is beyond the durable log (last ${this.lastIndex()})`);
    this.entries = this.entries.slice(i - this.snapshotIndex);
    this.snapshot = snapshot;
  }

  /** What a restarted node reads back: a fresh MemoryStorage holding exactly the durable state. */
  toStorage(voters: readonly NodeId[]): MemoryStorage {
    const storage = new MemoryStorage([...voters]);
    if (this.snapshotIndex > 0) storage.applySnapshot(this.snapshot);
    if (this.entries.length > 0) storage.append(this.entries);
    storage.setHardState(this.hardState);
    return storage;
  }

  private installSnapshot(snapshot: Snapshot): void {
    // InstallSnapshot replaces the whole log (the core only sends one when the follower's log is behind it).
    this.snapshot = snapshot;
    this.entries = [];
  }

  private append(entries: readonly Entry[]): void {
    const first = entries[0].index;
    for (let k = 1; k < entries.length; k++) {
      if (entries[k].index !== first + k) throw new Error(`disk: entries to append are not contiguous at ${entries[k].index}`);
    }
    if (first > this.lastIndex() + 1) {
      throw new Error(`disk: append at ${first} leaves a gap after the durable last index ${this.lastIndex()}`);
    }
    const s = this.snapshotIndex;
    // Entries at or below the snapshot are already covered by it (same as MemoryStorage.append).
    const fresh = first <= s ? entries.slice(s + 1 - first) : entries;
    if (fresh.length === 0) return;
    const keep = fresh[0].index - s - 1; // entries before the first new one survive; the conflicting suffix goes
    this.entries.length = keep;
    for (const e of fresh) this.entries.push(e);
  }
}
