// The vocabulary of the consensus core: what it persists, what it sends, what it hands back.
// Modeled on etcd's raft library (raftpb), trimmed to what lockd needs and named for readers.

/** A node's id inside one cluster, e.g. "n1". Never empty: "" means "nobody". */
export type NodeId = string;
export const NONE: NodeId = '';

/**
 * What an entry carries. 'normal' (the default when absent): the application's command, opaque to
 * the core. 'config': a membership change, written by the core itself (see membership.ts for the
 * encoding); the application skips it when applying, and the configuration it holds takes effect
 * on every node as soon as the entry is appended to that node's log (src/raft/README.md).
 */
export type EntryType = 'normal' | 'config';

/** One log entry. A normal entry with empty `data` is the leader's no-op of its term. */
export interface Entry {
  readonly term: number;
  readonly index: number;
  readonly data: Uint8Array;
  /** Absent means 'normal' (every entry written before membership changes existed). */
  readonly type?: EntryType;
}

/** What must be durable before any message that depends on it is sent (Raft fig. 2 "persistent state"). */
export interface HardState {
  readonly term: number;
  readonly vote: NodeId;
  readonly commit: number;
}

export interface SnapshotMetadata {
  /** Index and term of the last entry the snapshot covers. */
  readonly index: number;
  readonly term: number;
  /** Voting members as of `index`. */
  readonly voters: readonly NodeId[];
  /** Non-voting members (they receive the log) as of `index`; absent means none. */
  readonly learners?: readonly NodeId[];
  /** Ids removed from the cluster, ever: never members again; absent means none. */
  readonly removed?: readonly NodeId[];
  /** Index of the config entry that made this configuration (0: the bootstrap one); absent means 0. */
  readonly configIndex?: number;
}

/** The application's state as of `metadata.index`; `data` is opaque to the core. */
export interface Snapshot {
  readonly metadata: SnapshotMetadata;
  readonly data: Uint8Array;
}

export const EMPTY_SNAPSHOT: Snapshot = { metadata: { index: 0, term: 0, voters: [] }, data: new Uint8Array(0) };

export type MessageType =
  | 'App' // AppendEntries (also carries the commit index)
  | 'AppResp'
  | 'Vote'
  | 'VoteResp'
  | 'PreVote'
  | 'PreVoteResp'
  | 'Heartbeat'
  | 'HeartbeatResp'
  | 'Snap' // InstallSnapshot (the transport may chunk it; the core sees it whole)
  | 'TimeoutNow'; // leader transfer: "campaign now, skip PreVote"

/** Every message between peers. Fields a type does not use are zero / empty. */
export interface Message {
  readonly type: MessageType;
  readonly from: NodeId;
  readonly to: NodeId;
  readonly term: number;
  /**
   * App: term of the entry before `entries`; Vote/PreVote: term of the candidate's last entry;
   * AppResp: term of the follower's entry at `index` (accept) or at `rejectHint` (reject).
   */
  readonly logTerm: number;
  /** App: index of the entry before `entries`; Vote/PreVote: candidate's last index; AppResp: last index matched (or rejected). */
  readonly index: number;
  readonly entries: readonly Entry[];
  readonly commit: number;
  readonly reject: boolean;
  /** AppResp reject: the follower's hint for where the leader should probe next (fast backtracking). */
  readonly rejectHint: number;
  readonly snapshot?: Snapshot;
  /** ReadIndex context carried on Heartbeat/HeartbeatResp. */
  readonly context: string;
}

export type Role = 'follower' | 'precandidate' | 'candidate' | 'leader';

/** Volatile state that the application may want to know about (who leads, am I leading). */
export interface SoftState {
  readonly leader: NodeId;
  readonly role: Role;
  /**
   * True once this node's log holds, committed, a configuration that removed it: the node will
   * never vote, campaign or be counted again, and should stop itself (absent means false).
   */
  readonly removed?: boolean;
}

/** A linearizable read may be served once the applied index reaches `index`. */
export interface ReadState {
  readonly index: number;
  readonly context: string;
}

