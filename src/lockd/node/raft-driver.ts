// The loop that turns the pure Raft core into a running node (DESIGN.md §2):
//   ready() → persist (one synced LevelDB batch) → send → apply → advance().
// Input that arrives while a batch is being persisted (peer messages, ticks, proposals) waits in
// an inbox and joins the next batch: that is the group commit.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { RaftNode } from '../../raft/raft-node.js';
import { sendableBeforePersist, type Entry, type Message, type NodeId, type Ready, type Role, type Status } from '../../raft/types.js';
import type { LevelStorage } from '../storage/level-storage.js';
import { NotLeaderError, ProposalLostError } from './errors.js';

/** What the driver applies committed entries to (the lock state machine, or a test double). */
export interface Applier<R> {
  apply(entry: Entry): R;
  snapshot(): Uint8Array;
  restore(data: Uint8Array, index: number): void;
}

export interface Outbox {
  send(messages: readonly Message[]): void;
}

export interface RaftDriverOptions<R> {
  readonly id: NodeId;
  readonly voters: readonly NodeId[];
  readonly storage: LevelStorage;
  readonly applier: Applier<R>;
  readonly logger: Logger;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly tickMs: number;
  /** Take a snapshot and compact the log every this many applied entries. */
  readonly snapshotEvery: number;
  /** Election jitter (Math.random by default): the core gets no randomness of its own. */
  readonly random?: (n: number) => number;
  /** A failed disk write or a broken invariant: the node must stop (default: exit the process). */
  readonly onFatal?: (e: Error) => void;
  /** What the loop did that listeners of applies and roles do not see (the observation layer, src/lockd/observe). */
  readonly observer?: (ev: DriverEvent) => void;
}

/** The loop's own facts, for the observation layer: a synced write, the log's and commit's progress, snapshots. */
export type DriverEvent =
  | { readonly kind: 'sync-started' }
  | { readonly kind: 'synced'; readonly ms: number; readonly entries: number }
  | { readonly kind: 'appended'; readonly entries: readonly Entry[] }
  | { readonly kind: 'committed'; readonly commit: number }
  | { readonly kind: 'term'; readonly term: number; readonly from: number; readonly vote: NodeId }
  | { readonly kind: 'snapshot'; readonly how: 'taken' | 'installed'; readonly index: number; readonly bytes: number };

interface PendingProposal<R> {
  readonly term: number;
  resolve(r: { index: number; result: R }): void;
  reject(e: Error): void;
}

interface PendingRead {
  resolve(): void;
  reject(e: Error): void;
  index?: number;
}

export type AppliedListener<R> = (entry: Entry, result: R) => void;
export type RoleListener = (role: Role, leader: NodeId, term: number) => void;

export class RaftDriver<R> {
  private readonly raft: RaftNode;
  private outbox: Outbox = { send: () => {} };
  private readonly inbox: Array<() => void> = [];
  private processing = false;
  private scheduled = false;
  private stopped = false;
  private failed: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly proposals = new Map<number, PendingProposal<R>>();
  private readonly reads = new Map<string, PendingRead>();
  /** Reads whose read index is known, waiting for applied to reach it. */
  private readonly readsAwaitingApply: PendingRead[] = [];
  private readSeq = 0;
  private applied: number;
  private snapshotIndex: number;
  private role: Role = 'follower';
  private leader: NodeId = '';
  /** Term and vote as last handed to storage: a change must be on disk before any message. */
  private term: number;
  private vote: NodeId;
  private readonly appliedListeners: AppliedListener<R>[] = [];
  private readonly roleListeners: RoleListener[] = [];

  constructor(private readonly opts: RaftDriverOptions<R>) {
    const memory = opts.storage.memory;
    const snap = memory.snapshot();
    if (snap.metadata.index > 0) opts.applier.restore(snap.data, snap.metadata.index);
    this.applied = this.snapshotIndex = snap.metadata.index;
    this.raft = new RaftNode({
      id: opts.id,
      peers: opts.voters,
      storage: memory,
      electionTick: opts.electionTicks,
      heartbeatTick: opts.heartbeatTicks,
      random: opts.random ?? ((n) => Math.floor(Math.random() * n)), // jitter only; the core itself stays deterministic
      applied: this.applied,
      preVote: true,
      checkQuorum: true,
    });
    this.term = memory.hardState().term;
    this.vote = memory.hardState().vote;
  }

