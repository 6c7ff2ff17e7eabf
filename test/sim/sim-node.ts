// One simulated node: the real driver loop (src/lockd/node/driver-loop.ts, the one RaftDriver runs) on a
// simulated disk (disk.ts, through sim-storage.ts), the runner's network as its outbox, the runner's steps as
// its scheduler, and the hash-chain app (plus, with the lock app, the real lock state machine: lock-app.ts)
// as its applier. A crash throws away everything but the Disk; a power cut also its unsynced writes; a
// restart rebuilds the node from what is left, after the same voter check a real start makes (voters.ts).

import pino from 'pino';
import { DriverLoop } from '../../src/lockd/node/driver-loop.js';
import type { Entry, Message, NodeId, PlantedBug, Ready, Role, Snapshot } from '../../src/raft/types.js';
import { INITIAL_APP_STATE, applyEntry, dataText, decodeAppSnapshot, encodeAppSnapshot, type AppState } from './app-state.js';
import { Disk } from './disk.js';
import type { LockReplica } from './lock-app.js';
import type { Prng } from './prng.js';
import { SimStorage, type DiskBug } from './sim-storage.js';
import { fail } from './checkers.js';
import { type DiskFaults, drawDiskFaults, drawWriteError } from './disk-faults.js';
import { KvWriteError } from './sim-kv.js';
import { SIM_CLUSTER, SIM_WRITER, integrityProblem, loadSimDir } from './sim-load.js';
import { CONFIG_KEY, IDENTITY_KEY } from '../../src/lockd/storage/keys.js';
import { mirrorOf, type Verified } from '../../src/lockd/storage/load-data-dir.js';
import { encodeConfiguration, encodeIdentity } from '../../src/lockd/storage/records.js';
import { startVoters, type StartBug } from './voters.js';

/**
 * Bugs planted by the simulator's adapter around the driver loop (never in src/), each the code a real driver
 * could have had: 'read-before-apply' answers a read as soon as its read index is known, before applying up to
 * it; 'snapshot-effective-config' writes snapshots with the configuration in effect (the newest in the log,
 * perhaps uncommitted) instead of the one at the snapshot's index.
 */
export type SimBug = 'read-before-apply' | 'snapshot-effective-config';
export const SIM_BUGS: readonly SimBug[] = ['read-before-apply', 'snapshot-effective-config'];

/** Where, inside one batch of the driver loop, a crash may strike. */
export type CrashPoint = 'before-persist' | 'after-persist' | 'after-send';
export type CrashKind = CrashPoint | 'between-steps' | 'disk-error';

/** What the runner (checks, network, trace) gets to see of a node's driver loop, in order. */
export interface DriverHooks {
  /** A Ready was just taken from the core (nothing sent or persisted yet); node.role/term are still the old ones. */
  readyTaken(node: SimNode, rd: Ready): void;
  /** Should this batch crash, and where? */
  crashPoint(node: SimNode): CrashPoint | undefined;
  /** The batch's durable parts are written (see LoopObserver.persisted). */
  persisted(node: SimNode, rd: Ready): void;
  send(node: SimNode, m: Message): void;
  snapshotRestored(node: SimNode, index: number, before: AppState): void;
  applied(node: SimNode, e: Entry, data: string, before: AppState): void;
  appSnapshot(node: SimNode, snap: Snapshot): void;
  crashed(node: SimNode, kind: CrashKind, lost: { inflight: number; unsynced: number; powerCut: boolean }): void;
  /** The disk's faults, as they strike (a torn write, a bit flip, a failed write, a start refused on a damaged store). */
  diskFault?(node: SimNode, what: string, detail: string): void;
}

