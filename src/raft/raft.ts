// The Raft protocol (Ongaro & Ousterhout, "In Search of an Understandable Consensus Algorithm",
// and Ongaro's thesis): roles, terms, votes, replication, commit, ReadIndex, leader transfer. It
// reacts to inputs by changing its state and queueing messages; turning that into Ready batches,
// and what was handed out into what is durable, is RaftNode's job (raft-node.ts, as etcd's
// rawnode.go is to raft.go). Pure: no I/O, no clock, no randomness of its own. Membership changes
// are single-server and in effect when appended (src/raft/README.md, membership.ts).
import { ConfigLog, isVoter } from './config-log.js';
import { ConfChangeError, applyChange, encodeConfigEntry, type ConfChange, type Configuration, type IndexedConfiguration } from './membership.js';
import { committedIndex, quorumSize, voteResult } from './quorum.js';
import { Progress } from './progress.js';
import { RaftLog } from './raft-log.js';
import { ReadOnlyQueue } from './read-only.js';
import {
  CompactedError,
  NONE,
  invariant,
  message,
  type Entry,
  type HardState,
  type Message,
  type MessageType,
  type NodeId,
  type ProgressView,
  type RaftConfig,
  type ReadState,
  type Role,
  type SnapshotMetadata,
  type SoftState,
  type Status,
} from './types.js';

const DEFAULT_MAX_SIZE_PER_MSG = 1 << 20;
const DEFAULT_MAX_INFLIGHT = 256;
/** Default RaftConfig.promoteMaxLag: a learner this close to the commit index may be promoted. */
export const PROMOTE_MAX_LAG = 1000;
/** Marks a vote request caused by leader transfer: voters must not ignore it for being "in lease". */
const TRANSFER_CONTEXT = 'transfer';

export class Raft {
  readonly id: NodeId;
  private term = 0;
  private vote: NodeId = NONE;
  private leader: NodeId = NONE;
  private role: Role = 'follower';
  /** Every configuration the log holds; the last one is in effect (config-log.ts). */
  private readonly configs: ConfigLog;
  readonly log: RaftLog;
  /** Leader: every member of a configuration from the committed one on (syncProgress). */
  private prs = new Map<NodeId, Progress>();
  private readonly votes = new Map<NodeId, boolean>();
  /** Output not yet handed out: RaftNode takes it in ready(). */
  msgs: Message[] = [];
  readStates: ReadState[] = [];
  private readonly readOnly = new ReadOnlyQueue();
  /** ReadIndex requests that arrived before this leader committed an entry of its own term. */
  private pendingReadContexts: string[] = [];
  private electionElapsed = 0;
  private heartbeatElapsed = 0;
  private randomizedElectionTimeout = 0;
  private leadTransferee: NodeId = NONE;
  /** ReadIndex requests await a heartbeat round: one round, in ready(), serves all of this batch. */
  private readRoundPending = false;

  private readonly electionTicks: number;
  private readonly heartbeatTicks: number;
  private readonly maxSizePerMsg: number;
  private readonly maxInflight: number;
  private readonly preVote: boolean;
  private readonly checkQuorum: boolean;
  private readonly promoteMaxLag: number;

  constructor(private readonly cfg: RaftConfig) {
    invariant(cfg.id !== NONE, 'node id is set', cfg.id, () => 'empty node id');
    invariant(
      cfg.heartbeatTicks > 0 && cfg.electionTicks > cfg.heartbeatTicks,
      'election tick > heartbeat tick',
      cfg.id,
      () => `election ${cfg.electionTicks}, heartbeat ${cfg.heartbeatTicks}`,
    );
    this.id = cfg.id;
    this.electionTicks = cfg.electionTicks;
    this.heartbeatTicks = cfg.heartbeatTicks;
    this.maxSizePerMsg = cfg.maxSizePerMsg ?? DEFAULT_MAX_SIZE_PER_MSG;
    this.maxInflight = cfg.maxInflightMsgs ?? DEFAULT_MAX_INFLIGHT;
    this.preVote = cfg.preVote ?? true;
    this.checkQuorum = cfg.checkQuorum ?? true;
    this.promoteMaxLag = cfg.promoteMaxLag ?? PROMOTE_MAX_LAG;

    const { hardState, voters } = cfg.storage.initialState();
    const snapMeta = cfg.storage.snapshot().metadata;
    // No voters at all is a node joining an existing cluster: it never campaigns, and learns the
    // membership from the leader (a snapshot's metadata, or the first config entry it appends).
    this.configs = new ConfigLog(configurationOf({ ...snapMeta, voters: voters.length > 0 ? voters : cfg.peers }), this.id);
    this.log = new RaftLog(cfg.storage, this.id, (ents) => this.configs.appended(ents));
    // Config entries in the stored log are in effect, committed or not (thesis §4.1).
    const first = cfg.storage.firstIndex();
    const last = cfg.storage.lastIndex();
    if (last >= first) this.configs.appended(cfg.storage.entries(first, last + 1));
    if (hardState.term > 0 || hardState.vote !== NONE || hardState.commit > 0) {
      invariant(
        hardState.commit <= this.log.lastIndex(),
        'stored commit within log',
        this.id,
        () => `commit ${hardState.commit} beyond the last index ${this.log.lastIndex()}`,
      );
      // The stored commit may lag the snapshot (a commit-only hard state is not written); a
      // snapshot covers only committed entries, so its index is committed too.
      this.log.committed = Math.max(hardState.commit, this.log.committed);
      this.term = hardState.term;
      this.vote = hardState.vote;
    }
    if (cfg.applied) this.log.appliedTo(cfg.applied);
    this.becomeFollower(this.term, NONE);
  }