/**
 * One batch of work for the driver. The driver must, in this order:
 *  1. persist `hardState`, `entries` and `snapshot` durably (one synced write),
 *  2. send `messages`,
 *  3. apply `snapshot` (if any), then `committedEntries`, and serve `readStates` once applied,
 *  4. call `advance(ready)`.
 * Between `ready()` and `advance()` the node accepts no input (tick/step/propose/...).
 *
 * A hard state whose only change is `commit` need not be written at all (the commit index needs no
 * durability: a restarted node learns it again from the leader); the core copes with a stored
 * commit that lags, even behind the snapshot.
 *
 * One exception to the order (thesis §10.2.1): messages for which `sendableBeforePersist` is true
 * may be sent before step 1, so a leader writes its own disk while followers write theirs. They
 * acknowledge nothing, and the leader counts its own entries only after advance(). Never when the
 * batch changes the term or the vote (`termOrVoteChanged`): every message carries its term, and a
 * term seen by others but lost in a crash could be taken again (a one-voter node campaigns, wins
 * and replicates to its learners in one batch: it would lead that term twice). That is etcd's rule:
 * no message before the hard state it depends on is persisted.
 */
export interface Ready {
  readonly softState?: SoftState;
  readonly hardState?: HardState;
  /** `hardState` changes the term or the vote: persist it before sending anything. */
  readonly termOrVoteChanged: boolean;
  /**
   * Step 1 must be synced (etcd's MustSync): the term, the vote or the log changes, which Raft keeps
   * on stable storage before answering anyone. False: at most the commit index changed.
   */
  readonly mustSync: boolean;
  readonly entries: readonly Entry[];
  readonly snapshot?: Snapshot;
  readonly committedEntries: readonly Entry[];
  readonly messages: readonly Message[];
  readonly readStates: readonly ReadState[];
}

/** The log storage the core reads from: the stable (persisted) part of the log. */
export interface Storage {
  /** Hard state and voters as last persisted. */
  initialState(): { hardState: HardState; voters: readonly NodeId[] };
  /** Entries in [lo, hi); throws CompactedError if lo <= snapshot index. */
  entries(lo: number, hi: number, maxBytes?: number): Entry[];
  /** Term of the entry at i; throws CompactedError if i < firstIndex()-1, UnavailableError if i > lastIndex(). */
  term(i: number): number;
  /** Index of the first entry still available (snapshot index + 1). */
  firstIndex(): number;
  lastIndex(): number;
  /** The most recent snapshot. */
  snapshot(): Snapshot;
}

export class CompactedError extends Error {
  constructor(index: number) {
    super(`raft storage: index ${index} is compacted`);
  }
}

export class UnavailableError extends Error {
  constructor(index: number) {
    super(`raft storage: index ${index} is not yet available`);
  }
}

/**
 * Thrown when a safety invariant breaks: a bug, never an expected condition. The one invariant error
 * of the code base: the core throws it (`where` 'raft'), and so do the layers above that name their
 * own `where` (lockd's state machine and lease clock).
 */
export class InvariantError extends Error {
  constructor(
    /** Whose rule broke: 'raft' for the core. */
    readonly where: string,
    readonly invariant: string,
    detail: string,
    /** The node it broke on, when the thrower knows it ('' otherwise). */
    readonly node: NodeId = '',
  ) {
    super(`${where} invariant "${invariant}" violated${node ? ` on node ${node}` : ''}: ${detail}`);
  }
}

export function invariant(cond: unknown, name: string, node: NodeId, detail: () => string): asserts cond {
  if (!cond) throw new InvariantError('raft', name, detail(), node);
}

/** Deterministic randomness, injected: returns an integer in [0, n). */
export type RandomInt = (n: number) => number;

