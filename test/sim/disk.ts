// A node's simulated disk (its data dir), in two parts, as LevelDB on a real machine has them:
//  - `synced`: what has been fsynced; it survives anything;
//  - `cached`: everything written, synced or not (in the OS page cache); it survives a process crash.
// A write is one atomic batch (a LevelDB WriteBatch) with the sync flag the driver gave it. A synced
// write also makes every earlier write durable (LevelDB's log is one sequential file). A power cut
// keeps the synced part and a random prefix of the unsynced writes after it (the log's torn tail is
// dropped on recovery), and loses the rest. Writes still in flight in the process (not yet handed to
// the OS) are not here: the node's storage adapter (sim-storage.ts) holds them, and any crash loses them.

import { MemoryStorage } from '../../src/raft/memory-storage.js';
import { EMPTY_SNAPSHOT, type Entry, type HardState, type NodeId, type Snapshot } from '../../src/raft/types.js';
import { planCompact, planPersist } from '../../src/lockd/storage/batch-plan.js';
import type { BatchOp } from '../../src/lockd/storage/kv.js';
import type { Prng } from './prng.js';
import { SimKv } from './sim-kv.js';

export type DiskWrite =
  /** A Ready batch's durable parts. */
  | { readonly kind: 'batch'; readonly sync: boolean; readonly hardState?: HardState; readonly entries: readonly Entry[]; readonly snapshot?: Snapshot }
  /** An application snapshot; the entries it covers are deleted (always synced, like LevelStorage.compact). */
  | { readonly kind: 'compact'; readonly sync: true; readonly snapshot: Snapshot };

/** One image of the log: hard state, snapshot, entries after it. */
export class LogImage {
  hardState: HardState = { term: 0, vote: '', commit: 0 };
  snapshot: Snapshot = EMPTY_SNAPSHOT;
  /** Entries after the snapshot, contiguous: entries[k].index === snapshot.metadata.index + 1 + k. */
  entries: Entry[] = [];

  get snapshotIndex(): number {
    return this.snapshot.metadata.index;
  }

  lastIndex(): number {
    return this.snapshotIndex + this.entries.length;
  }

  /** Term of the entry at i, or undefined if the image cannot say (compacted below the snapshot, or beyond the end). */
  term(i: number): number | undefined {
    const s = this.snapshotIndex;
    if (i === s) return this.snapshot.metadata.term;
    if (i < s || i > this.lastIndex()) return undefined;
    return this.entries[i - s - 1].term;
  }

  clone(): LogImage {
    const c = new LogImage();
    c.hardState = this.hardState;
    c.snapshot = this.snapshot;
    c.entries = [...this.entries];
    return c;
  }

  apply(w: DiskWrite): void {
    if (w.kind === 'compact') {
      this.compact(w.snapshot);
      return;
    }
    // A snapshot not newer than the one held is ignored (as LevelStorage.persist does).
    if (w.snapshot && w.snapshot.metadata.index > this.snapshotIndex) {
      // InstallSnapshot replaces the whole log.
      this.snapshot = w.snapshot;
      this.entries = [];
    }
    if (w.entries.length > 0) this.append(w.entries);
    if (w.hardState) this.hardState = w.hardState;
  }

  /** What a node starting on this image reads back: a fresh MemoryStorage holding exactly it. */
  toStorage(voters: readonly NodeId[]): MemoryStorage {
    const storage = new MemoryStorage([...voters]);
    if (this.snapshotIndex > 0) storage.applySnapshot(this.snapshot);
    if (this.entries.length > 0) storage.append(this.entries);
    storage.setHardState(this.hardState);
    return storage;
  }

  private compact(snapshot: Snapshot): void {
    const i = snapshot.metadata.index;
    if (i <= this.snapshotIndex) return;
    if (i > this.lastIndex()) throw new Error(`disk: app snapshot at ${i} is beyond the log (last ${this.lastIndex()})`);
    if (this.term(i) !== snapshot.metadata.term) throw new Error(`disk: app snapshot at ${i} has term ${snapshot.metadata.term}, the log ${this.term(i)}`);
    this.entries = this.entries.slice(i - this.snapshotIndex);
    this.snapshot = snapshot;
  }

