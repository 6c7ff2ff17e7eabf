// The node's durable log: LevelDB on disk, mirrored in a MemoryStorage that the Raft core reads
// synchronously. Every change is one synced LevelDB batch first, then the same change to the
// mirror, so the mirror never shows the core anything that is not durable.
import type { MemoryStorage } from '../../raft/memory-storage.js';
import type { Entry, NodeId, Ready, Snapshot } from '../../raft/types.js';
import { type BatchOp, type Db, openLevel, openOrRefuse, writeBatch } from './db.js';
import { type Migrated, migrateDataDir } from './migrate.js';
import { DataDirError } from './errors.js';
import { HARD_STATE_KEY, PEERS_KEY, SNAPSHOT_KEY, entryKey } from './keys.js';
import { refuseIfRestoring } from './restoring-mark.js';
import { loadDataDir } from './load.js';
import { type Identity, type PeerBook, encodeEntry, encodeHardState, encodePeerBook, encodeSnapshot } from './records.js';

export interface LevelStorageOptions {
  /** The data directory (created if missing). */
  readonly dir: string;
  readonly clusterId: string;
  readonly nodeId: NodeId;
  /**
   * The voter ids this start names (--peers): stored in a fresh data dir; an existing one made for
   * another set is refused (DataDirError 'voters') unless it holds a configuration of its own
   * (load.ts). Empty: a node joining a cluster (--join), which learns the configuration from it.
   */
  readonly voters: readonly NodeId[];
  /** Only lockd restore, which is writing the dir: open it although it carries the restoring mark (restoring-mark.ts). */
  readonly restoring?: boolean;
  /** The build line of the lockd opening it (node/versions.ts), recorded when it creates or migrates the dir. */
  readonly writer?: string;
  /**
   * Test-only (lockd's --unsafe-no-fsync): every write of this handle is unsynced whatever its
   * caller asks, so a power cut loses what was acknowledged (the fault suite's control build).
   */
  readonly unsafeNoSync?: boolean;
}

/** What persist() needs from a Ready batch. */
export type Persistable = Pick<Ready, 'hardState' | 'entries' | 'snapshot'>;

