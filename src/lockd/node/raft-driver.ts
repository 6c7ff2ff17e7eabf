// The running node's Raft driver: the deterministic loop of driver-loop.ts (ready → persist → send →
// apply → advance, group commit, early leader replication, no commit-only writes) on LevelDB,
// a tick timer and setImmediate, with promises for the API layer. The simulator runs the same loop
// on its simulated disk, network and clock (test/sim/sim-node.ts), and this very driver on them
// too (test/sim/node: DriverStorage over the simulated disk, the node's Clock simulated).
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ConfChange } from '../../raft/membership.js';
import type { Message, NodeId, Ready, Snapshot, Status } from '../../raft/types.js';
import type { DriverEvent } from '../observe/driver-events.js';
import { loopActivity } from '../observe/loop-activity.js';
import type { MemoryStorage } from '../../raft/memory-storage.js';
import { realClock, type Clock, type ClockTimer } from './clock.js';
import {
  DriverLoop,
  type AppliedListener,
  type Applier,
  type ConfigurationAt,
  type LoopStorage,
  type MembershipListener,
  type Outbox,
  type Persistable,
  type RemovedListener,
  type RoleListener,
  type StateReplacedListener,
} from './driver-loop.js';
import { LeaderTransfer, type TransferOutcome } from './leader-transfer.js';

export type { AppliedListener, Applier, ConfigurationAt, MembershipListener, Outbox, RemovedListener, RoleListener } from './driver-loop.js';

/** What the driver needs of the node's storage (LevelStorage has this shape; the simulator's disk too). */
export interface DriverStorage {
  readonly memory: MemoryStorage;
  persist(batch: Persistable, opts: { sync: boolean }): Promise<void>;
  compact(snapshot: Snapshot): Promise<void>;
}

export interface RaftDriverOptions<R> {
  readonly id: NodeId;
  readonly voters: readonly NodeId[];
  readonly storage: DriverStorage;
  /** The node's time and timers (realClock unless given). */
  readonly clock?: Clock;
  readonly applier: Applier<R>;
  readonly logger: Logger;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly tickMs: number;
  /** Take a snapshot and compact the log every this many applied entries. */
  readonly snapshotEvery: number;
  /** Promote is refused until the learner is within this many entries of the commit index (RaftConfig.promoteMaxLag). */
  readonly promoteMaxLag?: number;
  /** Election jitter (Math.random by default): the core gets no randomness of its own. */
  readonly random?: (n: number) => number;
  /** A failed disk write or a broken invariant: the node must stop (default: exit the process). */
  readonly onFatal?: (e: Error) => void;
  /** The loop's own facts, for the observation layer (src/lockd/observe); listeners of applies and roles see the rest. */
  readonly observer?: (ev: DriverEvent) => void;
}

export class RaftDriver<R> {
  private readonly loop: DriverLoop<R>;
  private readonly transfers: LeaderTransfer;
  private timer: ClockTimer | undefined;
  private readonly clock: Clock;

  constructor(private readonly opts: RaftDriverOptions<R>) {
    const clock = (this.clock = opts.clock ?? realClock);
    this.loop = new DriverLoop<R>({
      id: opts.id,
      voters: opts.voters,
      raft: {
        electionTicks: opts.electionTicks,
        heartbeatTicks: opts.heartbeatTicks,
        random: opts.random ?? ((n) => Math.floor(Math.random() * n)), // jitter only; the core itself stays deterministic
        preVote: true,
        checkQuorum: true,
        ...(opts.promoteMaxLag !== undefined ? { promoteMaxLag: opts.promoteMaxLag } : {}),
      },
      storage: levelLoopStorage(opts.storage, opts.observer),
      applier: opts.applier,
      scheduler: { soon: (fn) => clock.soon(loopActivity.wrap('raft ready batch', fn)) },
      logger: opts.logger,
      snapshotEvery: opts.snapshotEvery,
      onFatal: (e) => this.fail(e),
      ...(opts.observer ? { observer: { persisted: (rd: Ready) => opts.observer!({ kind: 'persisted', rd }) } } : {}),
    });
    this.transfers = new LeaderTransfer(this.loop, clock);
  }

  setOutbox(outbox: Outbox): void {
    this.loop.setOutbox(outbox);
  }

  start(): void {
    this.timer = this.clock.every(this.opts.tickMs, () => this.loop.tick());
    const st = this.loop.status();
    this.opts.logger.info(
      { event: 'node started', term: st.term, applied: this.loop.appliedIndex(), snapshotIndex: this.opts.storage.memory.snapshot().metadata.index },
      'node started',
    );
  }

  async stop(): Promise<void> {
    this.timer?.clear();
    this.loop.stop();
    while (this.loop.busy) await new Promise<void>((r) => this.clock.soon(r));
  }

  // ---- inputs -------------------------------------------------------------------------------

  /** A message from a peer (called by the transport). */
  step(m: Message): void {
    this.loop.step(m);
  }

  reportUnreachable(id: NodeId): void {
    this.loop.reportUnreachable(id);
  }

  reportSnapshot(id: NodeId, ok: boolean): void {
    this.loop.reportSnapshot(id, ok);
  }

