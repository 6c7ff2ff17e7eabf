// The node's durable log: LevelDB on disk, mirrored in a MemoryStorage that the Raft core reads
// synchronously. Every change is one synced LevelDB batch first, then the same change to the
// mirror, so the mirror never shows the core anything that is not durable.
import type { MemoryStorage } from '../../raft/memory-storage.js';
import type { NodeId, Ready, Snapshot } from '../../raft/types.js';
import { type LogShape, StorageUsageError, planCompact, planPersist } from './batch-plan.js';
import { type Migrated, migrateDataDir } from './migrate.js';
import { DataDirError } from './data-dir-errors.js';
import { type KvStore, openLevelKv } from './kv.js';
import { PEERS_KEY } from './keys.js';
import { refuseIfRestoring } from './restoring-mark.js';
import { loadDataDir } from './load-data-dir.js';
import { type Identity, type PeerBook, encodePeerBook } from './records.js';

export interface LevelStorageOptions {
  /** The data directory (created if missing). */
  readonly dir: string;
  readonly clusterId: string;
  readonly nodeId: NodeId;
  /**
   * The voter ids this start names (--peers): stored in a fresh data dir; an existing one made for
   * another set is refused (DataDirError 'voters') unless it holds a configuration of its own
   * (load-data-dir.ts). Empty: a node joining a cluster (--join), which learns the configuration from it.
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
  /**
   * The store behind the data dir: LevelDB (openLevelKv), the only one in production; tests put a
   * simulated disk here. (Migration, migrate.ts, works on the LevelDB files of `dir`: a store with no
   * LevelDB database there has nothing to migrate.)
   */
  readonly openKv?: (dir: string) => KvStore;
}

/** What persist() needs from a Ready batch. */
export type Persistable = Pick<Ready, 'hardState' | 'entries' | 'snapshot'>;

export class LevelStorage {
  private queue: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    private readonly db: KvStore,
    readonly dir: string,
    readonly identity: Identity,
    /** The synchronous mirror to hand to the Raft core (RaftConfig.storage). Do not mutate it directly. */
    readonly memory: MemoryStorage,
    /** True if this open created the data dir's identity: a brand-new node. */
    readonly created: boolean,
    /** The bootstrap voters the data dir was made for (sorted; empty if it joined a cluster). */
    readonly voters: readonly NodeId[],
    /** The data dir holds a configuration of its own (load-data-dir.ts): --peers named addresses only. */
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
    const db = (opts.openKv ?? openLevelKv)(opts.dir);
    await db.open();
    try {
      const identity = { clusterId: opts.clusterId, nodeId: opts.nodeId };
      const loaded = await loadDataDir(db, opts.dir, identity, opts.voters, opts.writer ?? '');
      return new LevelStorage(
        db,
        opts.dir,
        identity,
        loaded.memory,
        loaded.created,
        loaded.voters,
        loaded.configured,
        loaded.peerBook,
        loaded.snapshotIndex,
        migrated,
        opts.unsafeNoSync === true,
      );
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
      const { ops, snapshot: snap } = planPersist(shapeOf(m), rd);
      if (ops.length === 0) return;
      await this.db.batch(ops, { sync: sync && !this.noSync });
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
      const index = snapshot.metadata.index;
      if (index <= this.snapshotIndex) return;
      const ops = planCompact(shapeOf(m), snapshot);
      if (!ops) return;
      await this.db.batch(ops, { sync: !this.noSync });
      this.snapshotIndex = index;
      m.createSnapshot(index, snapshot.data, snapshot.metadata); // its configuration too
      m.compact(index);
    });
  }

  /** Save members' addresses for the next start (unsynced: a hint, re-learned from the log and --peers if lost). */
  savePeers(book: PeerBook): Promise<void> {
    return this.serialized(() => this.db.batch([{ type: 'put', key: PEERS_KEY, value: encodePeerBook(book) }], { sync: false }));
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

/** The mirror's log, which is the stored one (every change reaches the disk first). */
function shapeOf(m: MemoryStorage): LogShape {
  return { offset: m.firstIndex() - 1, last: m.lastIndex(), term: (i) => m.term(i) };
}
