// The loop that turns the pure Raft core into a running node (docs/design.md §2):
//   ready() → persist → send → apply → advance().
// Deterministic and callback-driven: no timers, no promises. Everything outside — the disk, the
// network, the scheduler that runs the next batch — is injected, so RaftDriver runs it on LevelDB,
// gRPC and setImmediate, and the simulator (test/sim) runs the very same code on its simulated disk,
// network and clock under a seed.
//
// Input that arrives while a batch is being persisted (peer messages, ticks, proposals) waits in the
// inbox and joins the next batch: that is the group commit.
import type { Logger } from 'pino';
import type { MemoryStorage } from '../../raft/memory-storage.js';
import { ConfChangeError, type ConfChange } from '../../raft/membership.js';
import { RaftNode } from '../../raft/raft-node.js';
import {
  sendableBeforePersist,
  type Entry,
  type HardState,
  type Message,
  type NodeId,
  type RaftConfig,
  type Ready,
  type Role,
  type Snapshot,
  type SnapshotMetadata,
  type Status,
} from '../../raft/types.js';
import { NotLeaderError, ProposalLostError } from './proposal-errors.js';
import { planPersist, type Persistable } from './persist-plan.js';

/** What the driver applies committed entries to (the lock state machine, or a test double). */
export interface Applier<R> {
  apply(entry: Entry): R;
  snapshot(): Uint8Array;
  restore(data: Uint8Array, index: number): void;
}

export interface Outbox {
  send(messages: readonly Message[]): void;
}

export type { Persistable } from './persist-plan.js';

/**
 * The node's durable log. Writes take effect in call order; `memory` (the synchronous mirror the
 * core reads) changes only once a write is done. `done` may be called synchronously or later.
 */
export interface LoopStorage {
  readonly memory: MemoryStorage;
  /** One atomic batch; `sync`: on stable storage (fsync) before `done`, otherwise it may be lost in a power cut. */
  write(batch: Persistable, sync: boolean, done: (err?: Error) => void): void;
  /** Store an application snapshot and drop the entries it covers (synced). */
  compact(snapshot: Snapshot, done: (err?: Error) => void): void;
}

/** Runs `fn` soon, after the current input (RaftDriver: setImmediate; the simulator: its next step). */
export interface Scheduler {
  soon(fn: () => void): void;
}

/** Points of a batch the simulator watches (checks, traces, crashes); RaftDriver needs none. */
export interface LoopObserver {
  /** A Ready was just taken from the core; nothing of it sent or written yet. */
  readyTaken?(rd: Ready): void;
  /** Its durable parts are written and synced (a commit-only hard state is not written: it goes with the next synced write). */
  persisted?(rd: Ready): void;
  /** Its messages are all sent; nothing applied yet. */
  sent?(rd: Ready): void;
}

export type RaftSettings = Pick<
  RaftConfig,
  | 'electionTicks'
  | 'heartbeatTicks'
  | 'random'
  | 'preVote'
  | 'checkQuorum'
  | 'maxSizePerMsg'
  | 'maxInflightMsgs'
  | 'promoteMaxLag'
  | 'plantedBug'
  | 'snapshotOnReject'
>;

export interface DriverLoopOptions<R> {
  readonly id: NodeId;
  /** Voters of a fresh cluster; a snapshot in storage overrides them. */
  readonly voters: readonly NodeId[];
  readonly raft: RaftSettings;
  readonly storage: LoopStorage;
  readonly applier: Applier<R>;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  /** Take a snapshot and compact the log every this many applied entries. */
  readonly snapshotEvery: number;
  /** A failed disk write or a thrown error (a broken invariant): the node must stop. Called once. */
  readonly onFatal: (e: Error) => void;
  readonly observer?: LoopObserver;
}

export interface ProposalCallbacks<R> {
  /** The core appended the entry here (it commits only if it stays there). */
  accepted?(at: { index: number; term: number }): void;
  resolve(r: { index: number; result: R }): void;
  reject(e: Error): void;
}

export interface ReadCallbacks {
  resolve(): void;
  reject(e: Error): void;
}

interface PendingProposal<R> extends ProposalCallbacks<R> {
  readonly term: number;
}

interface PendingRead extends ReadCallbacks {
  index?: number;
}