export interface RaftConfig {
  readonly id: NodeId;
  /** Voters to start with when storage holds no snapshot (a fresh cluster). */
  readonly peers: readonly NodeId[];
  readonly storage: Storage;
  /** Ticks without hearing a leader before a follower campaigns; randomized in [electionTicks, 2*electionTicks). */
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly random: RandomInt;
  /** Last index the application has applied (on restart). */
  readonly applied?: number;
  /** Cap on entries' payload bytes in one App message. */
  readonly maxSizePerMsg?: number;
  /** Cap on App messages in flight to one follower in replicate state. */
  readonly maxInflightMsgs?: number;
  readonly preVote?: boolean;
  readonly checkQuorum?: boolean;
  /**
   * Promote is refused until the learner's match index is at least the leader's commit index minus
   * this many entries (default PROMOTE_MAX_LAG): a voter far behind would add to the quorum a
   * member that cannot yet acknowledge anything.
   */
  readonly promoteMaxLag?: number;
  /** Test-only: plant a known bug so tests can show the simulator's checks fail. */
  readonly plantedBug?: PlantedBug;
  /**
   * Test-only (the simulator draws it per seed): when a follower whose match is below our snapshot
   * rejects an App, send the snapshot at once instead of probing back (a policy other Raft
   * implementations use; as safe, since a follower must take a snapshot whenever one comes). It
   * drives followers through InstallSnapshot cases ours never produces otherwise: a follower that
   * holds the snapshot's last entry, behind an uncommitted older-term tail that conflicts with us.
   */
  readonly snapshotOnReject?: boolean;
}

export type PlantedBug =
  | 'grant-two-votes-per-term' // a voter forgets it already voted in this term
  | 'commit-previous-term-by-count' // a leader commits an old-term entry by counting replicas (fig. 8)
  // A follower that already holds a snapshot's last entry answers with its last index instead of
  // its commit, claiming a match on a tail the leader never checked (and the leader takes it).
  | 'snapshot-fast-forward-overclaim'
  // A leader answers ReadIndex from its own commit index with no heartbeat quorum round: a deposed
  // leader that has not heard of its successor serves stale reads.
  | 'read-without-quorum'
  // A leader proposes a membership change before an entry of its own term has committed: across
  // leader changes two single-server changes may then have disjoint majorities (Ongaro, raft-dev
  // 2015, "bug in single-server membership changes") and two leaders are elected in one term.
  | 'conf-change-before-first-commit';

/** Replication progress the leader keeps per follower. */
export interface ProgressView {
  readonly match: number;
  readonly next: number;
  readonly state: 'probe' | 'replicate' | 'snapshot';
  readonly recentActive: boolean;
  /** App messages sent to it and not yet acknowledged (the flow-control window's use). */
  readonly inflight: number;
}

export interface Status {
  readonly id: NodeId;
  readonly term: number;
  readonly vote: NodeId;
  readonly commit: number;
  readonly applied: number;
  readonly lastIndex: number;
  readonly firstIndex: number;
  readonly role: Role;
  readonly leader: NodeId;
  readonly voters: readonly NodeId[];
  /** The effective configuration's learners and removed ids, and the index of the entry that made it. */
  readonly learners: readonly NodeId[];
  readonly removed: readonly NodeId[];
  readonly configIndex: number;
  /** This node's committed configuration lists it as removed (SoftState.removed). */
  readonly selfRemoved: boolean;
  readonly leadTransferee: NodeId;
  /** Leader only: progress of every member it replicates to (itself, voters, learners, a node being removed). */
  readonly progress: ReadonlyMap<NodeId, ProgressView>;
}

export function message(fields: Partial<Message> & Pick<Message, 'type' | 'from' | 'to' | 'term'>): Message {
  return { logTerm: 0, index: 0, entries: [], commit: 0, reject: false, rejectHint: 0, context: '', ...fields };
}

/** Leader replication traffic of a batch that keeps its term and vote: safe to send before the batch is persisted. */
export function sendableBeforePersist(rd: Pick<Ready, 'termOrVoteChanged'>, m: Message): boolean {
  if (rd.termOrVoteChanged) return false;
  return m.type === 'App' || m.type === 'Heartbeat' || m.type === 'Snap' || m.type === 'TimeoutNow';
}