export interface NodeSettings {
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly preVote: boolean;
  readonly checkQuorum: boolean;
  readonly maxSizePerMsg?: number;
  readonly maxInflightMsgs?: number;
  readonly plantedBug?: PlantedBug;
  /** As leader, answer a rejection from a follower behind our snapshot with the snapshot (RaftConfig.snapshotOnReject). */
  readonly snapshotOnReject: boolean;
  /** Take an app snapshot (and compact) once this many entries were applied past the last one. */
  readonly snapshotEvery: number;
  /** Entries to keep in the MemoryStorage behind a snapshot (slow followers can still catch up by App). */
  readonly compactKeep: number;
  /** Per-tick chance that this node's clock skips a tick / delivers two. */
  readonly tickSkip: number;
  readonly tickDouble: number;
  /** A disk write reaches the disk 0..diskDelayMax steps after it is issued (in order). */
  readonly diskDelayMax: number;
  readonly diskBug?: DiskBug;
  /**
   * The disk may fail writes (EIO/ENOSPC, at the rate disk-faults.ts draws for the node): only the swarm schedule
   * switches them on. A failed write stops the node and restarts it later, a crash the fault schedule did not
   * draw, so it moves everything after it; the default schedule keeps its runs as they were (its seeds, which
   * npm test runs, replay the same world with the same crashes), and its disk faults are the ones that change
   * no timing: tears and bit flips, refused and repaired at the next start.
   */
  readonly writeErrors?: boolean;
  readonly startBug?: StartBug;
  readonly simBug?: SimBug;
}

/** Thrown from inside the loop to crash the node at a CrashPoint; caught where the runner entered the loop. */
class SimCrash extends Error {
  constructor(readonly point: CrashPoint | 'disk-error') {
    super(`sim crash ${point}`);
  }
}

const SILENT = pino({ level: 'silent' });

export class SimNode {
  readonly disk = new Disk();
  loop: DriverLoop<void> | undefined;
  storage: SimStorage | undefined;
  app: AppState = INITIAL_APP_STATE;
  incarnation = 0;
  /** The voters this incarnation runs with. */
  voters: readonly NodeId[] = [];
  /** As observed from Ready batches (softState / hardState) of the current incarnation. */
  role: Role = 'follower';
  term = 0;
  leader: NodeId = '';
  /** Highest commit index seen in this incarnation (starts at the stored commit on restart). */
  commit = 0;
  /** Step at which a down node comes back. */
  restartAt = 0;
  /** The next restart is a misconfigured one: --peers names this set. */
  nextPeers: readonly NodeId[] | undefined;
  /** Loop callbacks to run at this node's next turn (the loop's Scheduler). */
  private scheduled: (() => void)[] = [];
  private crashAt: CrashPoint | undefined;
  private restoring = false;
  /** Reads of this incarnation by the loop's context (`${id}/${n}`: the loop numbers readBarrier calls from 1). */
  private readSeq = 0;
  private readonly reads = new Map<string, { resolve(): void; answered: boolean }>();
  /** Paused (a GC pause, a stopped VM): no ticks, no turns, no writes complete; messages wait in its inbox. */
  pausedUntil = 0;
  /** During this pause, messages sent to it are lost (its peers' connections time out) instead of waiting. */
  pauseDropsInbound = false;
  /** The disk's faults for this run, drawn from their own stream (disk-faults.ts); none once calm. */
  private readonly diskFaults: DiskFaults;
  private readonly diskPrng: Prng;
  private calm = false;

  constructor(
    readonly id: NodeId,
    /** The cluster's real voter set: what a correct --peers names. */
    readonly peers: readonly NodeId[],
    readonly settings: NodeSettings,
    private readonly prng: Prng,
    private readonly hooks: DriverHooks,
    /** The current step (writes are timed in steps). */
    private readonly now: () => number,
    /** The lock app, when the run drives it (its state is rebuilt on every start, like the hash chain's). */
    readonly lock?: LockReplica,
  ) {
    // split, not fork: a fork draws from the node's stream, which would move every later draw of the run.
    this.diskPrng = prng.split(`disk-faults ${id}`);
    this.diskFaults = drawDiskFaults(this.diskPrng);
  }

