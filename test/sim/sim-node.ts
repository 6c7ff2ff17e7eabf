// One simulated node: a RaftNode, its in-memory MemoryStorage, its durable Disk, the app state, and the
// driver loop that moves a Ready batch through persist → send → apply → advance (the contract in types.ts).
// A crash throws away everything but the Disk; a restart rebuilds the node from it.
// With the lock app, the node also runs the real lock state machine (lock-app.ts) on the same entries; its
// snapshot bytes travel inside the app snapshot (app-state.ts), so InstallSnapshot carries them too.

import { RaftNode } from '../../src/raft/raft-node.js';
import type { MemoryStorage } from '../../src/raft/memory-storage.js';
import { sendableBeforePersist, type Entry, type Message, type NodeId, type PlantedBug, type ReadState, type Ready, type Role, type Snapshot } from '../../src/raft/types.js';
import { INITIAL_APP_STATE, applyEntry, dataText, decodeAppSnapshot, encodeAppSnapshot, type AppState } from './app-state.js';
import { Disk } from './disk.js';
import type { LockReplica } from './lock-app.js';
import type { Prng } from './prng.js';

/** Where, inside one driver cycle, a crash may strike. */
export type CrashPoint = 'before-persist' | 'after-persist' | 'after-send';

/** What the runner (checks, network, trace) gets to see of a driver cycle, in order. */
export interface DriverHooks {
  /** A Ready was just taken from the core (nothing persisted yet). */
  readyTaken(node: SimNode, rd: Ready): void;
  /** Should this cycle crash, and where? */
  crashPoint(node: SimNode): CrashPoint | undefined;
  /** The batch is on disk (and in the MemoryStorage). */
  persisted(node: SimNode, rd: Ready): void;
  send(node: SimNode, m: Message): void;
  snapshotRestored(node: SimNode, snap: Snapshot, before: AppState): void;
  applied(node: SimNode, e: Entry, data: string, before: AppState): void;
  readState(node: SimNode, rs: ReadState): void;
  appSnapshot(node: SimNode, snap: Snapshot): void;
  crashed(node: SimNode, point: CrashPoint | 'between-steps'): void;
}

export interface NodeSettings {
  readonly electionTick: number;
  readonly heartbeatTick: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  readonly maxSizePerMsg?: number;
  readonly maxInflightMsgs?: number;
  readonly plantedBug?: PlantedBug;
  /** Take an app snapshot (and compact) once this many entries were applied past the last one. */
  readonly snapshotEvery: number;
  /** Entries to keep in the MemoryStorage behind a snapshot (slow followers can still catch up by App). */
  readonly compactKeep: number;
  /** Per-tick chance that this node's clock skips a tick / delivers two. */
  readonly tickSkip: number;
  readonly tickDouble: number;
}

export class SimNode {
  readonly disk = new Disk();
  raft: RaftNode | undefined;
  storage: MemoryStorage | undefined;
  app: AppState = INITIAL_APP_STATE;
  incarnation = 0;
  /** As observed from Ready batches (softState / hardState) of the current incarnation. */
  role: Role = 'follower';
  term = 0;
  leader: NodeId = '';
  /** Highest commit index seen in this incarnation (starts at the durable commit on restart). */
  commit = 0;
  /** Step at which a down node comes back. */
  restartAt = 0;

  constructor(
    readonly id: NodeId,
    readonly peers: readonly NodeId[],
    readonly settings: NodeSettings,
    private readonly prng: Prng,
    private readonly hooks: DriverHooks,
    /** The lock app, when the run drives it (its state is rebuilt on every start, like the hash chain's). */
    readonly lock?: LockReplica,
  ) {}

  get up(): boolean {
    return this.raft !== undefined;
  }

  /** (Re)start from the durable disk: storage rebuilt from it, app state from its snapshot. */
  start(): void {
    if (this.raft) throw new Error(`sim: ${this.id} is already running`);
    const s = this.settings;
    this.incarnation++;
    this.storage = this.disk.toStorage(this.peers);
    this.restoreApp(this.disk.snapshotIndex > 0 ? this.disk.snapshot.data : undefined);
    this.raft = new RaftNode({
      id: this.id,
      peers: this.peers,
      storage: this.storage,
      electionTick: s.electionTick,
      heartbeatTick: s.heartbeatTick,
      random: (n) => this.prng.int(n),
      applied: this.disk.snapshotIndex,
      preVote: s.preVote,
      checkQuorum: s.checkQuorum,
      maxSizePerMsg: s.maxSizePerMsg,
      maxInflightMsgs: s.maxInflightMsgs,
      plantedBug: s.plantedBug,
    });
    this.role = 'follower';
    this.leader = '';
    this.term = this.disk.hardState.term;
    this.commit = this.disk.hardState.commit;
  }

