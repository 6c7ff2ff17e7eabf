// Raft's safety properties (paper fig. 3), checked as the run goes: every Ready batch, every message sent,
// every entry applied. Each check is incremental (cost proportional to what just happened), so it can
// run after every step of thousands of seeds. The first broken property throws a Violation.

import type { Entry, Message, NodeId, ReadState, Ready, Snapshot } from '../../src/raft/types.js';
import { dataText, describeApp, sameApp, type AppState } from './app-state.js';
import type { SimNode } from './sim-node.js';

export type CheckName =
  | 'Election Safety' // at most one leader per term, ever
  | 'Leader Append-Only' // a leader never overwrites or deletes entries in its log
  | 'Log Matching' // same index and term ⇒ same entry and same prefix
  | 'Leader Completeness' // a committed entry is in the log of every leader of a later term
  | 'State Machine Safety' // every node applies a prefix of one history
  | 'Commit Monotonic' // a node's commit index (and term) never go back, across restarts too
  | 'Durability' // nothing is acknowledged (or applied) before it is on the node's disk
  | 'ReadIndex' // a read point covers everything committed before the read was asked
  | 'Liveness' // after faults heal: a leader within bounded ticks, and proposals commit everywhere
  | 'Core Invariant' // the core threw its own InvariantError
  // The lock app (lock-checkers.ts):
  | 'Lock Replica Agreement' // same applied index ⇒ same lock state digest, same result and events
  | 'Token Is Entry Index' // an ACQUIRED token is the index of the entry that granted it
  | 'Fencing Token Order' // per name, tokens strictly increase along the committed history
  | 'Single Live Holder' // at most one holder per name, and its lease is live
  | 'Fenced Store' // accepted fence writes never go below the highest accepted token of their key
  | 'Lease Timing' // leases expire exactly when a model of DESIGN §4 says (never early, never late)
  | 'Waiter Order' // waiters are granted FIFO; a lock with waiters is never free
  | 'Lock Invariant' // the lock state machine threw its own StateMachineInvariantError
  | 'Crash'; // anything else threw

export class Violation extends Error {
  constructor(
    readonly check: CheckName,
    readonly node: NodeId | undefined,
    readonly detail: string,
  ) {
    super(`${check}${node ? ` (node ${node})` : ''}: ${detail}`);
  }
}

interface EntryRecord {
  data: string;
  /** Term of the entry just before it (-1: not known yet). */
  prevTerm: number;
}

interface ReadRequest {
  readonly node: NodeId;
  readonly step: number;
  /** The highest index known committed anywhere when the read was asked. */
  readonly minIndex: number;
  answered: boolean;
}

/** Terms stay far below this in a run, so index * TERM_SPAN + term is a unique numeric key. */
const TERM_SPAN = 1_000_000;

export class Checker {
  /** Term → the node that led it. */
  private readonly leaderOfTerm = new Map<number, NodeId>();
  /** (index, term) → the entry seen there (in any node's log, durable or not). */
  private readonly entries = new Map<number, EntryRecord>();
  /** The one history: history[i] is the app state after applying indexes 1..i. */
  private readonly history: (AppState | undefined)[] = [];
  /** committedTerm[i]: term of the entry committed at i; commitTerm[i]: term of the first node seen committing it. */
  private readonly committedTerm: number[] = [];
  private readonly commitTerm: number[] = [];
  /** Highest index known committed anywhere. */
  maxCommitted = 0;
  /** Per node: commit index up to which its commits have been recorded. */
  private readonly recorded = new Map<NodeId, number>();
  private readonly reads = new Map<string, ReadRequest>();
  /** Set by readyTaken for persisted() of the same cycle: did this batch make the node leader, or find it leading
   *  the same term before and after? */
  private becameLeader = false;
  private steadyLeader = false;
  leaderTerms = 0;
  /** Times a leader's own commit advanced to an entry of an older term (Raft forbids it: fig. 8). A statistic, so
   *  that the fig. 8 planted bug is judged by its consequences (Leader Completeness, State Machine Safety). */
  oldTermCommits = 0;
  /** Vote grants sent while the durable vote of that term named another candidate. */
  doubleVotes = 0;