  get up(): boolean {
    return this.loop !== undefined;
  }

  /**
   * (Re)start from the disk with --peers naming `named`: storage rebuilt from what the disk holds, app state from
   * its snapshot. Returns why the start was refused (the node stays down), or undefined.
   */
  start(named: readonly NodeId[] = this.peers): string | undefined {
    if (this.loop) throw new Error(`sim: ${this.id} is already running`);
    const decision = startVoters(this.id, this.disk.voters, named, this.settings.startBug);
    if (!decision.ok) return decision.reason;
    if (decision.record) this.disk.voters = decision.record;
    const loaded = this.load(decision.record);
    const s = this.settings;
    this.incarnation++;
    this.voters = decision.voters;
    const storage = new SimStorage(this.disk, mirrorOf(loaded.verified, this.voters), {
      now: this.now,
      latency: () => (s.diskDelayMax > 0 ? this.prng.range(0, s.diskDelayMax) : 0),
      compactKeep: s.compactKeep,
      bug: s.diskBug,
      queued: () => {
        if (this.crashAt === 'before-persist') throw new SimCrash('before-persist');
      },
      writeError: () => (this.calm || !s.writeErrors ? undefined : drawWriteError(this.diskPrng, this.diskFaults)),
      snapshotSaved: (snap) => this.hooks.appSnapshot(this, snap),
    });
    this.storage = storage;
    this.readSeq = 0;
    this.reads.clear();
    this.pausedUntil = 0;
    // The loop's view of storage; the planted bug 'snapshot-effective-config' rewrites a snapshot's configuration.
    const loopStorage =
      s.simBug !== 'snapshot-effective-config'
        ? storage
        : {
            memory: storage.memory,
            write: storage.write.bind(storage),
            compact: (snap: Snapshot, done: (err?: Error) => void) => {
              const st = this.loop?.status();
              const metadata = st
                ? { ...snap.metadata, voters: st.voters, learners: st.learners, removed: st.removed, configIndex: st.configIndex }
                : snap.metadata;
              storage.compact({ ...snap, metadata }, done);
            },
          };
    this.scheduled = [];
    this.crashAt = undefined;
    this.role = 'follower';
    this.leader = '';
    this.term = this.disk.cached.hardState.term;
    this.commit = this.disk.cached.hardState.commit;
    this.restoring = true;
    this.restoreApp(undefined);
    const loop = new DriverLoop<void>({
      id: this.id,
      voters: this.voters,
      raft: {
        electionTicks: s.electionTicks,
        heartbeatTicks: s.heartbeatTicks,
        random: (n) => this.prng.int(n),
        preVote: s.preVote,
        checkQuorum: s.checkQuorum,
        maxSizePerMsg: s.maxSizePerMsg,
        maxInflightMsgs: s.maxInflightMsgs,
        plantedBug: s.plantedBug,
        snapshotOnReject: s.snapshotOnReject,
      },
      storage: loopStorage,
      applier: {
        apply: (e) => this.apply(e),
        snapshot: () => encodeAppSnapshot(this.app, this.lock?.snapshot()),
        restore: (data, index) => this.restore(data, index),
      },
      scheduler: { soon: (fn) => this.scheduled.push(fn) },
      logger: SILENT,
      snapshotEvery: s.snapshotEvery,
      // Everything the loop catches comes back out: a SimCrash to runTurn/completeWrites, a Violation or an
      // invariant error to the runner, which reports it.
      onFatal: (e) => {
        if (e instanceof KvWriteError) {
          // Fail-stop on a failed write (LevelStorage rejects, the driver stops the node); it starts again later.
          this.hooks.diskFault?.(this, 'write-error', e.message);
          this.restartAt = this.now() + this.diskPrng.range(5, 40);
          throw new SimCrash('disk-error');
        }
        throw e;
      },
      observer: {
        readyTaken: (rd) => this.readyTaken(rd),
        persisted: (rd) => {
          this.hooks.persisted(this, rd);
          // Nothing was written (or only an unsynced write): a crash "before persisting" strikes here.
          if (this.crashAt === 'before-persist' || this.crashAt === 'after-persist') throw new SimCrash(this.crashAt);
        },
        sent: () => {
          if (this.crashAt === 'after-send') throw new SimCrash('after-send');
        },
      },
    });
    this.restoring = false;
    loop.setOutbox({
      send: (ms) => {
        for (const m of ms) this.hooks.send(this, m);
      },
    });
    this.loop = loop;
    return undefined;
  }

