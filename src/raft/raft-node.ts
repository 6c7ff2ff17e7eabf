// The consensus core as the driver sees it: the Raft protocol (raft.ts) plus its lifecycle, as
// etcd's rawnode.go is to raft.go. Inputs are tick/step/propose/readIndex/transferLeader; output is
// the Ready batch, and advance() tells the protocol what of it became durable and applied. The
// protocol never sees a Ready: it only changes state and queues messages.
import type { ConfChange } from './membership.js';
import { Raft } from './raft.js';
import {
  invariant,
  type HardState,
  type Message,
  type NodeId,
  type RaftConfig,
  type Ready,
  type SnapshotMetadata,
  type SoftState,
  type Status,
} from './types.js';

/** Bound on committed entries handed out per Ready, so applying never blocks the event loop for long. */
const MAX_APPLY_BYTES_PER_READY = 4 << 20;

export class RaftNode {
  readonly id: NodeId;
  private readonly raft: Raft;
  /** What the driver was last handed (a Ready reports only changes). */
  private prevSoft: SoftState;
  private prevHard: HardState;
  /** A Ready is out and not yet advanced: no input until it is. */
  private inReady = false;
  /** Proposals since the last Ready, sent in ready(): one App per follower for the whole batch. */
  private proposalsToSend = false;

  constructor(cfg: RaftConfig) {
    this.raft = new Raft(cfg);
    this.id = this.raft.id;
    this.prevSoft = this.raft.softState();
    this.prevHard = this.raft.hardState();
  }

  // ---- inputs -------------------------------------------------------------------------------

  /** One unit of logical time. The driver calls it on its own timer; the core never reads a clock. */
  tick(): void {
    this.assertAcceptingInput('tick');
    this.raft.tick();
  }

  /** Start an election now (as if the election timeout had passed). */
  campaign(): void {
    this.assertAcceptingInput('campaign');
    this.raft.campaign();
  }

  /** Append data to the log if this node leads; returns where it went (it commits only if it stays there). */
  propose(data: Uint8Array): { index: number; term: number } | undefined {
    this.assertAcceptingInput('propose');
    const at = this.raft.propose(data);
    if (at) this.proposalsToSend = true;
    return at;
  }

  /**
   * Propose a single-server membership change (membership.ts); throws ConfChangeError with the
   * reason when refused, and nothing changes. The returned entry commits only if it stays there.
   */
  proposeConfChange(cc: ConfChange): { index: number; term: number } {
    this.assertAcceptingInput('proposeConfChange');
    const at = this.raft.proposeConfChange(cc);
    this.proposalsToSend = true;
    return at;
  }

  /**
   * The configuration in effect at index i, for the metadata of a snapshot taken there (i at
   * least the current snapshot's index). Voters, learners, removed ids and the config entry's index.
   */
  configurationAt(i: number): Pick<SnapshotMetadata, 'voters' | 'learners' | 'removed' | 'configIndex'> {
    return this.raft.configurationAt(i);
  }

  /** Ask for a linearizable read point; the answer comes as a ReadState with this context. */
  readIndex(context: string): boolean {
    this.assertAcceptingInput('readIndex');
    return this.raft.readIndex(context);
  }

  /** Hand leadership to `to` once its log is caught up (thesis §3.10). */
  transferLeader(to: NodeId): boolean {
    this.assertAcceptingInput('transferLeader');
    return this.raft.transferLeader(to);
  }

  /** The transport could not deliver to `to`: stop pipelining to it. */
  reportUnreachable(to: NodeId): void {
    this.raft.reportUnreachable(to);
  }

  /** The transport finished (or failed) sending a snapshot to `to`. */
  reportSnapshot(to: NodeId, ok: boolean): void {
    this.raft.reportSnapshot(to, ok);
  }

  step(m: Message): void {
    this.assertAcceptingInput('step');
    this.raft.step(m);
  }

  // ---- output -------------------------------------------------------------------------------

  hasReady(): boolean {
    const { log } = this.raft;
    return (
      !sameSoft(this.raft.softState(), this.prevSoft) ||
      !sameHard(this.raft.hardState(), this.prevHard) ||
      log.unstable.entries.length > 0 ||
      log.unstable.snapshot !== undefined ||
      this.raft.msgs.length > 0 ||
      this.raft.readStates.length > 0 ||
      this.raft.hasBatched() ||
      log.hasNextCommittedEnts()
    );
  }

  ready(): Ready {
    this.assertAcceptingInput('ready');
    this.raft.sendBatched(this.proposalsToSend);
    this.proposalsToSend = false;
    this.inReady = true;
    const { log } = this.raft;
    const soft = this.raft.softState();
    const hard = this.raft.hardState();
    // prevHard is what the driver was last handed, so what it has persisted once this Ready is.
    const termOrVoteChanged = hard.term !== this.prevHard.term || hard.vote !== this.prevHard.vote;
    const entries = [...log.unstable.entries];
    const snapshot = log.unstable.snapshot;
    const rd: Ready = {
      softState: sameSoft(soft, this.prevSoft) ? undefined : soft,
      hardState: sameHard(hard, this.prevHard) ? undefined : hard,
      termOrVoteChanged,
      mustSync: termOrVoteChanged || entries.length > 0 || snapshot !== undefined,
      entries,
      snapshot,
      committedEntries: log.nextCommittedEnts(MAX_APPLY_BYTES_PER_READY),
      messages: withoutStaleAcks(this.raft.msgs, hard.term),
      readStates: this.raft.readStates,
    };
    this.raft.msgs = [];
    this.raft.readStates = [];
    return rd;
  }

  /** The driver persisted, sent and applied `rd`. */
  advance(rd: Ready): void {
    invariant(this.inReady, 'advance follows ready', this.id, () => 'advance() without a pending ready()');
    this.inReady = false;
    const { log } = this.raft;
    if (rd.softState) this.prevSoft = rd.softState;
    if (rd.hardState) this.prevHard = rd.hardState;
    if (rd.snapshot) {
      log.stableSnapTo(rd.snapshot.metadata.index);
      log.appliedTo(rd.snapshot.metadata.index);
    }
    if (rd.entries.length > 0) {
      const last = rd.entries[rd.entries.length - 1];
      log.stableTo(last.index, last.term);
    }
    if (rd.committedEntries.length > 0) log.appliedTo(rd.committedEntries[rd.committedEntries.length - 1].index);
    this.raft.persisted();
  }

  status(): Status {
    return this.raft.status();
  }

  private assertAcceptingInput(what: string): void {
    invariant(!this.inReady, 'no input between ready() and advance()', this.id, () => `${what}() called while a Ready is outstanding`);
  }
}

function sameSoft(a: SoftState, b: SoftState): boolean {
  return a.leader === b.leader && a.role === b.role && !a.removed === !b.removed;
}

function sameHard(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}

/**
 * The messages of a Ready minus the acknowledgments of an older term than the one it persists. An
 * ack leaves only once the Ready is durable, and it must be true of what is durable then. Worked
 * example (simulator seed 1452, membership nemesis): in one batch a follower takes entry 45 of the
 * term-27 leader and queues its ack, then an append of the term-28 leader replaces 45; the Ready
 * persists 45@28 and, unfiltered, would still tell the term-27 leader "I hold 45 as you do". Votes
 * keep that from committing anything today, but a quorum must never count a copy that was never
 * written; dropping the ack is safe (any message may be lost) and the old leader is deposed anyway.
 */
function withoutStaleAcks(msgs: Message[], term: number): Message[] {
  return msgs.filter((m) => !(m.type === 'AppResp' && m.term < term));
}