  // ---- inputs -------------------------------------------------------------------------------

  /** One unit of logical time. The driver calls it on its own timer; the core never reads a clock. */
  tick(): void {
    if (this.role === 'leader') this.tickHeartbeat();
    else this.tickElection();
  }

  /** Start an election now (as if the election timeout had passed). */
  campaign(): void {
    this.hup(false);
  }

  /** Append data to the log if this node leads; returns where it went (it commits only if it stays there). */
  propose(data: Uint8Array): { index: number; term: number } | undefined {
    if (this.role !== 'leader' || this.leadTransferee !== NONE) return undefined;
    const index = this.appendEntries([data]);
    return { index, term: this.term }; // sent by sendBatched(): one App per follower for a whole batch
  }

  /**
   * Append a single-server membership change; throws ConfChangeError (and changes nothing) when
   * refused. The new configuration is in effect here at once, and on each follower when it appends
   * the entry; it may still be truncated (then it rolls back) until it commits.
   */
  proposeConfChange(cc: ConfChange): { index: number; term: number } {
    if (this.role !== 'leader') throw new ConfChangeError('not-leader', `${this.id} is not the leader (leader: ${this.leader || 'unknown'})`);
    if (this.leadTransferee !== NONE) throw new ConfChangeError('transferring', `leadership is being transferred to ${this.leadTransferee}`);
    // Ongaro's fix for single-server changes across leader changes (raft-dev, 2015): a leader
    // proposes only once an entry of its own term committed. Its no-op then reached a majority of
    // its configuration, so any change a deposed leader appended to a minority and we lack is
    // superseded for good, and cannot come back with a majority disjoint from ours.
    if (!this.committedEntryInCurrentTerm() && this.cfg.plantedBug !== 'conf-change-before-first-commit') {
      throw new ConfChangeError('no-commit-in-term', `the leader has not committed an entry of term ${this.term} yet`);
    }
    const cur = this.configs.current();
    if (cur.index > this.log.committed) {
      throw new ConfChangeError('change-pending', `the change at ${cur.index} is not committed yet (commit ${this.log.committed})`);
    }
    if (cc.expectConfigIndex !== undefined && cc.expectConfigIndex !== cur.index) {
      throw new ConfChangeError('config-index-mismatch', `expected the configuration of entry ${cc.expectConfigIndex}, it is that of entry ${cur.index}`);
    }
    if (cc.op === 'remove' && cc.node === this.id) {
      throw new ConfChangeError('remove-leader', `${this.id} leads: transfer leadership first, then remove it from the new leader`);
    }
    const next = applyChange(cur.config, cc);
    if (cc.op === 'promote') {
      const match = this.prs.get(cc.node)?.match ?? 0;
      if (match < this.log.committed - this.promoteMaxLag) {
        throw new ConfChangeError(
          'learner-behind',
          `${cc.node} has matched ${match}, the commit index is ${this.log.committed} (at most ${this.promoteMaxLag} behind)`,
        );
      }
    }
    const index = this.appendEntries([encodeConfigEntry({ change: cc, config: next })], 'config');
    invariant(
      this.configs.current().index === index,
      'a proposed change is in effect when appended',
      this.id,
      () => `appended at ${index}, effective configuration from ${this.configs.current().index}`,
    );
    invariant(
      this.configs.countAfter(this.log.committed) === 1,
      'at most one uncommitted change at the leader',
      this.id,
      () => `${this.configs.countAfter(this.log.committed)} config entries above the commit index ${this.log.committed}`,
    );
    this.syncProgress();
    return { index, term: this.term };
  }

  /** The configuration in effect at index i (for a snapshot's metadata); i ≥ the log's first index − 1. */
  configurationAt(i: number): Pick<SnapshotMetadata, 'voters' | 'learners' | 'removed' | 'configIndex'> {
    const { index, config } = this.configs.at(i);
    return { voters: [...config.voters], learners: [...config.learners], removed: [...config.removed], configIndex: index };
  }

  /** Ask for a linearizable read point; the answer comes as a ReadState with this context. */
  readIndex(context: string): boolean {
    if (this.role !== 'leader') return false;
    if (!this.committedEntryInCurrentTerm()) {
      // Until then our commit index may lag the true one (thesis §6.4 step 1).
      this.pendingReadContexts.push(context);
      return true;
    }
    this.startRead(context);
    return true;
  }