  setOutbox(outbox: Outbox): void {
    this.outbox = outbox;
  }

  start(): void {
    this.timer = setInterval(() => this.input(() => this.raft.tick()), this.opts.tickMs);
    this.opts.logger.info({ event: 'node started', term: this.term, applied: this.applied, snapshotIndex: this.snapshotIndex }, 'node started');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const err = new Error('node is shutting down');
    for (const p of this.proposals.values()) p.reject(err);
    for (const r of this.reads.values()) r.reject(err);
    for (const r of this.readsAwaitingApply) r.reject(err);
    this.proposals.clear();
    this.reads.clear();
    this.readsAwaitingApply.length = 0;
    while (this.processing) await new Promise((r) => setImmediate(r));
  }

  // ---- inputs -------------------------------------------------------------------------------

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

  /**
   * Replicate `data`; resolves with the applied result once the entry is committed and applied
   * here. Rejects with NotLeaderError when this node does not lead, ProposalLostError when another
   * leader's entry took its place (the outcome is then known: it did not happen).
   */
  propose(data: Uint8Array): Promise<{ index: number; result: R }> {
    return new Promise((resolve, reject) => {
      this.input(() => {
        const at = this.raft.propose(data);
        if (!at) {
          reject(new NotLeaderError(this.leader));
          return;
        }
        // An older proposal at this index (from an earlier term of ours) was overwritten.
        this.proposals.get(at.index)?.reject(new ProposalLostError(at.index));
        this.proposals.set(at.index, { term: at.term, resolve, reject });
      });
    });
  }