  /**
   * Replicate `data`; resolves with the applied result once the entry is committed and applied
   * here. Rejects with NotLeaderError when this node does not lead, ProposalLostError when another
   * leader's entry took its place (the outcome is then known: it did not happen).
   */
  propose(data: Uint8Array): Promise<{ index: number; result: R }> {
    return new Promise((resolve, reject) => this.loop.propose(data, { resolve, reject }));
  }

  /**
   * Propose a membership change; resolves once it is committed and applied here. Rejects with
   * NotLeaderError, ConfChangeError (refused: nothing changed) or ProposalLostError.
   */
  proposeConfChange(cc: ConfChange): Promise<{ index: number; result: R }> {
    return new Promise((resolve, reject) => this.loop.proposeConfChange(cc, { resolve, reject }));
  }

  /** Resolves when this node's applied state is at least as new as any write committed before the call (ReadIndex). */
  readBarrier(): Promise<void> {
    return new Promise((resolve, reject) => this.loop.readBarrier({ resolve, reject }));
  }

  /**
   * Leader only: hand leadership to `target` (undefined: the most caught-up voter) and resolve once
   * a leader other than this node is known, or after `boundMs` (leader-transfer.ts). Never rejects.
   */
  transferLeadership(target: NodeId | undefined, boundMs: number): Promise<TransferOutcome> {
    return this.transfers.transfer(target, boundMs);
  }

  // ---- observation --------------------------------------------------------------------------

  onApplied(l: AppliedListener<R>): void {
    this.loop.onApplied(l);
  }

  /** A snapshot replaced the applied state (driver-loop.ts). */
  onStateReplaced(l: StateReplacedListener): void {
    this.loop.onStateReplaced(l);
  }

  onRoleChange(l: RoleListener): void {
    this.loop.onRoleChange(l);
  }

  onMembership(l: MembershipListener): void {
    this.loop.onMembership(l);
  }

  onRemoved(l: RemovedListener): void {
    this.loop.onRemoved(l);
  }

  /** The configuration in effect at log index i (Infinity: the effective one). */
  configurationAt(i: number): ConfigurationAt {
    return this.loop.configurationAt(i);
  }

  selfRemoved(): boolean {
    return this.loop.selfRemoved();
  }

  isLeader(): boolean {
    return this.loop.isLeader();
  }

  leaderId(): NodeId {
    return this.loop.leaderId();
  }

  /** The Raft core's state (its role and term may be ahead of acting(): see DriverLoop). */
  status(): Status {
    return this.loop.status();
  }

  /** The role, leader and term this node acts on (routing uses the same). */
  acting(): ReturnType<DriverLoop<R>['acting']> {
    return this.loop.acting();
  }

  appliedIndex(): number {
    return this.loop.appliedIndex();
  }

  /** The term of log entry `i` (at the snapshot's index, the snapshot's term); throws for one compacted away or not in the log. */
  termAt(i: number): number {
    return this.opts.storage.memory.term(i);
  }

  /** What waits in the loop (a stall line reports it). */
  queued(): { inputs: number; proposals: number; reads: number } {
    return this.loop.queued();
  }

  private fail(e: Error): void {
    // A failed disk write or a broken invariant: stop rather than diverge (docs/design.md §2).
    this.opts.logger.fatal({ event: 'fatal', err: e }, 'node stopping: ' + e.message);
    this.timer?.clear();
    (this.opts.onFatal ?? (() => setImmediate(() => process.exit(70))))(e);
  }
}

/**
 * Marks a synced write's start and wraps its `done` to report its duration. The time includes a wait
 * behind an earlier write still in LevelStorage's queue (a compaction): both are the disk.
 */
function timed(observer: (ev: DriverEvent) => void, entries: number, done: (err?: Error) => void): (err?: Error) => void {
  observer({ kind: 'sync-started' });
  const t0 = performance.now();
  return (err) => {
    if (!err) observer({ kind: 'synced', ms: performance.now() - t0, entries });
    done(err);
  };
}

const UNSYNCED: DriverEvent = { kind: 'unsynced' };

/** LevelDB behind the loop's callback interface (LevelStorage serializes its writes in call order). */
function levelLoopStorage(storage: DriverStorage, observer?: (ev: DriverEvent) => void): LoopStorage {
  // What runs after a write (send, apply, answer proposals) is labelled as one task of the loop.
  const settle = (p: Promise<void>, done: (err?: Error) => void) =>
    p.then(
      () => loopActivity.run('raft after persist (send, apply)', () => done()),
      (e: unknown) => done(e instanceof Error ? e : new Error(String(e))),
    );
  return {
    memory: storage.memory,
    write: (batch, sync, done) => {
      if (!sync) observer?.(UNSYNCED);
      if (!observer || !sync) return void settle(storage.persist(batch, { sync }), done);
      const finish = timed(observer, batch.entries.length, done); // the clock starts before the write
      void settle(storage.persist(batch, { sync }), finish);
    },
    compact: (snapshot, done) => {
      const taken = (err?: Error) => {
        if (!err) observer?.({ kind: 'snapshot-taken', index: snapshot.metadata.index, bytes: snapshot.data.length });
        done(err);
      };
      const finish = observer ? timed(observer, 0, taken) : taken;
      void settle(storage.compact(snapshot), finish);
    },
  };
}