  /** Hand leadership to `to` once its log is caught up (thesis §3.10). */
  transferLeader(to: NodeId): boolean {
    if (this.role !== 'leader' || to === this.id || !isVoter(this.conf(), to)) return false;
    if (this.leadTransferee === to) return true;
    this.leadTransferee = to;
    this.electionElapsed = 0; // the transfer must finish within one election timeout
    if (this.prs.get(to)!.match === this.log.lastIndex()) this.send(message({ type: 'TimeoutNow', from: this.id, to, term: this.term }));
    else this.sendAppend(to);
    return true;
  }

  /** The transport could not deliver to `to`: stop pipelining to it. */
  reportUnreachable(to: NodeId): void {
    const pr = this.prs.get(to);
    if (this.role === 'leader' && pr?.state === 'replicate') pr.becomeProbe();
  }

  /** The transport finished (or failed) sending a snapshot to `to`. */
  reportSnapshot(to: NodeId, ok: boolean): void {
    const pr = this.prs.get(to);
    if (this.role !== 'leader' || pr?.state !== 'snapshot') return;
    if (!ok) pr.pendingSnapshot = 0;
    pr.becomeProbe();
    pr.paused = true; // wait for the next heartbeat response before probing
  }

  step(m: Message): void {
    invariant(m.to === this.id, 'message addressed to this node', this.id, () => `got a message for ${m.to}`);
    // An id whose removal committed is out for good: its votes and its term must not disturb us.
    // Not one removed only by an entry not committed here: that entry may still be truncated, and
    // the id may be the legitimate leader that truncates it (worked example in README.md,
    // "Learners and removed nodes"). (The leader dropped its progress when the removal committed.)
    if (this.committedConf().removed.includes(m.from)) return;
    if (!this.stepTerm(m)) return;
    if (m.type === 'Vote' || m.type === 'PreVote') {
      this.handleVoteRequest(m);
      return;
    }
    switch (this.role) {
      case 'leader':
        return this.stepLeader(m);
      case 'candidate':
      case 'precandidate':
        return this.stepCandidate(m);
      case 'follower':
        return this.stepFollower(m);
    }
  }

  // ---- output (for RaftNode) ----------------------------------------------------------------

  /** Send what was held back for the batch: proposals (to every window) and one ReadIndex round. */
  sendBatched(proposals: boolean): void {
    if (this.role !== 'leader') return;
    if (proposals) {
      for (const id of this.prs.keys()) {
        if (id === this.id) continue;
        while (this.sendAppend(id, false)) {
          // up to the in-flight window
        }
      }
    }
    if (this.readRoundPending) this.bcastHeartbeat();
  }

  hasBatched(): boolean {
    return this.readRoundPending;
  }

  /** Entries up to the log's stable index are durable: the leader may count them for itself now. */
  persisted(): void {
    // Nobody asks for a configuration before the last snapshot (snapshots are taken after it).
    this.configs.pruneTo(this.log.firstIndex() - 1);
    if (this.role !== 'leader') return;
    // Never ack before durable: a leader's own entries count toward commit only from here.
    const self = this.prs.get(this.id)!;
    if (self.maybeUpdate(this.log.stableIndex())) this.maybeCommit();
  }

  status(): Status {
    const progress = new Map<NodeId, ProgressView>();
    if (this.role === 'leader') for (const [id, pr] of this.prs) progress.set(id, pr.view());
    const { index: configIndex, config } = this.configs.current();
    return {
      id: this.id,
      term: this.term,
      vote: this.vote,
      commit: this.log.committed,
      applied: this.log.applied,
      lastIndex: this.log.lastIndex(),
      firstIndex: this.log.firstIndex(),
      role: this.role,
      leader: this.leader,
      voters: [...config.voters],
      learners: [...config.learners],
      removed: [...config.removed],
      configIndex,
      selfRemoved: this.selfRemoved(),
      leadTransferee: this.leadTransferee,
      progress,
    };
  }

  // ---- time ---------------------------------------------------------------------------------

  private tickElection(): void {
    this.electionElapsed++;
    if (this.promotable() && this.electionElapsed >= this.randomizedElectionTimeout) {
      this.electionElapsed = 0;
      this.hup(false);
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.electionTicks) {
      this.electionElapsed = 0;
      // CheckQuorum: a leader that has not heard from a majority for an election timeout steps
      // down, so a partitioned leader stops serving (and stops ticking leases) on its own.
      if (this.checkQuorum && !this.quorumRecentlyActive()) {
        this.becomeFollower(this.term, NONE);
        return;
      }
      this.leadTransferee = NONE; // a transfer that did not finish within a timeout is abandoned
    }
    for (const [id, pr] of this.prs) {
      // A snapshot that never got answered is presumed lost: go back to probing.
      if (id !== this.id && pr.state === 'snapshot' && ++pr.snapshotTicks >= this.electionTicks) pr.becomeProbe();
    }
    if (this.heartbeatElapsed >= this.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      this.bcastHeartbeat();
    }
  }

