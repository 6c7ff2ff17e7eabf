// Raft's safety properties (paper fig. 3), checked as the run goes: every Ready batch, every message sent,
// every entry applied. Each check is incremental (cost proportional to what just happened), so it can
// run after every step of thousands of seeds. The first broken property throws a Violation.

import type { Entry, Message, NodeId, Ready, SnapshotMetadata } from '../../src/raft/types.js';
import type { LogImage } from './disk.js';
import { dataText, describeApp, sameApp, type AppState } from './app-state.js';
import type { SimNode } from './sim-node.js';

export type CheckName =
  | 'Election Safety' // at most one leader per term, ever
  | 'Leader Append-Only' // a leader never overwrites or deletes entries in its log
  | 'Log Matching' // same index and term ⇒ same entry and same prefix
  | 'Leader Completeness' // a committed entry is in the log of every leader of a later term
  | 'State Machine Safety' // every node applies a prefix of one history
  | 'Commit Monotonic' // a node's commit index (and term) never go back, across restarts too
  | 'Storage Integrity' // a node starts only on what was written to its data dir: a torn or flipped record is refused (sim-load.ts)
  | 'Durability' // nothing is acknowledged (or applied) before it is synced on the node's disk
  | 'Ack Matches Leader' // an acknowledged index is in the leader's log, with the leader's term there
  | 'Linearizable Read' // a read served by any node that believes it leads sees every write committed before it was asked
  | 'Liveness' // after faults heal: a leader within bounded ticks, and proposals commit everywhere
  | 'Core Invariant' // the core threw its own InvariantError
  | 'Config Overlap' // consecutive configurations have majorities that intersect (membership.ts)
  | 'Snapshot Config' // a snapshot at i carries the configuration of the committed history at i (runner.ts)
  // The lock app (lock-checkers.ts):
  | 'Lock Replica Agreement' // same applied index ⇒ same lock state digest, same result and events
  | 'Token Names Its Entry' // an ACQUIRED token names the entry that granted it (tokenIndex), unique per lock
  | 'Fencing Token Order' // per name, tokens strictly increase along the committed history (so are unique per lock)
  | 'Single Live Holder' // each holder's lease is live; a lease holds a name once
  | 'Fenced Store' // accepted fence writes never go below the highest accepted token of their key
  | 'Lease Timing' // leases expire exactly when a model of docs/design.md §4 says (never early, never late)
  | 'Waiter Order' // waiters are granted FIFO; no queue head that fits is left waiting
  | 'Holder Limit' // at most `permits` exclusive holders; never an exclusive beside a shared one
  | 'Permits Agreement' // an Acquire with other permits than a held or waited-on name's is refused
  | 'Lock Delay' // no grant of a name while its lock-delay runs
  | 'Stale Actor' // a call with a grant that has ended changed nothing (test/support/grant-promises.ts)
  | 'Token Unique' // two grants of one name never carry one token (grant-promises.ts)
  | 'Lock Invariant' // the lock state machine threw its own InvariantError (where STATE_MACHINE)
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

/** Terms stay far below this in a run, so index * TERM_SPAN + term is a unique numeric key. */
const TERM_SPAN = 1_000_000;

