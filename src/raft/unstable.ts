// The tail of the log not yet persisted: entries (and possibly a received snapshot) that the
// next Ready hands to the driver. Indexes here shadow whatever storage holds at the same index.
import type { Entry, Snapshot } from './types.js';

export class Unstable {
  snapshot: Snapshot | undefined;
  entries: Entry[] = [];
  /** Index of entries[0]. */
  offset: number;

  constructor(offset: number) {
    this.offset = offset;
  }

  maybeFirstIndex(): number | undefined {
    return this.snapshot ? this.snapshot.metadata.index + 1 : undefined;
  }

  maybeLastIndex(): number | undefined {
    if (this.entries.length > 0) return this.offset + this.entries.length - 1;
    return this.snapshot?.metadata.index;
  }

  maybeTerm(i: number): number | undefined {
    if (i < this.offset) {
      return this.snapshot && this.snapshot.metadata.index === i ? this.snapshot.metadata.term : undefined;
    }
    const last = this.maybeLastIndex();
    if (last === undefined || i > last) return undefined;
    return this.entries[i - this.offset].term;
  }

  /** Entries up to (i, t) are now durable; keep only what follows. */
  stableTo(i: number, t: number): void {
    if (i < this.offset || this.maybeTerm(i) !== t) return; // superseded by a newer leader's entries
    this.entries = this.entries.slice(i + 1 - this.offset);
    this.offset = i + 1;
  }

  stableSnapTo(i: number): void {
    if (this.snapshot && this.snapshot.metadata.index === i) this.snapshot = undefined;
  }

  restore(snap: Snapshot): void {
    this.offset = snap.metadata.index + 1;
    this.entries = [];
    this.snapshot = snap;
  }

  truncateAndAppend(ents: readonly Entry[]): void {
    const first = ents[0].index;
    if (first === this.offset + this.entries.length) {
      for (const e of ents) this.entries.push(e);
    } else if (first <= this.offset) {
      // Replaces everything unstable and shadows storage from `first` on.
      this.offset = first;
      this.entries = [...ents];
    } else {
      this.entries = [...this.entries.slice(0, first - this.offset), ...ents];
    }
  }

  slice(lo: number, hi: number): Entry[] {
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }
}