  /** Learners are heard from too (a snapshot goes only to a node recently active) but do not count. */
  private quorumRecentlyActive(): boolean {
    const { voters } = this.conf();
    let active = 0;
    for (const [id, pr] of this.prs) {
      if (voters.includes(id) && (id === this.id || pr.recentActive)) active++;
      if (id !== this.id) pr.recentActive = false;
    }
    return active >= quorumSize(voters.length);
  }

  // ---- role changes -------------------------------------------------------------------------

  private reset(term: number): void {
    invariant(term >= this.term, 'term never decreases', this.id, () => `term ${this.term} → ${term}`);
    if (term !== this.term) {
      this.term = term;
      this.vote = NONE;
    }
    this.leader = NONE;
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.randomizedElectionTimeout = this.electionTicks + this.cfg.random(this.electionTicks);
    this.leadTransferee = NONE;
    this.votes.clear();
    this.readOnly.clear();
    this.pendingReadContexts = [];
    this.readRoundPending = false;
    this.prs = new Map();
    this.syncProgress();
  }

  /**
   * A leader tracks every member of every configuration from the committed one on: a node whose
   * removal is not committed yet keeps hearing from it (the last App carries the commit index that
   * covers the removal), then it goes. That holds for a removal this leader found in its log, not
   * only for one it proposed: a leader elected with another's uncommitted "remove d" in its log
   * must still send d heartbeats, or d, a voter of the committed configuration, times out and
   * campaigns (simulator seed 2 of `--nodes 4 --membership --membership-schedule nemesis --schedule
   * swarm`). The leader itself is among them even when its own log removes it (promotable()).
   * Others track the effective configuration only (their progress is never read).
   */
  private syncProgress(): void {
    const tracked = this.trackedIds();
    const last = this.log.lastIndex();
    for (const id of tracked) {
      if (this.prs.has(id)) continue;
      const pr = new Progress(0, last + 1, this.maxInflight);
      if (id === this.id) pr.match = this.log.stableIndex();
      // A new member may be sent a snapshot at once (sendSnapshot waits for a recently active one).
      pr.recentActive = this.role === 'leader';
      this.prs.set(id, pr);
    }
    for (const id of [...this.prs.keys()]) if (!tracked.has(id)) this.prs.delete(id);
  }

  private trackedIds(): Set<NodeId> {
    const tracked = new Set<NodeId>();
    const confs = this.role === 'leader' ? this.configs.from(this.log.committed) : [this.configs.current()];
    for (const { config } of confs) for (const id of [...config.voters, ...config.learners]) tracked.add(id);
    // Until it steps down, right after its own removal committed (maybeCommit), a leader counts its own writes.
    if (this.role === 'leader') tracked.add(this.id);
    return tracked;
  }

  private becomeFollower(term: number, leader: NodeId): void {
    this.reset(term);
    this.leader = leader;
    this.role = 'follower';
  }

  private becomePreCandidate(): void {
    invariant(this.role !== 'leader', 'leader does not become pre-candidate', this.id, () => `term ${this.term}`);
    // PreVote changes neither term nor vote: a node that cannot win disturbs nobody.
    this.votes.clear();
    this.leader = NONE;
    this.role = 'precandidate';
  }

  private becomeCandidate(): void {
    invariant(this.role !== 'leader', 'leader does not become candidate', this.id, () => `term ${this.term}`);
    this.reset(this.term + 1);
    this.vote = this.id;
    this.role = 'candidate';
  }

  private becomeLeader(): void {
    invariant(this.role === 'candidate', 'only a candidate becomes leader', this.id, () => `role ${this.role}`);
    invariant(this.promotable(), 'a leader is a voter of a configuration from its committed one on', this.id, () => `voters ${this.conf().voters.join(',')}`);
    this.reset(this.term);
    this.leader = this.id;
    this.role = 'leader';
    this.syncProgress(); // as leader: the members of the configurations not committed yet too
    for (const [id, pr] of this.prs) {
      pr.recentActive = true;
      if (id === this.id) pr.becomeReplicate();
    }
    // Raft §5.4.2 / §8: commit an entry of our own term; it also commits everything before it.
    this.appendEntries([new Uint8Array(0)]);
  }

  /**
   * Who campaigns: a voter of any configuration in effect from the commit index on. Not only of the
   * effective one: a node that its own log removes, by an entry not committed yet, may hold the
   * longest log, so the others cannot win without it (thesis §4.2.2: "a server that is not part of
   * its own latest configuration should still start new elections, as it might still be needed
   * until the Cnew entry is committed"); it counts only its configuration's votes, never its own
   * (voteResult counts voters only), and once its removal commits it steps down (maybeCommit).
   * Worked example: test/raft/transcripts/conf_removed_by_own_log.txt (simulator seed 415 of
   * `--schedule swarm --membership`). Never a learner, a node whose removal committed, or one that
   * joined and knows no configuration.
   */
  private promotable(): boolean {
    return this.configs.from(this.log.committed).some(({ config }) => isVoter(config, this.id));
  }

  private conf(): Configuration {
    return this.configs.current().config;
  }

  /** The configuration in effect at the commit index: what it removed can no longer roll back. */
  private committedConf(): Configuration {
    return this.configs.at(this.log.committed).config;
  }