export class Checker {
  /** Term → the node that led it. */
  private readonly leaderOfTerm = new Map<number, NodeId>();
  /** (index, term) → the entry a node wrote there (durable or not; entries sent ahead of a write reach followers' writes). */
  private readonly entries = new Map<number, EntryRecord>();
  /** Per node: the entries of the batch under way, recorded once it is written. A batch lost before its write was seen
   *  by nobody (no message of a batch that changes the term leaves before it): a one-voter node that crashed there
   *  may win the same term again and fill the same indexes with other entries. */
  private readonly unwritten = new Map<NodeId, { key: number; index: number; term: number; data: string; prev: number | undefined }[]>();
  /** The one history: history[i] is the app state after applying indexes 1..i. */
  private readonly history: (AppState | undefined)[] = [];
  /** committedTerm[i]: term of the entry committed at i; commitTerm[i]: term of the first node seen committing it. */
  private readonly committedTerm: number[] = [];
  private readonly commitTerm: number[] = [];
  /** Highest index known committed anywhere. */
  maxCommitted = 0;
  /** Per node: commit index up to which its commits have been recorded. */
  private readonly recorded = new Map<NodeId, number>();
  readsAnswered = 0;
  /** Set by readyTaken for persisted() of the same batch, per node (other nodes' batches run while a write is in
   *  flight): did this batch make the node leader, or find it leading the same term before and after? */
  private readonly batchRole = new Map<NodeId, { becameLeader: boolean; steadyLeader: boolean }>();
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
    this.batchRole.set(node.id, { becameLeader: role === 'leader' && !wasLeader, steadyLeader: role === 'leader' && wasLeader });

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
        if (first !== node.disk.cached.lastIndex() + 1) {
          fail('Leader Append-Only', node.id, `leader of term ${term} wrote from index ${first} over its log ending at ${node.disk.cached.lastIndex()}`);
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
    const disk = node.disk.cached;
    const snap = rd.snapshot && rd.snapshot.metadata.index > 0 ? rd.snapshot.metadata : undefined;
    const base = snap ? snap.index : disk.snapshotIndex;
    const ents = rd.entries;
    const pending: { key: number; index: number; term: number; data: string; prev: number | undefined }[] = [];
    for (let k = 0; k < ents.length; k++) {
      const e = ents[k];
      if (e.index <= base) continue; // covered by the snapshot (checked as app state)
      const prev = k > 0 ? ents[k - 1].term : baseTerm(disk, snap, e.index - 1);
      pending.push({ key: e.index * TERM_SPAN + e.term, index: e.index, term: e.term, data: dataText(e.data), prev });
    }
    for (const p of pending) this.matchEntry(node, p, false);
    this.unwritten.set(node.id, pending);
  }

  /** Check one entry of a node's batch against the entry other nodes wrote at its (index, term); record it once written. */
  private matchEntry(node: SimNode, p: { key: number; index: number; term: number; data: string; prev: number | undefined }, written: boolean): void {
    const rec = this.entries.get(p.key);
    if (!rec) {
      if (written) this.entries.set(p.key, { data: p.data, prevTerm: p.prev ?? -1 });
      return;
    }
    if (rec.data !== p.data) {
      fail('Log Matching', node.id, `entry ${p.index} of term ${p.term} holds ${JSON.stringify(p.data)}, elsewhere ${JSON.stringify(rec.data)}`);
    }
    if (p.prev === undefined) return;
    if (rec.prevTerm === -1) {
      if (written) rec.prevTerm = p.prev;
    } else if (rec.prevTerm !== p.prev) {
      fail('Log Matching', node.id, `entry ${p.index} of term ${p.term} follows term ${p.prev}, elsewhere term ${rec.prevTerm}`);
    }
  }

  /** The batch's durable parts are written (the synced ones waited for): the disk holds the node's log. */
  persisted(node: SimNode, rd: Ready): void {
    for (const p of this.unwritten.get(node.id) ?? []) this.matchEntry(node, p, true);
    this.unwritten.delete(node.id);
    const disk = node.disk.cached;
    const hs = rd.hardState;
    // A commit index on disk beyond the synced log would outlive the entries it covers in a power cut.
    if (hs && hs.commit > node.disk.synced.lastIndex()) {
      fail('Durability', node.id, `commit ${hs.commit} written while the synced log ends at ${node.disk.synced.lastIndex()}`);
    }
    const term = node.term;
    const batch = this.batchRole.get(node.id);
    if (batch?.becameLeader) {
      // Leader Completeness: everything committed in an earlier term is in the new leader's log.
      for (let i = disk.snapshotIndex + 1; i <= this.maxCommitted; i++) {
        if (this.commitTerm[i] === undefined || this.commitTerm[i] >= term) continue;
        const t = disk.term(i);
        if (t !== this.committedTerm[i]) {
          fail(
            'Leader Completeness',
            node.id,
            `new leader of term ${term} has ${t === undefined ? 'no entry' : `term ${t}`} at ${i}, ` +
              `but entry ${i} of term ${this.committedTerm[i]} was committed by term ${this.commitTerm[i]}`,
          );
        }
      }
    }
    if (hs) {
      const c = hs.commit;
      if (batch?.steadyLeader && c > (this.recorded.get(node.id) ?? 0) && disk.term(c) !== term) this.oldTermCommits++;
      this.recordCommit(node, c, term);
    }
  }