  constructor(private readonly nodes: readonly SimNode[]) {}

  leaderOf(term: number): NodeId | undefined {
    return this.leaderOfTerm.get(term);
  }

  historyAt(index: number): AppState | undefined {
    return this.history[index];
  }

  committedTermAt(index: number): number | undefined {
    return this.committedTerm[index];
  }

  /** A Ready batch has just been taken; `node.role/term` still describe the previous batch. */
  readyTaken(node: SimNode, rd: Ready): void {
    const hs = rd.hardState;
    if (hs) {
      if (hs.term < node.term) fail('Commit Monotonic', node.id, `term went back from ${node.term} to ${hs.term}`);
      if (hs.commit < node.commit) fail('Commit Monotonic', node.id, `commit went back from ${node.commit} to ${hs.commit}`);
    }
    const term = hs?.term ?? node.term;
    const role = rd.softState?.role ?? node.role;
    const wasLeader = node.role === 'leader' && node.term === term;
    this.becameLeader = role === 'leader' && !wasLeader;
    this.steadyLeader = role === 'leader' && wasLeader;

    if (role === 'leader') {
      const other = this.leaderOfTerm.get(term);
      if (other === undefined) {
        this.leaderOfTerm.set(term, node.id);
        this.leaderTerms++;
      } else if (other !== node.id) {
        fail('Election Safety', node.id, `${other} and ${node.id} were both leader of term ${term}`);
      }
    }

    if (wasLeader && role === 'leader') {
      // A leader only appends: its batch starts right after its durable log, all in its own term.
      if (rd.snapshot && rd.snapshot.metadata.index > 0) {
        fail('Leader Append-Only', node.id, `leader of term ${term} installed snapshot at ${rd.snapshot.metadata.index}`);
      }
      if (rd.entries.length > 0) {
        const first = rd.entries[0].index;
        if (first !== node.disk.lastIndex() + 1) {
          fail('Leader Append-Only', node.id, `leader of term ${term} wrote from index ${first} over its log ending at ${node.disk.lastIndex()}`);
        }
        for (const e of rd.entries) {
          if (e.term !== term) fail('Leader Append-Only', node.id, `leader of term ${term} appended entry ${e.index} of term ${e.term}`);
        }
      }
    }

    this.checkLogMatching(node, rd);
  }

  /** Same (index, term) ⇒ same data and same term just before: by induction, identical prefixes. */
  private checkLogMatching(node: SimNode, rd: Ready): void {
    // The node's log as of this batch: its disk, then the batch's snapshot (which replaces it), then its entries.
    const disk = node.disk;
    const snap = rd.snapshot && rd.snapshot.metadata.index > 0 ? rd.snapshot.metadata : undefined;
    const base = snap ? snap.index : disk.snapshotIndex;
    const baseTerm = (i: number): number | undefined => {
      if (i === 0) return 0;
      if (!snap) return disk.term(i);
      return i === snap.index ? snap.term : undefined;
    };
    const ents = rd.entries;
    for (let k = 0; k < ents.length; k++) {
      const e = ents[k];
      if (e.index <= base) continue; // covered by the snapshot (checked as app state)
      const prev = k > 0 ? ents[k - 1].term : baseTerm(e.index - 1);
      const key = e.index * TERM_SPAN + e.term;
      const data = dataText(e.data);
      const rec = this.entries.get(key);
      if (!rec) {
        this.entries.set(key, { data, prevTerm: prev ?? -1 });
        continue;
      }
      if (rec.data !== data) {
        fail('Log Matching', node.id, `entry ${e.index} of term ${e.term} holds ${JSON.stringify(data)}, elsewhere ${JSON.stringify(rec.data)}`);
      }
      if (prev === undefined) continue;
      if (rec.prevTerm === -1) rec.prevTerm = prev;
      else if (rec.prevTerm !== prev) {
        fail('Log Matching', node.id, `entry ${e.index} of term ${e.term} follows term ${prev}, elsewhere term ${rec.prevTerm}`);
      }
    }
  }