  /** Removed by a committed configuration. */
  private selfRemoved(): boolean {
    return this.committedConf().removed.includes(this.id);
  }

  private hup(transfer: boolean): void {
    if (this.role === 'leader' || !this.promotable()) return;
    if (this.preVote && !transfer) this.startCampaign('pre', false);
    else this.startCampaign('real', transfer);
  }

  private startCampaign(kind: 'pre' | 'real', transfer: boolean): void {
    let voteTerm: number;
    let type: MessageType;
    if (kind === 'pre') {
      this.becomePreCandidate();
      voteTerm = this.term + 1;
      type = 'PreVote';
    } else {
      this.becomeCandidate();
      voteTerm = this.term;
      type = 'Vote';
    }
    this.votes.set(this.id, true);
    if (this.tallyVotes(kind)) return;
    for (const to of this.conf().voters) {
      if (to === this.id) continue;
      this.send(
        message({
          type,
          from: this.id,
          to,
          term: voteTerm,
          index: this.log.lastIndex(),
          logTerm: this.log.lastTerm(),
          context: transfer ? TRANSFER_CONTEXT : '',
        }),
      );
    }
  }

  /** Returns true when the campaign ended (won or lost). */
  private tallyVotes(kind: 'pre' | 'real'): boolean {
    const result = voteResult(this.conf().voters, this.votes);
    if (result === 'won') {
      if (kind === 'pre') this.startCampaign('real', false);
      else {
        this.becomeLeader();
        this.bcastAppend();
      }
      return true;
    }
    if (result === 'lost') {
      this.becomeFollower(this.term, NONE);
      return true;
    }
    return false;
  }

  // ---- message handling ---------------------------------------------------------------------

  /** Term rules common to every message (Raft fig. 2 "all servers"); returns false to drop `m`. */
  private stepTerm(m: Message): boolean {
    if (m.term > this.term) {
      if (m.type === 'Vote' || m.type === 'PreVote') {
        const inLease = this.checkQuorum && this.leader !== NONE && this.electionElapsed < this.electionTicks;
        // Thesis §4.2.3: ignore a disruptive candidate while we still hear from a live leader.
        if (inLease && m.context !== TRANSFER_CONTEXT) return false;
      }
      if (m.type === 'PreVote') return true; // a pre-vote never changes our term
      if (m.type === 'PreVoteResp' && !m.reject) return true; // granted at our future term
      const leader = m.type === 'App' || m.type === 'Heartbeat' || m.type === 'Snap' ? m.from : NONE;
      this.becomeFollower(m.term, leader);
      return true;
    }
    if (m.term < this.term) {
      if ((this.checkQuorum || this.preVote) && (m.type === 'App' || m.type === 'Heartbeat')) {
        // A stale leader (e.g. after a partition) learns our term from this and steps down.
        this.send(message({ type: 'AppResp', from: this.id, to: m.from, term: this.term }));
      } else if (m.type === 'PreVote') {
        this.send(message({ type: 'PreVoteResp', from: this.id, to: m.from, term: this.term, reject: true }));
      }
      return false;
    }
    return true;
  }

  private handleVoteRequest(m: Message): void {
    const respType: MessageType = m.type === 'Vote' ? 'VoteResp' : 'PreVoteResp';
    const forgetsVote = this.cfg.plantedBug === 'grant-two-votes-per-term';
    const canVote = this.vote === m.from || ((this.vote === NONE || forgetsVote) && this.leader === NONE) || (m.type === 'PreVote' && m.term > this.term);
    if (canVote && this.log.isUpToDate(m.index, m.logTerm)) {
      // A granted pre-vote answers at the candidate's future term, so it counts there.
      this.send(message({ type: respType, from: this.id, to: m.from, term: m.term }));
      if (m.type === 'Vote') {
        this.electionElapsed = 0;
        if (this.vote === NONE) this.vote = m.from;
      }
    } else {
      this.send(message({ type: respType, from: this.id, to: m.from, term: this.term, reject: true }));
    }
  }

  private stepLeader(m: Message): void {
    const pr = this.prs.get(m.from);
    if (!pr) return;
    switch (m.type) {
      case 'AppResp':
        pr.recentActive = true;
        return this.handleAppendResponse(m, pr);
      case 'HeartbeatResp':
        pr.recentActive = true;
        this.resumeAfterHeartbeat(m.from, pr);
        if (m.context !== '') this.handleReadAck(m.from, m.context);
        return;
      default:
        return; // App/Heartbeat/Snap at our own term cannot come from another leader (election safety)
    }
  }

  /**
   * A heartbeat response: the follower is alive, so lift the pause for one App. To a follower whose
   * place we are unsure of (probe, e.g. after reportUnreachable), whose window is full, or that
   * lacks entries and acked nothing new since its last heartbeat response, it goes even if empty,
   * asking "do you hold next-1?": the ack moves a caught-up prober back to replicate, and the ack
   * or reject unsticks a window whose Apps were lost. Not to one whose acks keep coming: its
   * entries are merely in flight under load, and that App and its ack would be pure overhead. A
   * slow follower whose acks are merely late is never dropped to probe for it (that would resend
   * what is on its way).
   */
  private resumeAfterHeartbeat(to: NodeId, pr: Progress): void {
    const wasPaused = pr.paused;
    const stalled = pr.match === pr.heartbeatMatch;
    pr.heartbeatMatch = pr.match;
    pr.paused = false;
    if (pr.state === 'probe' || wasPaused || (stalled && pr.match < this.log.lastIndex())) this.sendAppend(to);
  }

