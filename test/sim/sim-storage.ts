// The driver loop's storage on a simulated node (what LevelStorage is on a real one): writes queue up in
// call order, each reaches the Disk after a drawn latency (in steps) with the sync flag the driver gave it,
// and only then changes the MemoryStorage mirror the core reads and tells the loop it is done. Writes still
// queued when the node crashes never reach the disk.

import type { MemoryStorage } from '../../src/raft/memory-storage.js';
import type { LoopStorage, Persistable } from '../../src/lockd/node/driver-loop.js';
import type { Snapshot } from '../../src/raft/types.js';
import type { Disk, DiskWrite } from './disk.js';
import type { WriteErrorCode } from './sim-kv.js';
import type { LoadBug } from './sim-load.js';

/**
 * Bugs planted into the storage adapter or the start's loader (never into src/) to show that the disk model
 * and the checks catch them: ignore-sync writes every batch unsynced; ack-before-sync (an fsync that lies)
 * acknowledges a synced write once it reaches the OS, and makes it durable only some steps later;
 * torn-record-accepted (sim-load.ts) loads records whose CRC fails as valid ones.
 */
export type DiskBug = 'ignore-sync' | 'ack-before-sync' | LoadBug;
export const DISK_BUGS: readonly DiskBug[] = ['ignore-sync', 'ack-before-sync', 'torn-record-accepted'];

export interface SimStorageOptions {
  /** The current step, and the latency (in steps) of the next write. */
  now(): number;
  latency(): number;
  /** Entries to keep in the mirror behind a snapshot (slow followers can still catch up by App). */
  readonly compactKeep: number;
  readonly bug?: DiskBug;
  /** Called as each write is queued (a crash may strike right after), and as an app snapshot reaches the disk. */
  queued?(w: DiskWrite): void;
  /** Should the next write fail (the disk's EIO/ENOSPC)? */
  writeError?(): WriteErrorCode | undefined;
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
  /** ack-before-sync: the steps at which the fsyncs behind acknowledged writes really happen. */
  private readonly lateSyncs: number[] = [];

  constructor(
    private readonly disk: Disk,
    /** The mirror of what this incarnation read from its data dir (sim-load.ts). */
    memory: MemoryStorage,
    private readonly opts: SimStorageOptions,
  ) {
    this.memory = memory;
  }

  /** The write the process is handing to the disk now (a power cut may tear it), if any. */
  get head(): DiskWrite | undefined {
    return this.queue[0]?.w;
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
    while (this.lateSyncs.length > 0 && this.lateSyncs[0] <= now) {
      this.lateSyncs.shift();
      this.disk.sync();
    }
    while (this.queue.length > 0 && this.queue[0].due <= now) {
      const q = this.queue.shift()!;
      const code = this.opts.writeError?.();
      if (code) this.disk.kv.failNext = code;
      const lie = this.opts.bug === 'ack-before-sync' && q.w.sync;
      try {
        this.disk.write(lie ? ({ ...q.w, sync: false } as DiskWrite) : q.w);
      } catch (e) {
        q.done(e as Error); // fail-stop: the loop's onFatal; nothing of this write is acknowledged
        return;
      }
      if (lie) this.lateSyncs.push(now + 1 + this.opts.latency() + this.opts.latency());
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