  /** Lose everything not on disk; with a power cut, also the disk's unsynced writes (a random tail of them). */
  crash(kind: CrashKind, powerCut = false): void {
    const inflight = this.storage?.inflight ?? 0;
    const head = this.storage?.head;
    this.loop = undefined;
    this.storage = undefined;
    this.pausedUntil = 0;
    this.reads.clear();
    this.scheduled = [];
    this.crashAt = undefined;
    this.role = 'follower';
    this.leader = '';
    let unsynced = 0;
    if (powerCut) {
      const tear = !this.calm && this.diskPrng.chance(this.diskFaults.tornWrite);
      const cut = this.disk.powerCut(this.prng, tear, head, this.diskPrng);
      unsynced = cut.lost;
      if (cut.torn) this.hooks.diskFault?.(this, 'torn-write', 'the first write the power cut lost landed torn');
    }
    this.hooks.crashed(this, kind, { inflight, unsynced, powerCut });
  }

  /** A linearizable read through the loop (ReadIndex); 'read-before-apply' answers it once its read index is known. */
  read(resolve: () => void, reject: () => void): void {
    const ctx = `${this.id}/${++this.readSeq}`;
    const r = { resolve, answered: false };
    this.reads.set(ctx, r);
    const answer = () => {
      this.reads.delete(ctx);
      if (!r.answered) {
        r.answered = true;
        resolve();
      }
    };
    this.mustRun().readBarrier({
      resolve: answer,
      reject: () => {
        this.reads.delete(ctx);
        reject();
      },
    });
  }

  paused(step: number): boolean {
    return this.pausedUntil > step;
  }

  /** Forget a crash drawn for the batch under way (the calm phase has no faults). */
  disarm(): void {
    this.crashAt = undefined;
    this.calm = true;
  }

  /** After a calm window (swarm schedule): the disk's faults strike again (disarm stopped them). */
  resumeFaults(): void {
    this.calm = false;
  }

  /**
   * Read the data dir through the real loader (sim-load.ts), after the bit flip drawn for this start. A fresh
   * one first gets its identity and voters (`record`) as the simulator's bootstrap writes them. A store the
   * loader refuses (the fail-stop) is repaired by the simulated operator and read again; one it accepts must
   * hold exactly what was written.
   */
  private load(record: readonly NodeId[] | undefined): { ok: true; verified: Verified } {
    const kv = this.disk.kv;
    if (record) {
      kv.writeSync(
        [
          { type: 'put', key: IDENTITY_KEY, value: encodeIdentity({ clusterId: SIM_CLUSTER, nodeId: this.id }, SIM_WRITER) },
          { type: 'put', key: CONFIG_KEY, value: encodeConfiguration({ voters: record }) },
        ],
        true,
      );
    }
    if (!this.calm && this.diskPrng.chance(this.diskFaults.bitFlip)) {
      const key = kv.flipBit(this.diskPrng);
      if (key) this.hooks.diskFault?.(this, 'bit-flip', key);
    }
    const bug = this.settings.diskBug === 'torn-record-accepted' ? this.settings.diskBug : undefined;
    const startBug = this.settings.startBug;
    let r = loadSimDir(kv, this.id, [], bug, startBug);
    if (!r.ok) {
      if (!kv.damaged) throw new Error(`sim: ${this.id}: the loader refused an undamaged data dir: ${r.error.message}`);
      // Fail-stop with the loader's error; the simulated operator restores the store and starts the node again.
      this.hooks.diskFault?.(this, 'start-refused', r.error.message);
      kv.repair();
      r = loadSimDir(kv, this.id, [], bug, startBug);
      if (!r.ok) throw new Error(`sim: ${this.id}: the loader refused the repaired data dir: ${r.error.message}`);
    }
    const problem = integrityProblem(r.verified, this.disk.cached);
    if (problem) fail('Storage Integrity', this.id, `started on a data dir that does not hold what was written: ${problem}`);
    if (kv.damaged) this.hooks.diskFault?.(this, 'damage-unseen', 'damage that changed nothing the loader reads');
    if (kv.damaged) kv.repair(); // damage the loader could not see and that changed nothing it reads (e.g. a torn value rewritten later)
    return { ok: true, verified: r.verified };
  }

