// The configurations the log holds, by index. A config entry takes effect on a node when it is
// appended to that node's log, committed or not (thesis §4.1): the effective configuration is the
// one made by the last config entry in the log. So when a new leader truncates that entry away,
// the configuration rolls back to the one before it, which is still here.
//
// Worked example: the log holds a config entry at 10 (C1, committed) and one at 20 (C2, not
// committed here yet). A new leader overwrites 15..: C2 goes, C1 is effective again. Reverting to
// "the last committed configuration" instead (hashicorp/raft) would be wrong if this node's
// commit index were still below 10: C1 is committed cluster-wide, this node just has not heard.
import { checkShape, checkSuccessor, decodeConfigEntry, type Configuration, type IndexedConfiguration } from './membership.js';
import { invariant, type Entry, type NodeId } from './types.js';

export class ConfigLog {
  /** Ascending by index. [0] is the base: from a snapshot, the bootstrap, or pruned history. */
  private confs: IndexedConfiguration[];

  constructor(
    base: IndexedConfiguration,
    private readonly node: NodeId,
  ) {
    checkShape(base.config, node, base.index);
    this.confs = [base];
  }

  /** The effective configuration: the last config entry in the log, or the base. */
  current(): IndexedConfiguration {
    return this.confs[this.confs.length - 1];
  }

  /** The configuration in effect at index i (i at or after the oldest one kept). */
  at(i: number): IndexedConfiguration {
    invariant(
      i >= this.confs[0].index,
      'configuration history kept',
      this.node,
      () => `asked for the configuration at ${i}, the oldest kept is at ${this.confs[0].index}`,
    );
    for (let k = this.confs.length - 1; k > 0; k--) if (this.confs[k].index <= i) return this.confs[k];
    return this.confs[0];
  }

  /** The configurations in effect anywhere from index i on: the one at i, then every later one. */
  from(i: number): IndexedConfiguration[] {
    const base = this.at(i);
    return this.confs.filter((c) => c === base || c.index > i);
  }

  /** How many config entries above `index` the log holds (not committed, if `index` is the commit). */
  countAfter(index: number): number {
    return this.confs.filter((c) => c.index > index).length;
  }

  /** `ents` were appended to the log, replacing whatever it held from ents[0].index on. */
  appended(ents: readonly Entry[]): void {
    if (ents.length === 0) return;
    this.truncateFrom(ents[0].index);
    for (const e of ents) {
      if (e.type !== 'config') continue;
      const { config } = decodeConfigEntry(e.data, this.node, e.index);
      checkSuccessor(this.current().config, config, this.node, e.index);
      this.confs.push({ index: e.index, config });
    }
  }

  /** The log was replaced by a snapshot: its configuration is the whole history now. */
  restore(base: IndexedConfiguration): void {
    checkShape(base.config, this.node, base.index);
    this.confs = [base];
  }

  /** Forget configurations superseded at or before `index` (nobody will ask for one before it). */
  pruneTo(index: number): void {
    let k = 0;
    while (k + 1 < this.confs.length && this.confs[k + 1].index <= index) k++;
    if (k > 0) this.confs = this.confs.slice(k);
  }

  private truncateFrom(index: number): void {
    // The base is at most the commit index (a snapshot's, or pruned up to applied), and an append
    // never replaces a committed entry: only config entries after the base can go.
    invariant(
      this.confs[0].index < index,
      'the base configuration is never truncated',
      this.node,
      () => `append at ${index} replaces the base configuration's entry ${this.confs[0].index}`,
    );
    let n = this.confs.length;
    while (n > 1 && this.confs[n - 1].index >= index) n--;
    this.confs.length = n;
  }
}

/** Membership as the configuration `c` sees it. */
export function isVoter(c: Configuration, id: NodeId): boolean {
  return c.voters.includes(id);
}

export function isMember(c: Configuration, id: NodeId): boolean {
  return c.voters.includes(id) || c.learners.includes(id);
}
