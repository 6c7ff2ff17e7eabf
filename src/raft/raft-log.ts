// The log as the core sees it: durable entries (Storage) followed by not-yet-persisted ones
// (Unstable), plus the commit and applied indexes.
import { Unstable } from './unstable.js';
import { limitSize } from './memory-storage.js';
import { CompactedError, UnavailableError, invariant, type Entry, type NodeId, type Snapshot, type Storage } from './types.js';

export class RaftLog {
  readonly unstable: Unstable;
  committed: number;
  /** Highest index handed to the application in a Ready. */
  applied: number;

  constructor(
    readonly storage: Storage,
    private readonly node: NodeId,
    /** Told of every append (the config log follows the log: a config entry is effective when appended). */
    private readonly onAppend: (ents: readonly Entry[]) => void = () => {},
  ) {
    const first = storage.firstIndex();
    this.unstable = new Unstable(storage.lastIndex() + 1);
    this.committed = first - 1;
    this.applied = first - 1;
  }

  firstIndex(): number {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): number {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  /** The last index known durable (what a leader may count for itself). */
  stableIndex(): number {
    return this.unstable.entries.length > 0 ? this.unstable.offset - 1 : this.lastIndex();
  }

  lastTerm(): number {
    const t = this.term(this.lastIndex());
    invariant(t !== undefined, 'last entry has a term', this.node, () => `no term at last index ${this.lastIndex()}`);
    return t;
  }

  /** Term at i, or undefined when i is compacted away or beyond the log. */
  term(i: number): number | undefined {
    if (i < this.firstIndex() - 1 || i > this.lastIndex()) return undefined;
    const t = this.unstable.maybeTerm(i);
    if (t !== undefined) return t;
    try {
      return this.storage.term(i);
    } catch (e) {
      if (e instanceof CompactedError || e instanceof UnavailableError) return undefined;
      throw e;
    }
  }

  matchTerm(i: number, t: number): boolean {
    return this.term(i) === t;
  }

  /** Raft §5.4.1: is a log ending at (lastIndex, lastTerm) at least as up to date as ours? */
  isUpToDate(lastIndex: number, lastTerm: number): boolean {
    const ourTerm = this.lastTerm();
    return lastTerm > ourTerm || (lastTerm === ourTerm && lastIndex >= this.lastIndex());
  }

  /** Entries in [lo, hi); throws CompactedError when lo was compacted (send a snapshot instead). */
  slice(lo: number, hi: number, maxBytes = Infinity): Entry[] {
    if (lo >= hi) return [];
    if (lo < this.firstIndex()) throw new CompactedError(lo);
    invariant(hi <= this.lastIndex() + 1, 'slice within log', this.node, () => `slice [${lo},${hi}) past ${this.lastIndex()}`);
    const off = this.unstable.offset;
    let ents: Entry[] = [];
    if (lo < off) ents = this.storage.entries(lo, Math.min(hi, off), maxBytes);
    if (hi > off && (lo >= off || ents.length === Math.min(hi, off) - lo)) {
      ents = ents.concat(this.unstable.slice(Math.max(lo, off), hi));
    }
    return limitSize(ents, maxBytes);
  }

  /** The first index of `ents` that conflicts with (or extends) our log; 0 if all already present. */
  findConflict(ents: readonly Entry[]): number {
    for (const e of ents) {
      if (!this.matchTerm(e.index, e.term)) return e.index;
    }
    return 0;
  }

  /**
   * Fast backtracking hint: the largest index ≤ `index` whose term is ≤ `term`. Every entry after
   * it in our log has a larger term, so it cannot match an entry of `term` in the other log.
   */
  findConflictByTerm(index: number, term: number): number {
    for (; index > 0; index--) {
      const t = this.term(index);
      if (t === undefined || t <= term) return index;
    }
    return 0;
  }

  /** AppendEntries receiver (Raft fig. 2): returns the last new index, or undefined on mismatch. */
  maybeAppend(prevIndex: number, prevTerm: number, leaderCommit: number, ents: readonly Entry[]): number | undefined {
    if (!this.matchTerm(prevIndex, prevTerm)) return undefined;
    const lastNew = prevIndex + ents.length;
    const conflict = this.findConflict(ents);
    if (conflict !== 0) {
      invariant(
        conflict > this.committed,
        'committed entries are never overwritten',
        this.node,
        () => `entry ${conflict} conflicts but commit is ${this.committed}`,
      );
      this.append(ents.slice(conflict - (prevIndex + 1)));
    }
    this.commitTo(Math.min(leaderCommit, lastNew));
    return lastNew;
  }

  append(ents: readonly Entry[]): number {
    if (ents.length === 0) return this.lastIndex();
    const after = ents[0].index - 1;
    invariant(
      after >= this.committed,
      'committed entries are never truncated',
      this.node,
      () => `append after ${after} would truncate below commit ${this.committed}`,
    );
    invariant(after <= this.lastIndex(), 'log has no gaps', this.node, () => `append after ${after} beyond last ${this.lastIndex()}`);
    this.unstable.truncateAndAppend(ents);
    this.onAppend(ents);
    return this.lastIndex();
  }

  commitTo(i: number): void {
    if (i <= this.committed) return; // commit never decreases
    invariant(i <= this.lastIndex(), 'commit within log', this.node, () => `commit ${i} beyond last index ${this.lastIndex()}`);
    this.committed = i;
  }

  appliedTo(i: number): void {
    if (i === 0) return;
    invariant(
      i <= this.committed && i >= this.applied,
      'applied ≤ committed, never backwards',
      this.node,
      () => `applied ${this.applied} → ${i}, committed ${this.committed}`,
    );
    this.applied = i;
  }

  hasNextCommittedEnts(): boolean {
    return this.committed > Math.max(this.applied, this.firstIndex() - 1);
  }

  nextCommittedEnts(maxBytes: number): Entry[] {
    const lo = Math.max(this.applied + 1, this.firstIndex());
    return this.committed + 1 > lo ? this.slice(lo, this.committed + 1, maxBytes) : [];
  }

  restore(snap: Snapshot): void {
    this.committed = snap.metadata.index;
    this.unstable.restore(snap);
  }

  stableTo(i: number, t: number): void {
    this.unstable.stableTo(i, t);
  }

  stableSnapTo(i: number): void {
    this.unstable.stableSnapTo(i);
  }
}