  /** The batch is durable: the disk now equals the node's log. */
  persisted(node: SimNode, rd: Ready): void {
    const disk = node.disk;
    if (disk.hardState.commit > disk.lastIndex()) {
      fail('Durability', node.id, `durable commit ${disk.hardState.commit} is beyond the durable log (last ${disk.lastIndex()})`);
    }
    const term = disk.hardState.term;
    if (this.becameLeader) {
      // Leader Completeness: everything committed in an earlier term is in the new leader's log.
      for (let i = disk.snapshotIndex + 1; i <= this.maxCommitted; i++) {
        if (this.commitTerm[i] === undefined || this.commitTerm[i] >= term) continue;
        const t = disk.term(i);
        if (t !== this.committedTerm[i]) {
          fail('Leader Completeness', node.id, `new leader of term ${term} has ${t === undefined ? 'no entry' : `term ${t}`} at ${i}, ` +
            `but entry ${i} of term ${this.committedTerm[i]} was committed by term ${this.commitTerm[i]}`);
        }
      }
    }
    if (rd.hardState) {
      const c = rd.hardState.commit;
      if (this.steadyLeader && c > (this.recorded.get(node.id) ?? 0) && disk.term(c) !== term) this.oldTermCommits++;
      this.recordCommit(node, c, term);
    }
  }

  private recordCommit(node: SimNode, commit: number, term: number): void {
    const disk = node.disk;
    const from = Math.max(this.recorded.get(node.id) ?? 0, disk.snapshotIndex) + 1;
    for (let i = from; i <= commit; i++) {
      const t = disk.term(i)!; // within the durable log (checked above)
      const known = this.committedTerm[i];
      if (known === undefined) {
        this.committedTerm[i] = t;
        this.commitTerm[i] = term;
        if (i > this.maxCommitted) this.maxCommitted = i;
        this.checkCurrentLeadersHave(i);
      } else if (known !== t) {
        fail('State Machine Safety', node.id, `committed entry ${i} of term ${t}, but entry ${i} of term ${known} was committed before`);
      }
    }
    if (commit > (this.recorded.get(node.id) ?? 0)) this.recorded.set(node.id, commit);
  }

  /** A newly known commit must already be in the log of every leader of a later term. */
  private checkCurrentLeadersHave(i: number): void {
    for (const l of this.nodes) {
      if (!l.up || l.role !== 'leader' || l.term <= this.commitTerm[i] || i <= l.disk.snapshotIndex) continue;
      const t = l.disk.term(i);
      if (t !== this.committedTerm[i]) {
        fail('Leader Completeness', l.id, `leader of term ${l.term} has ${t === undefined ? 'no entry' : `term ${t}`} at ${i}, ` +
          `but entry ${i} of term ${this.committedTerm[i]} was committed by term ${this.commitTerm[i]}`);
      }
    }
  }

