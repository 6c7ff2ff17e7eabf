// The driver loop's storage on a simulated node (what LevelStorage is on a real one): writes queue up in
// call order, each reaches the Disk after a drawn latency (in steps) with the sync flag the driver gave it,
// and only then changes the MemoryStorage mirror the core reads and tells the loop it is done. Writes still
// queued when the node crashes never reach the disk.

import type { MemoryStorage } from '../../src/raft/memory-storage.js';
import type { LoopStorage, Persistable } from '../../src/lockd/node/driver-loop.js';
import type { NodeId, Snapshot } from '../../src/raft/types.js';
import type { Disk, DiskWrite, LogImage } from './disk.js';

/**
 * A bug planted into the storage adapter (never into src/) to show that the disk model and the checks catch
 * a node whose writes are not as durable as the driver asked: ignore-sync writes every batch unsynced.
 */
export type DiskBug = 'ignore-sync';
export const DISK_BUGS: readonly DiskBug[] = ['ignore-sync'];

export interface SimStorageOptions {
  /** The current step, and the latency (in steps) of the next write. */
  now(): number;
  latency(): number;
  /** Entries to keep in the mirror behind a snapshot (slow followers can still catch up by App). */
  readonly compactKeep: number;
  readonly bug?: DiskBug;
  /** Called as each write is queued (a crash may strike right after), and as an app snapshot reaches the disk. */
  queued?(w: DiskWrite): void;
  snapshotSaved?(snap: Snapshot): void;
}

interface Queued {
  readonly w: DiskWrite;
  readonly due: number;
  readonly done: (err?: Error) => void;
}

export class SimStorage implements LoopStorage {
  readonly memory: MemoryStorage;
  private readonly queue: Queued[] = [];
  private lastDue = 0;

  constructor(
    private readonly disk: Disk,
    /** The image this incarnation starts from (the cache after a process crash, what survived a power cut). */
    image: LogImage,
    voters: readonly NodeId[],
    private readonly opts: SimStorageOptions,
  ) {
    this.memory = image.toStorage(voters);
  }

  /** Writes queued and not yet on the disk. */
  get inflight(): number {
    return this.queue.length;
  }

  write(batch: Persistable, sync: boolean, done: (err?: Error) => void): void {
    const s = this.opts.bug === 'ignore-sync' ? false : sync;
    this.enqueue({ kind: 'batch', sync: s, hardState: batch.hardState, entries: batch.entries, snapshot: batch.snapshot }, done);
  }

  compact(snapshot: Snapshot, done: (err?: Error) => void): void {
    this.enqueue({ kind: 'compact', sync: true, snapshot }, done);
  }

  /** Hand every write due by now to the disk, in order; each one's `done` may crash the node (it throws). */
  completeDue(): void {
    const now = this.opts.now();
    while (this.queue.length > 0 && this.queue[0].due <= now) {
      const q = this.queue.shift()!;
      this.disk.write(q.w);
      this.mirror(q.w);
      q.done();
    }
  }

  private enqueue(w: DiskWrite, done: (err?: Error) => void): void {
    // In order: a write never overtakes an earlier one (LevelStorage serializes them too).
    const due = Math.max(this.lastDue, this.opts.now() + this.opts.latency());
    this.lastDue = due;
    this.queue.push({ w, due, done });
    this.opts.queued?.(w);
  }

  private mirror(w: DiskWrite): void {
    const m = this.memory;
    if (w.kind === 'compact') {
      m.createSnapshot(w.snapshot.metadata.index, w.snapshot.data, w.snapshot.metadata); // its configuration too
      const { index } = w.snapshot.metadata;
      const to = index - this.opts.compactKeep;
      if (to >= m.firstIndex()) m.compact(to);
      this.opts.snapshotSaved?.(w.snapshot);
      return;
    }
    if (w.snapshot && w.snapshot.metadata.index > m.snapshot().metadata.index) m.applySnapshot(w.snapshot);
    m.append(w.entries);
    if (w.hardState) m.setHardState(w.hardState);
  }
}