export type AppliedListener<R> = (entry: Entry, result: R) => void;
/**
 * The applied state was replaced wholesale by a snapshot at `index` (a follower catching up): no
 * per-entry result or event exists for what it skipped, so whoever follows the state reconciles.
 */
export type StateReplacedListener = (index: number) => void;
export type RoleListener = (role: Role, leader: NodeId, term: number) => void;
/**
 * A config entry reached this node's disk (`committed` false: it is in effect here from now on,
 * committed or not) or was committed and applied (`committed` true). A snapshot's configuration
 * arrives as `snapshot` instead (no entry). The listener reads what it needs with configurationAt().
 */
export type MembershipListener = (ev: { readonly entry?: Entry; readonly committed: boolean; readonly snapshot?: boolean }) => void;
/** This node's own log says, committed, that it was removed from the cluster: it must stop. */
export type RemovedListener = () => void;
/** The configuration a snapshot at some index carries (RaftNode.configurationAt). */
export type ConfigurationAt = Pick<SnapshotMetadata, 'voters' | 'learners' | 'removed' | 'configIndex'>;

export class DriverLoop<R> {
  private readonly raft: RaftNode;
  private outbox: Outbox = { send: () => {} };
  /** Inputs for the next batch; `drop` answers one that will never run (the loop stopped or failed). */
  private readonly inbox: Array<{ readonly run: () => void; readonly drop?: (e: Error) => void }> = [];
  /** A batch is between ready() and advance() (its write may be in flight). */
  private processing = false;
  private scheduled = false;
  private stopped = false;
  private failed: Error | undefined;
  private readonly proposals = new Map<number, PendingProposal<R>>();
  private readonly reads = new Map<string, PendingRead>();
  /** Reads whose read index is known, waiting for applied to reach it. */
  private readonly readsAwaitingApply: PendingRead[] = [];
  private readSeq = 0;
  private applied: number;
  private snapshotIndex: number;
  /** The role this node acts on (routing, the lease clock): the core's, as of the last batch on disk. */
  private role: Role = 'follower';
  private leader: NodeId = '';
  /** The term on disk that goes with `role` (the core may be in a newer one whose write is in flight). */
  private roleTerm: number;
  /** Term as last handed to storage (for the logs). */
  private term: number;
  /** The newest hard state handed out and not yet written (a commit-only change waits for the next synced write). */
  private unwrittenHard: HardState | undefined;
  private readonly appliedListeners: AppliedListener<R>[] = [];
  private readonly replacedListeners: StateReplacedListener[] = [];
  private readonly roleListeners: RoleListener[] = [];
  private readonly membershipListeners: MembershipListener[] = [];
  private readonly removedListeners: RemovedListener[] = [];
  private removedSeen = false;

  constructor(private readonly opts: DriverLoopOptions<R>) {
    const memory = opts.storage.memory;
    const snap = memory.snapshot();
    if (snap.metadata.index > 0) opts.applier.restore(snap.data, snap.metadata.index);
    this.applied = this.snapshotIndex = snap.metadata.index;
    this.raft = new RaftNode({ ...opts.raft, id: opts.id, peers: opts.voters, storage: memory, applied: this.applied });
    this.term = this.roleTerm = memory.hardState().term;
  }

  setOutbox(outbox: Outbox): void {
    this.outbox = outbox;
  }

  /** Stop taking input and fail everything pending; a batch under way still completes (see busy). */
  stop(): void {
    this.stopped = true;
    const err = new Error('node is shutting down');
    // Input queued for a batch that will never run is answered too: a proposal that arrived in the
    // same event-loop turn as the SIGTERM would otherwise wait for its caller's deadline (seen: a
    // forwarded Acquire held 833 ms, until the listener's shutdown grace cut the connection).
    for (const i of this.inbox.splice(0)) i.drop?.(err);
    for (const p of this.proposals.values()) p.reject(err);
    for (const r of this.reads.values()) r.reject(err);
    for (const r of this.readsAwaitingApply) r.reject(err);
    this.proposals.clear();
    this.reads.clear();
    this.readsAwaitingApply.length = 0;
  }

  /** A batch is under way (between ready() and advance()). */
  get busy(): boolean {
    return this.processing;
  }