  /** Nothing is acknowledged before it is durable: check each message against the sender's disk. */
  send(node: SimNode, m: Message): void {
    const hs = node.disk.hardState;
    if (m.type === 'PreVote' || m.type === 'PreVoteResp') return; // these speak of a future term, never persisted
    if (hs.term < m.term) fail('Durability', node.id, `sent ${m.type} of term ${m.term} to ${m.to} while its durable term is ${hs.term}`);
    switch (m.type) {
      case 'VoteResp':
        // A durable vote for someone else is a second vote in the term, not a durability slip: Election
        // Safety judges what it leads to (the planted bug 'grant-two-votes-per-term' lands here).
        if (!m.reject && hs.term === m.term && hs.vote === '') {
          fail('Durability', node.id, `granted its term-${m.term} vote to ${m.to} before the vote was durable`);
        }
        if (!m.reject && hs.term === m.term && hs.vote !== m.to) this.doubleVotes++;
        return;
      case 'Vote':
        if (hs.term === m.term && hs.vote !== node.id) {
          fail('Durability', node.id, `asked for votes in term ${m.term} before durably voting for itself (vote ${JSON.stringify(hs.vote)})`);
        }
        return;
      case 'AppResp':
        // An ack of an older term may name entries that a newer leader replaced within the same batch: that is
        // as if they were persisted, acked, then replaced (the ack only leaves after the batch is durable).
        if (!m.reject && m.term === hs.term && m.index > node.disk.lastIndex()) {
          fail('Durability', node.id, `acknowledged index ${m.index} to ${m.to}, but its durable log ends at ${node.disk.lastIndex()}`);
        }
        return;
      default:
        return;
    }
  }

  snapshotRestored(node: SimNode, snap: Snapshot, before: AppState): void {
    const s = snap.metadata.index;
    const app = node.app;
    if (app.index !== s) fail('State Machine Safety', node.id, `snapshot at ${s} holds app state of index ${app.index}`);
    if (s < before.index) fail('State Machine Safety', node.id, `installing snapshot ${s} took applied back from ${before.index}`);
    const h = this.history[s];
    if (!h) fail('State Machine Safety', node.id, `snapshot at ${s} matches no applied history (history ends at ${this.history.length - 1})`);
    if (!sameApp(h, app)) fail('State Machine Safety', node.id, `snapshot at ${s} is ${describeApp(app)}, history has ${describeApp(h)}`);
  }

  applied(node: SimNode, e: Entry, data: string, before: AppState): void {
    if (e.index !== before.index + 1) fail('State Machine Safety', node.id, `applied entry ${e.index} right after ${before.index}`);
    if (e.index > node.commit) fail('State Machine Safety', node.id, `applied entry ${e.index} beyond its commit ${node.commit}`);
    const dt = node.disk.term(e.index);
    if (dt !== e.term) {
      fail('Durability', node.id, `applied entry ${e.index} of term ${e.term}, but its durable log has ${dt === undefined ? 'nothing' : `term ${dt}`} there`);
    }
    const ct = this.committedTerm[e.index];
    if (ct !== undefined && ct !== e.term) {
      fail('State Machine Safety', node.id, `applied entry ${e.index} of term ${e.term}, but the committed one is of term ${ct}`);
    }
    const h = this.history[e.index];
    if (h === undefined) this.history[e.index] = node.app;
    else if (!sameApp(h, node.app)) {
      fail('State Machine Safety', node.id, `applied ${JSON.stringify(data)} at ${e.index} reaching ${describeApp(node.app)}; history has ${describeApp(h)}`);
    }
  }

  readRequested(node: SimNode, context: string, step: number): void {
    this.reads.set(context, { node: node.id, step, minIndex: this.maxCommitted, answered: false });
  }

  readState(node: SimNode, rs: ReadState): void {
    const req = this.reads.get(rs.context);
    if (!req) fail('ReadIndex', node.id, `read state for unknown context ${JSON.stringify(rs.context)}`);
    if (rs.index < req.minIndex) {
      fail('ReadIndex', node.id, `read ${rs.context} (asked at step ${req.step} of ${req.node}) got index ${rs.index}, ` +
        `but ${req.minIndex} was already committed when it was asked`);
    }
    req.answered = true;
  }

  readsAnswered(): number {
    let n = 0;
    for (const r of this.reads.values()) if (r.answered) n++;
    return n;
  }
}

export function fail(check: CheckName, node: NodeId | undefined, detail: string): never {
  throw new Violation(check, node, detail);
}