  private append(entries: readonly Entry[]): void {
    const first = entries[0].index;
    for (let k = 1; k < entries.length; k++) {
      if (entries[k].index !== first + k) throw new Error(`disk: entries to append are not contiguous at ${entries[k].index}`);
    }
    if (first > this.lastIndex() + 1) {
      throw new Error(`disk: append at ${first} leaves a gap after the last index ${this.lastIndex()}`);
    }
    const s = this.snapshotIndex;
    // Entries at or below the snapshot are already covered by it (same as MemoryStorage.append).
    const fresh = first <= s ? entries.slice(s + 1 - first) : entries;
    if (fresh.length === 0) return;
    this.entries.length = fresh[0].index - s - 1; // entries before the first new one survive; the conflicting suffix goes
    for (const e of fresh) this.entries.push(e);
  }
}

/** The write plans of LevelStorage over an image: the ops it would write, given what the disk holds. */
export function planWrite(img: LogImage, w: DiskWrite): readonly BatchOp[] {
  const shape = { offset: img.snapshotIndex, last: img.lastIndex(), term: (i: number) => img.term(i) };
  if (w.kind === 'compact') return planCompact(shape, w.snapshot) ?? [];
  return planPersist(shape, w).ops;
}

export class Disk {
  /** What survives a power cut. */
  synced = new LogImage();
  /** What survives a process crash: every write handed to the OS. */
  cached = new LogImage();
  /**
   * The same data dir as bytes: the records LevelStorage writes (sim-kv.ts). The images above are the
   * simulator's knowledge of what was written; this is what a starting node reads, through the real loader.
   */
  readonly kv = new SimKv();
  /** Writes in `cached` that are not in `synced` yet, oldest first, with their ops. */
  private unsynced: { w: DiskWrite; ops: readonly BatchOp[] }[] = [];
  /** The voter set recorded when the data dir was created (undefined: never started). */
  voters: readonly NodeId[] | undefined;
  /** Writes, synced writes, and unsynced writes lost to power cuts, for the stats. */
  writes = 0;
  syncs = 0;
  lostToPowerCuts = 0;

  /** One batch, as LevelStorage writes it. Throws KvWriteError (nothing written) if the disk refuses it. */
  write(w: DiskWrite): void {
    const ops = planWrite(this.cached, w);
    this.kv.writeSync(ops, w.sync);
    this.writes++;
    this.cached.apply(w);
    this.unsynced.push({ w, ops });
    if (w.sync) this.sync();
  }

  /** An fsync: every earlier write becomes durable. */
  sync(): void {
    this.syncs++;
    this.kv.sync();
    for (const u of this.unsynced) this.synced.apply(u.w);
    this.unsynced = [];
  }

  /**
   * Power lost: the synced part and a random prefix of the unsynced writes remain. With `tear`, the first
   * write lost (the next unsynced one, else `inflight`, the one the process was writing) lands torn on the
   * byte store (the images, the writes a correct recovery keeps, do not have it), where it tears drawn from
   * `tearPrng` (the disk faults' own stream, so a tear changes no other draw of the run). Returns the writes lost.
   */
  powerCut(prng: Prng, tear = false, inflight?: DiskWrite, tearPrng: Prng = prng): { lost: number; torn: boolean } {
    const kept = prng.range(0, this.unsynced.length);
    for (const u of this.unsynced.slice(0, kept)) this.synced.apply(u.w);
    const lost = this.unsynced.length - kept;
    let tornOps: readonly BatchOp[] | undefined;
    if (tear) tornOps = kept < this.unsynced.length ? this.unsynced[kept].ops : inflight && plannable(this.synced, inflight);
    this.unsynced = [];
    const torn = this.kv.powerCut(kept, tearPrng, tornOps);
    this.cached = this.synced.clone();
    this.lostToPowerCuts += lost;
    return { lost, torn };
  }
}

/** The ops of a write still in flight, if it fits the image (else it is simply lost). */
function plannable(img: LogImage, w: DiskWrite): readonly BatchOp[] | undefined {
  try {
    return planWrite(img, w);
  } catch {
    return undefined;
  }
}