  /** What waits in the loop: inputs not yet stepped, proposals and reads not yet answered. */
  queued(): { inputs: number; proposals: number; reads: number } {
    return { inputs: this.inbox.length, proposals: this.proposals.size, reads: this.reads.size + this.readsAwaitingApply.length };
  }

  // ---- inputs (each runs in the next batch) ---------------------------------------------------

  tick(): void {
    this.input(this.tickInput);
  }

  private readonly tickInput = (): void => this.raft.tick();

  /** A message from a peer (called by the transport). */
  step(m: Message): void {
    this.input(() => this.raft.step(m));
  }

  reportUnreachable(id: NodeId): void {
    this.input(() => this.raft.reportUnreachable(id));
  }

  reportSnapshot(id: NodeId, ok: boolean): void {
    this.input(() => this.raft.reportSnapshot(id, ok));
  }

  /** Start an election now. No API calls it yet; the simulator does. */
  campaign(): void {
    this.input(() => this.raft.campaign());
  }

  /** Hand leadership to `to`; `done(false)` if this node does not lead or `to` is no voter (node/leader-transfer.ts, the simulator). */
  transferLeader(to: NodeId, done?: (accepted: boolean) => void): void {
    this.input(
      () => done?.(this.raft.transferLeader(to)),
      () => done?.(false),
    );
  }

  /**
   * Replicate `data`; resolves with the applied result once the entry is committed and applied
   * here. Rejects with NotLeaderError when this node does not lead, ProposalLostError when another
   * leader's entry took its place (the outcome is then known: it did not happen).
   */
  propose(data: Uint8Array, cb: ProposalCallbacks<R>): void {
    this.input(() => {
      const at = this.raft.propose(data);
      if (!at) {
        cb.reject(new NotLeaderError(this.leader));
        return;
      }
      // An older proposal at this index (from an earlier term of ours) was overwritten.
      this.proposals.get(at.index)?.reject(new ProposalLostError(at.index));
      this.proposals.set(at.index, { ...cb, term: at.term });
      cb.accepted?.(at);
    }, cb.reject);
  }

  /**
   * Propose a single-server membership change (src/raft/membership.ts). Rejects with NotLeaderError
   * when this node does not lead, ConfChangeError (nothing changed) when the core refuses it, and
   * like propose() once it is in the log: resolved when committed and applied here.
   */
  proposeConfChange(cc: ConfChange, cb: ProposalCallbacks<R>): void {
    this.input(() => {
      let at: { index: number; term: number };
      try {
        at = this.raft.proposeConfChange(cc);
      } catch (e) {
        if (e instanceof ConfChangeError && e.reason === 'not-leader') return cb.reject(new NotLeaderError(this.leader));
        if (e instanceof ConfChangeError) return cb.reject(e);
        throw e;
      }
      this.proposals.get(at.index)?.reject(new ProposalLostError(at.index));
      this.proposals.set(at.index, { ...cb, term: at.term });
      cb.accepted?.(at);
    }, cb.reject);
  }

  /** Resolves when this node's applied state is at least as new as any write committed before the call (ReadIndex). */
  readBarrier(cb: ReadCallbacks): void {
    this.input(() => {
      const ctx = `${this.opts.id}/${++this.readSeq}`;
      if (!this.raft.readIndex(ctx)) {
        cb.reject(new NotLeaderError(this.leader));
        return;
      }
      this.reads.set(ctx, { resolve: cb.resolve, reject: cb.reject });
    }, cb.reject);
  }

  // ---- observation --------------------------------------------------------------------------

  onApplied(l: AppliedListener<R>): void {
    this.appliedListeners.push(l);
  }

  /** A snapshot replaced the applied state (not called for the one restored at start: nothing listened then). */
  onStateReplaced(l: StateReplacedListener): void {
    this.replacedListeners.push(l);
  }

  onRoleChange(l: RoleListener): void {
    this.roleListeners.push(l);
  }

  onMembership(l: MembershipListener): void {
    this.membershipListeners.push(l);
  }

  onRemoved(l: RemovedListener): void {
    this.removedListeners.push(l);
  }

  /** The configuration in effect at log index i (at least the snapshot's index); Infinity: the effective one. */
  configurationAt(i: number): ConfigurationAt {
    return this.raft.configurationAt(i);
  }