  private recordCommit(node: SimNode, commit: number, term: number): void {
    const disk = node.disk.cached;
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
      if (!l.up || l.role !== 'leader' || l.term <= this.commitTerm[i] || i <= l.disk.cached.snapshotIndex) continue;
      const t = l.disk.cached.term(i);
      if (t !== this.committedTerm[i]) {
        fail(
          'Leader Completeness',
          l.id,
          `leader of term ${l.term} has ${t === undefined ? 'no entry' : `term ${t}`} at ${i}, ` +
            `but entry ${i} of term ${this.committedTerm[i]} was committed by term ${this.commitTerm[i]}`,
        );
      }
    }
  }

  /** Nothing is acknowledged before it is durable: check each message against what the sender has synced. */
  send(node: SimNode, m: Message): void {
    const synced = node.disk.synced;
    const hs = synced.hardState;
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
        // Only acks of the durable term are judged here: a Ready drops acks of an older term (raft-node.ts
        // withoutStaleAcks), and one sent after a later Ready moved the term on was true when it was made.
        if (!m.reject && m.term === hs.term && m.index > synced.lastIndex()) {
          fail('Durability', node.id, `acknowledged index ${m.index} to ${m.to}, but its synced log ends at ${synced.lastIndex()}`);
        }
        if (!m.reject && m.index > 0) this.checkAck(node, m);
        return;
      default:
        return;
    }
  }

  /**
   * An acknowledgment claims the follower's log matches the leader's up to m.index. The leader of m.term (if it
   * still leads) only appended since it sent what is acknowledged, so its log must reach m.index, and where both
   * logs are on disk they must agree (by Log Matching, agreeing at one index means agreeing below it).
   */
  private checkAck(node: SimNode, m: Message): void {
    const leader = this.nodes.find((x) => x.id === m.to);
    if (!leader?.up || leader.role !== 'leader' || leader.term !== m.term) return;
    const last = leader.loop!.status().lastIndex;
    if (m.index > last) {
      fail('Ack Matches Leader', node.id, `acknowledged index ${m.index} to ${m.to}, leader of term ${m.term}, whose log ends at ${last}`);
    }
    const j = Math.min(m.index, leader.disk.cached.lastIndex());
    const mine = node.disk.cached.term(j);
    const theirs = leader.disk.cached.term(j);
    if (mine !== undefined && theirs !== undefined && mine !== theirs) {
      fail(
        'Ack Matches Leader',
        node.id,
        `acknowledged index ${m.index} to ${m.to}, leader of term ${m.term}, but holds term ${mine} at ${j} where the leader has term ${theirs}`,
      );
    }
  }

  snapshotRestored(node: SimNode, s: number, before: AppState): void {
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
    const dt = node.disk.synced.term(e.index);
    if (dt !== e.term) {
      fail('Durability', node.id, `applied entry ${e.index} of term ${e.term}, but its synced log has ${dt === undefined ? 'nothing' : `term ${dt}`} there`);
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

  /**
   * A read asked of `node` at `step`, when `minIndex` was the highest index committed anywhere, was served: the
   * node's applied state must include every one of those writes (its state itself is checked against the one
   * history by applied()).
   */
  readServed(node: SimNode, minIndex: number, step: number): void {
    this.readsAnswered++;
    if (node.app.index < minIndex) {
      fail(
        'Linearizable Read',
        node.id,
        `read asked at step ${step} was served at applied index ${node.app.index}, ` + `but ${minIndex} was already committed when it was asked`,
      );
    }
  }
}

/** Term at i of a log that is `disk`, or the snapshot `snap` replacing it (a closure here would cost a keepNames call per batch). */
function baseTerm(disk: LogImage, snap: SnapshotMetadata | undefined, i: number): number | undefined {
  if (i === 0) return 0;
  if (!snap) return disk.term(i);
  return i === snap.index ? snap.term : undefined;
}

export function fail(check: CheckName, node: NodeId | undefined, detail: string): never {
  throw new Violation(check, node, detail);
}