  /** Resolves when this node's applied state is at least as new as any write committed before the call (ReadIndex). */
  readBarrier(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.input(() => {
        const ctx = `${this.opts.id}/${++this.readSeq}`;
        if (!this.raft.readIndex(ctx)) {
          reject(new NotLeaderError(this.leader));
          return;
        }
        this.reads.set(ctx, { resolve, reject });
      });
    });
  }

  // ---- observation --------------------------------------------------------------------------

  onApplied(l: AppliedListener<R>): void {
    this.appliedListeners.push(l);
  }

  onRoleChange(l: RoleListener): void {
    this.roleListeners.push(l);
  }

  isLeader(): boolean {
    return this.role === 'leader';
  }

  leaderId(): NodeId {
    return this.leader;
  }

  status(): Status {
    return this.raft.status();
  }

  appliedIndex(): number {
    return this.applied;
  }

  // ---- the loop -----------------------------------------------------------------------------

  private input(fn: () => void): void {
    if (this.stopped) return;
    this.inbox.push(fn);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.processing || this.failed) return;
    this.scheduled = true;
    // setImmediate lets every input of this event-loop turn join one batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.runBatch();
    });
  }

  private async runBatch(): Promise<void> {
    if (this.processing || this.stopped) return;
    this.processing = true;
    try {
      for (const fn of this.inbox.splice(0)) fn();
      if (this.raft.hasReady()) await this.handleReady(this.raft.ready());
    } catch (e) {
      this.fail(e as Error);
      return;
    } finally {
      this.processing = false;
    }
    if (this.inbox.length > 0 || this.raft.hasReady()) this.schedule();
  }

  private async handleReady(rd: Ready): Promise<void> {
    // 0. leader replication may go out while our own disk write runs (it acknowledges nothing)
    const early = rd.messages.filter(sendableBeforePersist);
    if (early.length > 0) this.outbox.send(early);
    // 1. durable first: nothing below may acknowledge what is not on disk. A batch whose only
    // change is the commit index needs no wait: a lagging stored commit is learned again.
    const hs = rd.hardState;
    const termOrVoteChanged = hs !== undefined && (hs.term !== this.term || hs.vote !== this.vote);
    if (rd.entries.length > 0 || rd.snapshot || termOrVoteChanged) await this.syncedPersist(rd);
    else if (hs) this.opts.storage.persist(rd).catch((e: unknown) => this.fail(e as Error));
    if (rd.entries.length > 0) this.opts.observer?.({ kind: 'appended', entries: rd.entries });
    if (hs && hs.term !== this.term) {
      this.opts.logger.info({ event: 'term changed', term: hs.term, from: this.term, vote: hs.vote }, 'term changed');
      this.opts.observer?.({ kind: 'term', term: hs.term, from: this.term, vote: hs.vote });
    }
    if (hs) this.opts.observer?.({ kind: 'committed', commit: hs.commit });
    if (hs) {
      this.term = hs.term;
      this.vote = hs.vote;
    }
    // 2. send the rest (acknowledgments, votes)
    const late = early.length > 0 ? rd.messages.filter((m) => !sendableBeforePersist(m)) : rd.messages;
    if (late.length > 0) this.outbox.send(late);
    // 3. apply
    if (rd.snapshot) this.installSnapshot(rd.snapshot.data, rd.snapshot.metadata.index);
    for (const e of rd.committedEntries) this.applyEntry(e);
    for (const rs of rd.readStates) {
      const r = this.reads.get(rs.context);
      if (!r) continue;
      this.reads.delete(rs.context);
      r.index = rs.index;
      this.readsAwaitingApply.push(r);
    }
    this.releaseReads();
    if (rd.softState) this.changeRole(rd.softState.role, rd.softState.leader);
    await this.maybeSnapshot();
    // 4. acknowledge
    this.raft.advance(rd);
  }

  /** The synced write, timed: lockd_disk_sync_duration_seconds, and /livez's stalled-disk bound. */
  private async syncedPersist(rd: Ready): Promise<void> {
    const observer = this.opts.observer;
    if (!observer) return this.opts.storage.persist(rd);
    observer({ kind: 'sync-started' });
    const t0 = performance.now();
    await this.opts.storage.persist(rd);
    observer({ kind: 'synced', ms: performance.now() - t0, entries: rd.entries.length });
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
    this.opts.observer?.({ kind: 'snapshot', how: 'installed', index, bytes: data.length });
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
    if (role === 'leader' && was !== 'leader') this.opts.logger.info({ event: 'elected', ...fields }, 'elected leader');
    else if (was === 'leader' && role !== 'leader') this.opts.logger.warn({ event: 'stepped down', role, ...fields }, 'stepped down');
    else this.opts.logger.info({ event: 'role', role, ...fields }, `${role}${leader ? ` of ${leader}` : ''}`);
    if (was === 'leader' && role !== 'leader') {
      // Reads are side-effect free: failing them is always safe (the client retries elsewhere).
      const err = new NotLeaderError(leader);
      for (const r of this.reads.values()) r.reject(err);
      this.reads.clear();
    }
    for (const l of this.roleListeners) l(role, leader, st.term);
  }

  private async maybeSnapshot(): Promise<void> {
    if (this.applied - this.snapshotIndex < this.opts.snapshotEvery) return;
    const memory = this.opts.storage.memory;
    const index = this.applied;
    const snapshot = {
      metadata: { index, term: memory.term(index), voters: memory.snapshot().metadata.voters },
      data: this.opts.applier.snapshot(),
    };
    await this.opts.storage.compact(snapshot);
    this.snapshotIndex = index;
    this.opts.logger.info({ event: 'snapshot taken', term: this.term, index, bytes: snapshot.data.length }, 'snapshot taken, log compacted');
    this.opts.observer?.({ kind: 'snapshot', how: 'taken', index, bytes: snapshot.data.length });
  }

  private fail(e: Error): void {
    // A failed disk write or a broken invariant: stop rather than diverge (DESIGN.md §2).
    this.failed = e;
    this.opts.logger.fatal({ event: 'fatal', err: e }, 'node stopping: ' + e.message);
    if (this.timer) clearInterval(this.timer);
    (this.opts.onFatal ?? (() => setImmediate(() => process.exit(70))))(e);
  }
}