  /** This node's committed configuration removed it (it must not run on). */
  selfRemoved(): boolean {
    return this.raft.status().selfRemoved;
  }

  isLeader(): boolean {
    return this.role === 'leader';
  }

  leaderId(): NodeId {
    return this.leader;
  }

  /** The core's state: its role and term change as soon as a batch is taken, before the batch is on disk. */
  status(): Status {
    return this.raft.status();
  }

  /**
   * The role this node acts on, with its leader and term: what a user must be told (Cluster.Status).
   * It changes only once the batch that changed it is written, so a node never claims a term it
   * could lose in a crash, and a stepped-down leader still routing calls to itself still says so.
   */
  acting(): { readonly role: Role; readonly leader: NodeId; readonly term: number } {
    return { role: this.role, leader: this.leader, term: this.roleTerm };
  }

  appliedIndex(): number {
    return this.applied;
  }

  // ---- the loop -----------------------------------------------------------------------------

  /** Queue `run` for the next batch; once the loop has stopped or failed, `drop` answers it at once instead. */
  private input(run: () => void, drop?: (e: Error) => void): void {
    if (this.stopped || this.failed) {
      drop?.(this.failed ?? new Error('node is shutting down'));
      return;
    }
    this.inbox.push({ run, drop });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.processing || this.failed) return;
    this.scheduled = true;
    // RaftDriver's scheduler (setImmediate) lets every input of one event-loop turn join one batch.
    this.opts.scheduler.soon(() => {
      this.scheduled = false;
      this.runBatch();
    });
  }

  private runBatch(): void {
    if (this.processing || this.stopped || this.failed) return;
    this.guard(() => {
      for (const i of this.inbox.splice(0)) i.run();
      if (!this.raft.hasReady()) return;
      this.processing = true;
      this.handleReady(this.raft.ready());
    });
  }

  private handleReady(rd: Ready): void {
    this.opts.observer?.readyTaken?.(rd);
    // 0. leader replication may go out while our own disk write runs (it acknowledges nothing), but
    // never ahead of a new term or vote (the core's rule, sendableBeforePersist): a one-voter node
    // campaigns, wins and replicates to its learners in one batch, and a crash before the write would
    // let it lead that term a second time.
    const early: Message[] = [];
    const late: Message[] = [];
    for (const m of rd.messages) (sendableBeforePersist(rd, m) ? early : late).push(m);
    if (early.length > 0) this.outbox.send(early);
    // 1. durable first: nothing below may acknowledge what is not on disk (persist-plan.ts: what is
    // written, and when a commit-only hard state waits for the next write).
    const hs = rd.hardState;
    if (hs && hs.term !== this.term) this.opts.logger.info({ event: 'term changed', term: hs.term, from: this.term, vote: hs.vote }, 'term changed');
    if (hs) this.term = hs.term;
    const plan = planPersist(rd, this.unwrittenHard);
    this.unwrittenHard = plan.unwrittenHard;
    const batch: Persistable | undefined = plan.write;
    if (!batch) {
      this.afterPersist(rd, late);
      return;
    }
    this.opts.storage.write(batch, true, (err) =>
      this.guard(() => {
        if (err) throw err;
        this.afterPersist(rd, late);
      }),
    );
  }

  private afterPersist(rd: Ready, late: readonly Message[]): void {
    if (rd.hardState) this.roleTerm = rd.hardState.term;
    this.opts.observer?.persisted?.(rd);
    // 2. send the rest (acknowledgments, votes)
    if (late.length > 0) this.outbox.send(late);
    this.opts.observer?.sent?.(rd);
    // 3. apply
    for (const e of rd.entries) if (e.type === 'config') this.membershipChanged({ entry: e, committed: false });
    if (rd.snapshot) {
      this.installSnapshot(rd.snapshot.data, rd.snapshot.metadata.index);
      this.membershipChanged({ committed: true, snapshot: true });
    }
    for (const e of rd.committedEntries) {
      this.applyEntry(e);
      if (e.type === 'config') this.membershipChanged({ entry: e, committed: true });
    }
    for (const rs of rd.readStates) {
      const r = this.reads.get(rs.context);
      if (!r) continue;
      this.reads.delete(rs.context);
      r.index = rs.index;
      this.readsAwaitingApply.push(r);
    }
    this.releaseReads();
    if (rd.softState) this.changeRole(rd.softState.role, rd.softState.leader);
    if (rd.softState?.removed && !this.removedSeen) {
      this.removedSeen = true;
      for (const l of this.removedListeners) l();
    }
    this.maybeSnapshot(() => this.finish(rd));
  }

  /** 4. acknowledge, and start the next batch if anything is waiting. */
  private finish(rd: Ready): void {
    this.raft.advance(rd);
    this.processing = false;
    if (this.inbox.length > 0 || this.raft.hasReady()) this.schedule();
  }

  private applyEntry(e: Entry): void {
    const result = this.opts.applier.apply(e);
    this.applied = e.index;
    const p = this.proposals.get(e.index);
    if (p) {
      this.proposals.delete(e.index);
      if (p.term === e.term) p.resolve({ index: e.index, result });
      else p.reject(new ProposalLostError(e.index));
    }
    for (const l of this.appliedListeners) l(e, result);
  }

  private membershipChanged(ev: Parameters<MembershipListener>[0]): void {
    for (const l of this.membershipListeners) l(ev);
  }

  private installSnapshot(data: Uint8Array, index: number): void {
    this.opts.applier.restore(data, index);
    this.applied = this.snapshotIndex = index;
    // Proposals the snapshot jumped over: whether they made it is unknown here.
    for (const [i, p] of this.proposals) {
      if (i > index) continue;
      this.proposals.delete(i);
      p.reject(new ProposalLostError(i, true));
    }
    this.opts.logger.info({ event: 'snapshot installed', term: this.term, index }, 'snapshot installed');
    for (const l of this.replacedListeners) l(index);
  }

  private releaseReads(): void {
    for (let k = this.readsAwaitingApply.length - 1; k >= 0; k--) {
      const r = this.readsAwaitingApply[k];
      if (r.index! <= this.applied) {
        this.readsAwaitingApply.splice(k, 1);
        r.resolve();
      }
    }
  }

  private changeRole(role: Role, leader: NodeId): void {
    const was = this.role;
    this.role = role;
    this.leader = leader;
    const st = this.raft.status();
    const fields = { term: st.term, commit: st.commit, applied: this.applied, leader };
    const log = this.opts.logger;
    if (role === 'leader' && was !== 'leader') log.info({ event: 'elected', ...fields }, 'elected leader');
    else if (was === 'leader' && role !== 'leader') log.warn({ event: 'stepped down', role, ...fields }, 'stepped down');
    else log.info({ event: 'role', role, ...fields }, `${role}${leader ? ` of ${leader}` : ''}`);
    if (was === 'leader' && role !== 'leader') {
      // Reads are side-effect free: failing them is always safe (the client retries elsewhere).
      const err = new NotLeaderError(leader);
      for (const r of this.reads.values()) r.reject(err);
      this.reads.clear();
    }
    for (const l of this.roleListeners) l(role, leader, st.term);
  }

  private maybeSnapshot(then: () => void): void {
    if (this.applied - this.snapshotIndex < this.opts.snapshotEvery) {
      then();
      return;
    }
    const memory = this.opts.storage.memory;
    const index = this.applied;
    const snapshot = {
      // The configuration in effect at `index` goes with it: the log before it (and its config entries) is dropped.
      metadata: { index, term: memory.term(index), ...this.raft.configurationAt(index) },
      data: this.opts.applier.snapshot(),
    };
    this.opts.storage.compact(snapshot, (err) =>
      this.guard(() => {
        if (err) throw err;
        this.snapshotIndex = index;
        this.opts.logger.info({ event: 'snapshot taken', term: this.term, index, bytes: snapshot.data.length }, 'snapshot taken, log compacted');
        then();
      }),
    );
  }

  /** Every entry point of the loop: anything thrown stops the node (docs/design.md §2: stop rather than diverge). */
  private guard(fn: () => void): void {
    if (this.failed) return;
    try {
      fn();
    } catch (e) {
      if (this.failed) throw e; // onFatal rethrew it (the simulator does): let it through an enclosing guard
      this.fail(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private fail(e: Error): void {
    if (this.failed) return;
    this.failed = e;
    this.processing = false; // nothing more will run: stop() must not wait for this batch
    this.opts.onFatal(e);
  }
}
