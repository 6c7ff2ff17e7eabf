// An in-memory Storage: the simulator's disk model, the unit tests' storage, and the node's
// synchronous mirror of what LevelDB holds (the core reads only from memory).
import {
  CompactedError,
  EMPTY_SNAPSHOT,
  type Entry,
  type HardState,
  type NodeId,
  type Snapshot,
  type SnapshotMetadata,
  type Storage,
  UnavailableError,
  invariant,
} from './types.js';

export class MemoryStorage implements Storage {
  private hs: HardState = { term: 0, vote: '', commit: 0 };
  private snap: Snapshot;
  /** ents[0] is a dummy carrying the snapshot's index and term; real entries follow. */
  private ents: Entry[];

  constructor(voters: readonly NodeId[] = []) {
    this.snap = { ...EMPTY_SNAPSHOT, metadata: { index: 0, term: 0, voters: [...voters] } };
    this.ents = [{ index: 0, term: 0, data: new Uint8Array(0) }];
  }

  initialState(): { hardState: HardState; voters: readonly NodeId[] } {
    return { hardState: this.hs, voters: this.snap.metadata.voters };
  }

  hardState(): HardState {
    return this.hs;
  }

  setHardState(hs: HardState): void {
    this.hs = hs;
  }

  firstIndex(): number {
    return this.ents[0].index + 1;
  }

  lastIndex(): number {
    return this.ents[0].index + this.ents.length - 1;
  }

  term(i: number): number {
    const offset = this.ents[0].index;
    if (i < offset) throw new CompactedError(i);
    if (i - offset >= this.ents.length) throw new UnavailableError(i);
    return this.ents[i - offset].term;
  }

  entries(lo: number, hi: number, maxBytes = Infinity): Entry[] {
    const offset = this.ents[0].index;
    if (lo <= offset) throw new CompactedError(lo);
    if (hi > this.lastIndex() + 1) throw new UnavailableError(hi - 1);
    return limitSize(this.ents.slice(lo - offset, hi - offset), maxBytes);
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  /** Replace everything with a received snapshot (the log restarts after it). */
  applySnapshot(snap: Snapshot): void {
    if (snap.metadata.index <= this.snap.metadata.index) return; // older or same: nothing to do
    this.snap = snap;
    this.ents = [{ index: snap.metadata.index, term: snap.metadata.term, data: new Uint8Array(0) }];
  }

  /**
   * Record a snapshot the application took at `index` (≤ last index). `config` is the membership
   * in effect there (RaftNode.configurationAt(index)); a bare voter list keeps the other fields of
   * the previous snapshot, and absent, all of its configuration carries over.
   */
  createSnapshot(index: number, data: Uint8Array, config?: readonly NodeId[] | SnapshotConfig): Snapshot {
    invariant(index <= this.lastIndex(), 'snapshot within log', '', () => `snapshot ${index} > last ${this.lastIndex()}`);
    if (index <= this.snap.metadata.index) return this.snap;
    const term = this.term(index);
    const prev = this.snap.metadata;
    const c: SnapshotConfig = config === undefined ? prev : isVoterList(config) ? { ...prev, voters: config } : config;
    this.snap = { metadata: { index, term, ...copyConfig(c) }, data };
    return this.snap;
  }

  /** Drop entries up to and including `index` (which must be covered by a snapshot). */
  compact(index: number): void {
    const offset = this.ents[0].index;
    if (index <= offset) return;
    invariant(index <= this.snap.metadata.index, 'compact only what a snapshot covers', '', () => `compact ${index} > snapshot ${this.snap.metadata.index}`);
    const term = this.term(index);
    this.ents = [{ index, term, data: new Uint8Array(0) }, ...this.ents.slice(index - offset + 1)];
  }

  /** Append entries, replacing any existing suffix from the first new index on. */
  append(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    const first = entries[0].index;
    const offset = this.ents[0].index;
    invariant(first > offset, 'append after snapshot', '', () => `append at ${first} ≤ snapshot ${offset}`);
    invariant(first <= this.lastIndex() + 1, 'append without gap', '', () => `append at ${first} leaves a gap after ${this.lastIndex()}`);
    for (let k = 1; k < entries.length; k++) {
      invariant(entries[k].index === first + k, 'contiguous entries', '', () => `entry ${entries[k].index} after ${first + k - 1}`);
    }
    this.ents.length = first - offset; // drop the conflicting suffix, if any
    for (const e of entries) this.ents.push(e);
  }
}

/** Keep a prefix of entries within maxBytes of payload, but always at least one. */
export function limitSize(ents: Entry[], maxBytes: number): Entry[] {
  if (ents.length === 0 || maxBytes === Infinity) return ents;
  let size = ents[0].data.length;
  let n = 1;
  while (n < ents.length) {
    size += ents[n].data.length;
    if (size > maxBytes) break;
    n++;
  }
  return ents.slice(0, n);
}

type SnapshotConfig = Pick<SnapshotMetadata, 'voters' | 'learners' | 'removed' | 'configIndex'>;

function isVoterList(c: readonly NodeId[] | SnapshotConfig): c is readonly NodeId[] {
  return Array.isArray(c);
}

/** Only the fields a configuration has, copied (and absent ones left absent, as older snapshots have them). */
function copyConfig(c: SnapshotConfig): SnapshotConfig {
  return {
    voters: [...c.voters],
    ...(c.learners ? { learners: [...c.learners] } : {}),
    ...(c.removed ? { removed: [...c.removed] } : {}),
    ...(c.configIndex !== undefined ? { configIndex: c.configIndex } : {}),
  };
}