  /** Lose everything not on disk. */
  crash(point: CrashPoint | 'between-steps'): void {
    this.raft = undefined;
    this.storage = undefined;
    this.role = 'follower';
    this.leader = '';
    this.hooks.crashed(this, point);
  }

  /** One tick of this node's clock, which runs a little fast or slow. */
  tick(): number {
    const raft = this.mustRun();
    if (this.prng.chance(this.settings.tickSkip)) return 0;
    const n = this.prng.chance(this.settings.tickDouble) ? 2 : 1;
    for (let k = 0; k < n; k++) raft.tick();
    return n;
  }

  /** One driver cycle: take a Ready (if any) and carry it through persist → send → apply → advance. */
  cycle(): boolean {
    const raft = this.mustRun();
    if (!raft.hasReady()) return false;
    const rd = raft.ready();
    this.hooks.readyTaken(this, rd);
    if (rd.softState) {
      this.role = rd.softState.role;
      this.leader = rd.softState.leader;
    }
    if (rd.hardState) {
      this.term = rd.hardState.term;
      this.commit = Math.max(this.commit, rd.hardState.commit);
    }
    // 0. Leader replication may leave before the disk write (types.ts: sendableBeforePersist), so a
    // crash before persisting can leave followers holding entries the leader never made durable.
    for (const m of rd.messages) if (sendableBeforePersist(m)) this.hooks.send(this, m);
    const crash = this.hooks.crashPoint(this);
    if (crash === 'before-persist') return this.crashIn(crash);

    // 1. One synced write: snapshot, entries, hard state.
    this.disk.write(rd.hardState, rd.entries, rd.snapshot);
    const storage = this.storage!;
    if (rd.snapshot && rd.snapshot.metadata.index > 0) storage.applySnapshot(rd.snapshot);
    if (rd.entries.length > 0) storage.append(rd.entries);
    if (rd.hardState) storage.setHardState(rd.hardState);
    this.hooks.persisted(this, rd);
    if (crash === 'after-persist') return this.crashIn(crash);

    // 2. Send.
    for (const m of rd.messages) if (!sendableBeforePersist(m)) this.hooks.send(this, m);
    if (crash === 'after-send') return this.crashIn(crash);

    // 3. Apply: snapshot first, then committed entries; read states are answered at this point.
    if (rd.snapshot && rd.snapshot.metadata.index > 0) {
      const before = this.app;
      this.restoreApp(rd.snapshot.data);
      this.hooks.snapshotRestored(this, rd.snapshot, before);
    }
    for (const e of rd.committedEntries) {
      const before = this.app;
      const data = dataText(e.data);
      this.app = applyEntry(before, e.index, data);
      this.lock?.apply(e);
      this.hooks.applied(this, e, data, before);
    }
    for (const rs of rd.readStates) this.hooks.readState(this, rs);
    this.maybeSnapshot();

    // 4. Acknowledge.
    raft.advance(rd);
    return true;
  }

  /** Every `snapshotEvery` applied entries: snapshot the app, make it durable, compact the log. */
  private maybeSnapshot(): void {
    const storage = this.storage!;
    const snapIndex = storage.snapshot().metadata.index;
    if (this.app.index - snapIndex < this.settings.snapshotEvery) return;
    const snap = storage.createSnapshot(this.app.index, encodeAppSnapshot(this.app, this.lock?.snapshot()));
    this.disk.saveAppSnapshot(snap);
    const compactTo = this.app.index - this.settings.compactKeep;
    if (compactTo >= storage.firstIndex()) storage.compact(compactTo);
    this.hooks.appSnapshot(this, snap);
  }

  /** The app state from a snapshot's data (undefined: the empty state), the lock app's too. */
  private restoreApp(data: Uint8Array | undefined): void {
    const snap = data ? decodeAppSnapshot(data) : undefined;
    this.app = snap ? snap.app : INITIAL_APP_STATE;
    if (!this.lock) return;
    if (snap && !snap.lock) throw new Error(`sim: ${this.id}: snapshot at ${snap.app.index} carries no lock state`);
    this.lock.reset(snap?.lock);
  }

  private crashIn(point: CrashPoint): boolean {
    this.crash(point);
    return true;
  }

  mustRun(): RaftNode {
    if (!this.raft) throw new Error(`sim: ${this.id} is down`);
    return this.raft;
  }
}