  private handleAppendResponse(m: Message, pr: Progress): void {
    if (m.reject) {
      let hint = m.rejectHint;
      if (m.logTerm > 0) hint = this.log.findConflictByTerm(m.rejectHint, m.logTerm);
      if (pr.maybeDecrTo(m.index, hint)) {
        if (pr.state === 'replicate') pr.becomeProbe();
        // Test-only policy (RaftConfig.snapshotOnReject). Only after a rejection: our first App to it
        // went out with our last index at election, so its commit, which a Snap may be answered
        // with, is within what we sent (checkAppRespClaim).
        const eager = this.cfg.snapshotOnReject === true && pr.match < this.log.storage.snapshot().metadata.index;
        if (!(eager && this.sendSnapshot(m.from, pr))) this.sendAppend(m.from);
      }
      return;
    }
    if (this.cfg.plantedBug === undefined) this.checkAppRespClaim(m, pr);
    // An ack of exactly what a probing follower already matched still proves where its log ends.
    const probeConfirmed = pr.state === 'probe' && pr.match === m.index;
    if (!pr.maybeUpdate(m.index) && !probeConfirmed) return;
    if (pr.state === 'probe') pr.becomeReplicate();
    else if (pr.state === 'snapshot' && pr.match >= pr.pendingSnapshot) {
      pr.becomeProbe();
      pr.becomeReplicate();
    } else if (pr.state === 'replicate') pr.inflights.freeLE(m.index);

    this.maybeCommit();
    if (this.role !== 'leader') return; // it committed its own removal and stepped down
    while (this.sendAppend(m.from, false)) {
      // fill the in-flight window with whatever else is ready to go
    }
    if (m.from === this.leadTransferee && pr.match === this.log.lastIndex()) {
      this.send(message({ type: 'TimeoutNow', from: this.id, to: m.from, term: this.term }));
    }
  }

  /**
   * The commit rule believes every AppResp, so check what it claims. A correct follower answers
   * with the end of an App we sent, a snapshot's index, or its commit — learned from us, or from an
   * earlier term, and then at most our last index at election, where our first App to it ended.
   * And the entry it claims to match is ours (same index and term ⇒ same prefix, Log Matching):
   * that is what catches a stale tail claimed as a match (follower 1..5@1 + 6..8@2 answering a
   * Snap(5@1) with 8 while we hold 6..8@3), which an index bound alone cannot.
   * Planted bugs break the premises (one leader per term, leader completeness) and must be found
   * by the simulator's own checks, so the check is off under them.
   */
  private checkAppRespClaim(m: Message, pr: Progress): void {
    invariant(
      m.index <= pr.highestSent,
      'AppResp claims no match past what the leader sent',
      this.id,
      () => `${m.from} claims a match at ${m.index}, but the highest index sent to it in term ${this.term} is ${pr.highestSent}`,
    );
    const ours = this.log.term(m.index);
    const compacted = ours === undefined && m.index < this.log.firstIndex();
    invariant(
      compacted || ours === m.logTerm,
      'AppResp claims a match on an entry the leader holds',
      this.id,
      () => `${m.from} claims a match at ${m.index}@${m.logTerm}, but the leader's entry there has term ${ours ?? 'none'}`,
    );
  }

  private stepCandidate(m: Message): void {
    const kind = this.role === 'precandidate' ? 'pre' : 'real';
    switch (m.type) {
      case 'App':
      case 'Heartbeat':
      case 'Snap':
        // Someone won this term: follow it.
        this.becomeFollower(m.term, m.from);
        return this.stepFollower(m);
      case 'PreVoteResp':
      case 'VoteResp':
        if ((m.type === 'PreVoteResp') !== (kind === 'pre')) return;
        this.votes.set(m.from, !m.reject);
        this.tallyVotes(kind);
        return;
      default:
        return;
    }
  }

  private stepFollower(m: Message): void {
    switch (m.type) {
      case 'App':
        this.electionElapsed = 0;
        this.leader = m.from;
        return this.handleAppend(m);
      case 'Heartbeat':
        this.electionElapsed = 0;
        this.leader = m.from;
        this.log.commitTo(m.commit);
        this.send(message({ type: 'HeartbeatResp', from: this.id, to: m.from, term: this.term, context: m.context }));
        return;
      case 'Snap':
        this.electionElapsed = 0;
        this.leader = m.from;
        return this.handleSnapshot(m);
      case 'TimeoutNow':
        this.hup(true);
        return;
      default:
        return;
    }
  }