export class LevelStorage {
  private queue: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    private readonly db: Db,
    readonly dir: string,
    readonly identity: Identity,
    /** The synchronous mirror to hand to the Raft core (RaftConfig.storage). Do not mutate it directly. */
    readonly memory: MemoryStorage,
    /** True if this open created the data dir's identity: a brand-new node. */
    readonly created: boolean,
    /** The bootstrap voters the data dir was made for (sorted; empty if it joined a cluster). */
    readonly voters: readonly NodeId[],
    /** The data dir holds a configuration of its own (load.ts): --peers named addresses only. */
    readonly configured: boolean,
    /** Members' addresses as last saved (savePeers). */
    readonly peerBook: PeerBook,
    private snapshotIndex: number,
    /** This open migrated the dir from the previous storage format (migrate.ts): where the copy of the old dir is. */
    readonly migrated: Migrated | undefined,
    private readonly noSync: boolean,
  ) {}

  /** Open (or create) a data dir. Throws DataDirError if it is locked, foreign, made for other voters, or corrupt. */
  static async open(opts: LevelStorageOptions): Promise<LevelStorage> {
    if (!opts.clusterId) throw new Error('LevelStorage: clusterId must not be empty');
    if (!opts.nodeId) throw new Error('LevelStorage: nodeId must not be empty');
    if (new Set(opts.voters).size !== opts.voters.length || opts.voters.includes(''))
      throw new Error(`LevelStorage: voters must be distinct non-empty ids, got ${JSON.stringify(opts.voters)}`);
    if (!opts.restoring) refuseIfRestoring(opts.dir);
    // (a restore writes the current format: nothing to migrate)
    const migrated = opts.restoring ? undefined : await migrateDataDir(opts.dir, opts.writer ?? '', { clusterId: opts.clusterId, nodeId: opts.nodeId });
    const db = openLevel(opts.dir);
    await openOrRefuse(db, opts.dir);
    try {
      const identity = { clusterId: opts.clusterId, nodeId: opts.nodeId };
      const loaded = await loadDataDir(db, opts.dir, identity, opts.voters, opts.writer ?? '');
      return new LevelStorage(db, opts.dir, identity, loaded.memory, loaded.created, loaded.voters, loaded.configured, loaded.peerBook, loaded.snapshotIndex, migrated, opts.unsafeNoSync === true);
    } catch (e) {
      await db.close();
      if (e instanceof DataDirError) throw e;
      throw new DataDirError('corrupt', opts.dir, `reading failed: ${(e as Error).message}`);
    }
  }

  /**
   * Write a Ready batch's hard state, entries and snapshot (one batch), then apply them to the
   * mirror. Entries replace any conflicting suffix; a newer snapshot replaces the whole log.
   * `sync` (the driver decides: driver-loop.ts) makes the batch durable before it resolves; an
   * unsynced one survives a process crash but may be lost in a power cut. Rejects (and fails
   * every later call) if the write fails.
   */
  persist(rd: Persistable, { sync = true }: { sync?: boolean } = {}): Promise<void> {
    return this.serialized(async () => {
      const m = this.memory;
      const ops: BatchOp[] = [];
      const snap = rd.snapshot && rd.snapshot.metadata.index > m.snapshot().metadata.index ? rd.snapshot : undefined;
      // The log as it will stand after the snapshot (if any) is installed: (offset, last].
      let offset = m.firstIndex() - 1;
      let last = m.lastIndex();
      if (snap) {
        ops.push({ type: 'put', key: SNAPSHOT_KEY, value: encodeSnapshot(snap) });
        deleteRange(ops, offset + 1, last);
        offset = last = snap.metadata.index;
      }
      if (rd.entries.length > 0) {
        checkAppend(rd.entries, offset, last);
        for (const e of rd.entries) ops.push({ type: 'put', key: entryKey(e.index), value: encodeEntry(e) });
        deleteRange(ops, rd.entries[rd.entries.length - 1].index + 1, last); // the conflicting suffix
      }
      if (rd.hardState) ops.push({ type: 'put', key: HARD_STATE_KEY, value: encodeHardState(rd.hardState) });
      if (ops.length === 0) return;
      await writeBatch(this.db, ops, sync && !this.noSync);
      if (snap) {
        m.applySnapshot(snap);
        this.snapshotIndex = snap.metadata.index;
      }
      m.append(rd.entries);
      if (rd.hardState) m.setHardState(rd.hardState);
    });
  }

  /**
   * Store a snapshot the application took and delete the entries it covers (≤ its index), in one
   * synced batch; then compact the mirror. The snapshot is typically memory.createSnapshot(index,
   * data). A snapshot not newer than the one on disk is ignored.
   */
  compact(snapshot: Snapshot): Promise<void> {
    return this.serialized(async () => {
      const m = this.memory;
      const { index, term } = snapshot.metadata;
      if (index <= this.snapshotIndex) return;
      if (index > m.lastIndex()) throw new StorageUsageError(`compact: snapshot index ${index} is beyond the last index ${m.lastIndex()}`);
      if (m.term(index) !== term) throw new StorageUsageError(`compact: snapshot at ${index} has term ${term}, the log has ${m.term(index)}`);
      const ops: BatchOp[] = [{ type: 'put', key: SNAPSHOT_KEY, value: encodeSnapshot(snapshot) }];
      deleteRange(ops, m.firstIndex(), index);
      await writeBatch(this.db, ops, !this.noSync);
      this.snapshotIndex = index;
      m.createSnapshot(index, snapshot.data, snapshot.metadata); // its configuration too
      m.compact(index);
    });
  }

  /** Save members' addresses for the next start (unsynced: a hint, re-learned from the log and --peers if lost). */
  savePeers(book: PeerBook): Promise<void> {
    return this.serialized(() => this.db.put(PEERS_KEY, encodePeerBook(book)));
  }

  /** Wait for pending writes, then close the database. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return this.queue.then(
      () => this.db.close(),
      () => this.db.close(),
    );
  }

  /** Run writes one at a time, in call order; after a failed write, every later one fails too. */
  private serialized(write: () => Promise<void>): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.closed) throw new Error(`LevelStorage ${this.dir}: closed`);
      if (this.failure) throw new Error(`LevelStorage ${this.dir}: an earlier write failed: ${this.failure.message}`);
      try {
        await write();
      } catch (e) {
        if (!(e instanceof StorageUsageError)) this.failure = e as Error;
        throw e;
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }
}

/** A caller's mistake (nothing was written), as opposed to a failed write. */
class StorageUsageError extends Error {}

function deleteRange(ops: BatchOp[], from: number, to: number): void {
  for (let i = Math.max(from, 1); i <= to; i++) ops.push({ type: 'del', key: entryKey(i) });
}

function checkAppend(entries: readonly Entry[], offset: number, last: number): void {
  const first = entries[0].index;
  if (first <= offset) throw new StorageUsageError(`persist: entry ${first} is at or below the snapshot index ${offset}`);
  if (first > last + 1) throw new StorageUsageError(`persist: entry ${first} leaves a gap after the last index ${last}`);
  entries.forEach((e, k) => {
    if (e.index !== first + k) throw new StorageUsageError(`persist: entries not contiguous: ${e.index} at position ${k} after ${first}`);
  });
}