  /** One tick of this node's clock, which runs a little fast or slow. */
  tick(): number {
    const loop = this.mustRun();
    if (this.prng.chance(this.settings.tickSkip)) return 0;
    const n = this.prng.chance(this.settings.tickDouble) ? 2 : 1;
    for (let k = 0; k < n; k++) loop.tick();
    return n;
  }

  /** This node's turn of a step: run what its loop scheduled before the turn (a batch: inbox → Ready → write). */
  runTurn(): boolean {
    const fns = this.scheduled;
    if (fns.length === 0) return false;
    this.scheduled = [];
    this.entered(() => {
      for (const fn of fns) fn();
    });
    return true;
  }

  /** Writes due now reach the disk; their batches go on (send, apply, advance). */
  completeWrites(): void {
    const storage = this.storage;
    if (storage) this.entered(() => storage.completeDue());
  }

  /** Something is waiting: a scheduled batch or a write in flight. */
  busy(): boolean {
    return this.scheduled.length > 0 || (this.storage?.inflight ?? 0) > 0;
  }

  mustRun(): DriverLoop<void> {
    if (!this.loop) throw new Error(`sim: ${this.id} is down`);
    return this.loop;
  }

  private entered(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof SimCrash)) throw e;
      this.crash(e.point);
    }
  }

  private readyTaken(rd: Ready): void {
    this.hooks.readyTaken(this, rd);
    if (this.settings.simBug === 'read-before-apply') {
      for (const rs of rd.readStates) {
        const r = this.reads.get(rs.context);
        if (r && !r.answered) {
          r.answered = true;
          r.resolve();
        }
      }
    }
    if (rd.softState) {
      this.role = rd.softState.role;
      this.leader = rd.softState.leader;
    }
    if (rd.hardState) {
      this.term = rd.hardState.term;
      this.commit = Math.max(this.commit, rd.hardState.commit);
    }
    this.crashAt = this.hooks.crashPoint(this);
  }

  private apply(e: Entry): void {
    const before = this.app;
    const data = dataText(e.data);
    this.app = applyEntry(before, e.index, data);
    this.lock?.apply(e);
    this.hooks.applied(this, e, data, before);
  }

  private restore(data: Uint8Array, index: number): void {
    const before = this.app;
    this.restoreApp(data);
    // On start the loop restores the node's own snapshot: the runner checks that one itself.
    if (!this.restoring) this.hooks.snapshotRestored(this, index, before);
  }

  /** The app state from a snapshot's data (undefined: the empty state), the lock app's too. */
  private restoreApp(data: Uint8Array | undefined): void {
    const snap = data ? decodeAppSnapshot(data) : undefined;
    this.app = snap ? snap.app : INITIAL_APP_STATE;
    if (!this.lock) return;
    if (snap && !snap.lock) throw new Error(`sim: ${this.id}: snapshot at ${snap.app.index} carries no lock state`);
    this.lock.reset(snap?.lock);
  }
}