  private handleAppend(m: Message): void {
    if (m.index < this.log.committed) {
      this.sendAck(m.from, this.log.committed);
      return;
    }
    const lastNew = this.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
    if (lastNew !== undefined) {
      this.sendAck(m.from, lastNew);
      return;
    }
    // Fast backtracking (thesis §5.3 / etcd): point the leader past a whole term of mismatches.
    const hintIndex = this.log.findConflictByTerm(Math.min(m.index, this.log.lastIndex()), m.logTerm);
    this.send(
      message({
        type: 'AppResp',
        from: this.id,
        to: m.from,
        term: this.term,
        index: m.index,
        reject: true,
        rejectHint: hintIndex,
        logTerm: this.log.term(hintIndex) ?? 0,
      }),
    );
  }

  /** "My log matches yours up to `index`", with the term there so the leader can check the claim. */
  private sendAck(to: NodeId, index: number): void {
    const ack = message({ type: 'AppResp', from: this.id, to, term: this.term, index, logTerm: this.log.term(index) ?? 0 });
    // Several Apps handled in one batch are answered once, with the highest match: it tells the
    // leader all the others do (a match at i in this term covers every index below i; the entries
    // it names cannot be truncated within the term, whose leader only appends). Only an ack still
    // unsent (msgs is what this batch will send) and only back to the last reject to `to`: that
    // order is kept, the leader reads a reject as "not at prev".
    for (let k = this.msgs.length - 1; k >= 0; k--) {
      const m = this.msgs[k];
      if (m.to !== to || m.type !== 'AppResp') continue;
      if (m.reject || m.term !== this.term) break;
      if (m.index >= index) return; // an earlier App of this batch already got a higher ack
      this.msgs[k] = ack;
      return;
    }
    this.send(ack);
  }

  private handleSnapshot(m: Message): void {
    const snap = m.snapshot;
    invariant(snap !== undefined, 'Snap message carries a snapshot', this.id, () => `from ${m.from}`);
    const { index, term } = snap.metadata;
    if (index <= this.log.committed) {
      this.sendAck(m.from, this.log.committed);
      return;
    }
    if (this.log.matchTerm(index, term)) {
      // We already have the entry the snapshot ends with: just fast-forward the commit. Answer
      // with the commit (= index), never our last index: the entries after `index` may be a stale
      // tail of an older term that the leader never checked. Example: we hold 1..5@1 + 6..8@2 and
      // a term-3 leader sends Snap(5@1); answering 8 would make it count 6..8@2 as replicated,
      // though its own 6..8 may differ, and commit entries only it holds.
      this.log.commitTo(index);
      const overclaim = this.cfg.plantedBug === 'snapshot-fast-forward-overclaim';
      this.sendAck(m.from, overclaim ? this.log.lastIndex() : this.log.committed);
      return;
    }
    invariant(
      (snap.metadata.configIndex ?? 0) <= index,
      "a snapshot's configuration is from its own prefix",
      this.id,
      () => `snapshot ${index} carries the configuration of entry ${snap.metadata.configIndex}`,
    );
    this.log.restore(snap);
    this.configs.restore(configurationOf(snap.metadata));
    this.sendAck(m.from, this.log.lastIndex());
  }

  private handleReadAck(from: NodeId, context: string): void {
    const { voters } = this.conf();
    if (!voters.includes(from)) return; // a learner's ack proves nothing about leadership
    if (this.readOnly.recvAck(from, context) < quorumSize(voters.length)) return;
    for (const rs of this.readOnly.advance(context)) this.readStates.push(rs);
  }

  // ---- leader machinery ---------------------------------------------------------------------

  private appendEntries(datas: readonly Uint8Array[], type?: 'config'): number {
    const last = this.log.lastIndex();
    const ents: Entry[] = datas.map((data, k) => ({ term: this.term, index: last + 1 + k, data, ...(type ? { type } : {}) }));
    const newLast = this.log.append(ents);
    invariant(newLast === last + datas.length, 'leader only appends', this.id, () => `last ${last} → ${newLast}`);
    return newLast;
  }

  /**
   * Advance the commit index to what a majority has durably matched (only current-term entries:
   * fig. 8). The new commit index is not broadcast: it rides the next App to each follower (every
   * App carries it) or, when none goes out, the next heartbeat, so a follower learns it within a
   * heartbeat interval without an empty commit-only App (and its ack, Ready and disk write) per
   * round. Only a committed configuration change is broadcast at once: a node it removed must hear
   * of it before its progress is dropped (syncProgress).
   */
  private maybeCommit(): void {
    // The quorum is that of the effective configuration, committed or not (thesis §4.1).
    const { voters } = this.conf();
    invariant(
      voters.every((id) => this.prs.has(id)),
      'the leader tracks every voter of its configuration',
      this.id,
      () => `voters ${voters.join(',')}, progress for ${[...this.prs.keys()].join(',')}`,
    );
    const mci = committedIndex(voters, (id) => this.prs.get(id)!.match);
    if (mci <= this.log.committed) return;
    if (this.log.term(mci) !== this.term && this.cfg.plantedBug !== 'commit-previous-term-by-count') return;
    const hadCommitInTerm = this.committedEntryInCurrentTerm();
    const configsPending = this.configs.countAfter(this.log.committed);
    this.log.commitTo(mci);
    if (!hadCommitInTerm && this.committedEntryInCurrentTerm()) this.releasePendingReads();
    if (this.configs.countAfter(this.log.committed) < configsPending) this.bcastAppend();
    // A leader its own log removed (promotable) steps down once the removal commits (thesis §4.2.2),
    // after the Apps above told the others the commit index.
    if (!this.promotable()) this.becomeFollower(this.term, NONE);
  }

  private committedEntryInCurrentTerm(): boolean {
    return this.log.term(this.log.committed) === this.term;
  }

  private releasePendingReads(): void {
    const contexts = this.pendingReadContexts;
    this.pendingReadContexts = [];
    for (const ctx of contexts) this.startRead(ctx);
  }

  private startRead(context: string): void {
    const { voters } = this.conf();
    if ((voters.length === 1 && voters[0] === this.id) || this.cfg.plantedBug === 'read-without-quorum') {
      this.readStates.push({ index: this.log.committed, context });
      return;
    }
    // The leader's own ack counts only if it is a voter (its own log may have removed it).
    this.readOnly.add(this.log.committed, context, voters.includes(this.id) ? this.id : undefined);
    this.readRoundPending = true;
  }

  /**
   * After a config entry commits: everyone hears the new commit index, then a node whose removal
   * committed is dropped. That App is the last it gets from us (its answer will be refused), so it
   * goes even if the node's flow is paused: following the ones in flight, it tells the commit
   * index they lacked.
   */
  private bcastAppend(): void {
    const tracked = this.trackedIds();
    for (const [id, pr] of this.prs) {
      if (id === this.id) continue;
      if (!tracked.has(id)) pr.paused = false;
      this.sendAppend(id);
    }
    this.syncProgress();
  }

  /**
   * A heartbeat round. It carries the newest pending ReadIndex context: a quorum's acks of it
   * confirm that request and every one queued before it, so concurrent reads share one round.
   */
  private bcastHeartbeat(): void {
    const context = this.readOnly.lastPendingContext();
    this.readRoundPending = false;
    for (const id of this.prs.keys()) {
      if (id === this.id) continue;
      // Never tell a follower to commit past what it is known to hold.
      const commit = Math.min(this.prs.get(id)!.match, this.log.committed);
      this.send(message({ type: 'Heartbeat', from: this.id, to: id, term: this.term, commit, context }));
    }
  }

  /** Send `to` what it lacks (or a snapshot); returns whether a message went out. */
  private sendAppend(to: NodeId, sendIfEmpty = true): boolean {
    const pr = this.prs.get(to)!;
    if (pr.isPaused()) return false;
    const prevIndex = pr.next - 1;
    const prevTerm = this.log.term(prevIndex);
    let entries: Entry[] | undefined;
    if (pr.state === 'replicate' && pr.inflights.full()) {
      entries = []; // the window is full: only an empty App (see HeartbeatResp) may go out
    } else if (prevTerm !== undefined) {
      try {
        entries = this.log.slice(pr.next, this.log.lastIndex() + 1, this.maxSizePerMsg);
      } catch (e) {
        if (!(e instanceof CompactedError)) throw e;
      }
    }
    if (prevTerm === undefined || entries === undefined) return this.sendSnapshot(to, pr);
    if (entries.length === 0 && !sendIfEmpty) return false;
    this.send(message({ type: 'App', from: this.id, to, term: this.term, index: prevIndex, logTerm: prevTerm, entries, commit: this.log.committed }));
    pr.highestSent = Math.max(pr.highestSent, prevIndex + entries.length);
    pr.sentApp(entries.length > 0 ? entries[entries.length - 1].index : undefined);
    return true;
  }

  private sendSnapshot(to: NodeId, pr: Progress): boolean {
    if (!pr.recentActive) return false; // don't ship a whole snapshot to a node that may be down
    const snap = this.log.storage.snapshot();
    invariant(snap.metadata.index > 0, 'a compacted log has a snapshot', this.id, () => `first index ${this.log.firstIndex()}`);
    this.send(message({ type: 'Snap', from: this.id, to, term: this.term, snapshot: snap }));
    pr.becomeSnapshot(snap.metadata.index);
    pr.highestSent = Math.max(pr.highestSent, snap.metadata.index);
    return true;
  }

  private send(m: Message): void {
    this.msgs.push(m);
  }

  // ---- helpers ------------------------------------------------------------------------------

  softState(): SoftState {
    return { leader: this.leader, role: this.role, ...(this.selfRemoved() ? { removed: true } : {}) };
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.log.committed };
  }
}

/** The configuration a snapshot's metadata (or a storage's initial state) describes. */
function configurationOf(meta: Pick<SnapshotMetadata, 'voters' | 'learners' | 'removed' | 'configIndex'>): IndexedConfiguration {
  return {
    index: meta.configIndex ?? 0,
    config: { voters: [...meta.voters], learners: [...(meta.learners ?? [])], removed: [...(meta.removed ?? [])] },
  };
}
