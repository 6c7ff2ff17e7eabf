// Direct tests of src/raft/unstable.ts, the not-yet-persisted tail of the log (in the manner of
// etcd's log_unstable_test.go): index and term lookups, stableTo after a write, restore from a
// snapshot, and truncateAndAppend when a leader's entries replace ours.
import { expect } from 'chai';
import { Unstable } from '../../src/raft/unstable.js';
import type { Entry, Snapshot } from '../../src/raft/types.js';

const ent = (index: number, term: number): Entry => ({ index, term, data: new Uint8Array(0) });
/** "5@1 6@1 7@2" → entries. */
const ents = (s: string): Entry[] =>
  s === ''
    ? []
    : s.split(' ').map((p) => {
        const [i, t] = p.split('@').map(Number);
        return ent(i, t);
      });
const show = (es: readonly Entry[]) => es.map((e) => `${e.index}@${e.term}`).join(' ');
const snap = (index: number, term: number): Snapshot => ({ metadata: { index, term, voters: ['a'] }, data: new Uint8Array(0) });

function unstable(offset: number, entries: string, snapshot?: Snapshot): Unstable {
  const u = new Unstable(offset);
  u.entries = ents(entries);
  u.snapshot = snapshot;
  return u;
}

describe('raft unstable log (src/raft/unstable.ts)', () => {
  describe('index lookups', () => {
    // [name, offset, entries, snapshot, maybeFirstIndex, maybeLastIndex]
    const cases: Array<[string, number, string, Snapshot | undefined, number | undefined, number | undefined]> = [
      ['entries, no snapshot: storage knows the first index', 5, '5@1', undefined, undefined, 5],
      ['entries and a snapshot', 5, '5@1', snap(4, 1), 5, 5],
      ['a snapshot only', 5, '', snap(4, 1), 5, 4],
      ['nothing at all', 0, '', undefined, undefined, undefined],
    ];
    for (const [name, offset, es, s, first, last] of cases) {
      it(name, () => {
        const u = unstable(offset, es, s);
        expect([u.maybeFirstIndex(), u.maybeLastIndex()]).to.deep.equal([first, last]);
      });
    }
  });

  describe('maybeTerm', () => {
    // [name, offset, entries, snapshot, index, term]
    const cases: Array<[string, number, string, Snapshot | undefined, number, number | undefined]> = [
      ['an unstable entry', 5, '5@1', undefined, 5, 1],
      ['past the last entry', 5, '5@1', undefined, 6, undefined],
      ['before the offset, no snapshot', 5, '5@1', undefined, 4, undefined],
      ["the snapshot's own index", 5, '5@1', snap(4, 1), 4, 1],
      ['below the snapshot', 5, '5@1', snap(4, 1), 3, undefined],
      ['an entry after a snapshot', 5, '5@1 6@2', snap(4, 1), 6, 2],
      ['snapshot only: its index', 5, '', snap(4, 1), 4, 1],
      ['snapshot only: past it', 5, '', snap(4, 1), 5, undefined],
      ['snapshot only: below it', 5, '', snap(4, 1), 3, undefined],
      ['empty', 0, '', undefined, 0, undefined],
    ];
    for (const [name, offset, es, s, i, want] of cases) {
      it(`${name}: term(${i}) = ${want}`, () => {
        expect(unstable(offset, es, s).maybeTerm(i)).to.equal(want);
      });
    }
  });

  describe('stableTo: entries up to (i, t) are on disk', () => {
    // [name, offset, entries, snapshot, stable (i, t), offset after, entries after]
    const cases: Array<[string, number, string, Snapshot | undefined, number, number, number, string]> = [
      ['nothing unstable: no-op', 0, '', undefined, 5, 1, 0, ''],
      ['the only entry', 5, '5@1', undefined, 5, 1, 6, ''],
      ['a prefix', 5, '5@1 6@1', undefined, 5, 1, 6, '6@1'],
      ['all of them', 5, '5@1 6@1', undefined, 6, 1, 7, ''],
      // The write finished after a newer leader replaced the entry: it is not stable, keep it.
      ['term mismatch: superseded, keep', 6, '6@2', undefined, 6, 1, 6, '6@2'],
      ['below the offset: an older write, keep', 5, '5@1', undefined, 4, 1, 5, '5@1'],
      ['past the last entry: keep', 5, '5@1', undefined, 6, 1, 5, '5@1'],
      ['with a snapshot: an entry after it', 5, '5@1 6@1', snap(4, 1), 5, 1, 6, '6@1'],
      ["with a snapshot: the snapshot's index is not an entry", 5, '5@1 6@1', snap(4, 1), 4, 1, 5, '5@1 6@1'],
      ['with a snapshot: mismatched term', 6, '6@2', snap(5, 1), 6, 1, 6, '6@2'],
    ];
    for (const [name, offset, es, s, i, t, wantOffset, wantEnts] of cases) {
      it(name, () => {
        const u = unstable(offset, es, s);
        u.stableTo(i, t);
        expect([u.offset, show(u.entries)]).to.deep.equal([wantOffset, wantEnts]);
        expect(u.snapshot).to.equal(s); // stableTo never touches the snapshot
      });
    }
  });

  describe('stableSnapTo', () => {
    const cases: Array<[string, Snapshot | undefined, number, boolean]> = [
      ['the snapshot written', snap(4, 1), 4, false],
      ['another index: keep it (a newer snapshot came meanwhile)', snap(4, 1), 3, true],
      ['no snapshot: no-op', undefined, 4, false],
    ];
    for (const [name, s, i, kept] of cases) {
      it(name, () => {
        const u = unstable(5, '5@1', s);
        u.stableSnapTo(i);
        expect(u.snapshot !== undefined).to.equal(kept);
        expect(show(u.entries)).to.equal('5@1');
      });
    }
  });

  it('restore: a snapshot replaces everything, the log restarts after it', () => {
    const u = unstable(5, '5@1 6@1 7@2', snap(4, 1));
    const s = snap(10, 3);
    u.restore(s);
    expect({ offset: u.offset, entries: show(u.entries), snapshot: u.snapshot }).to.deep.equal({ offset: 11, entries: '', snapshot: s });
    expect([u.maybeFirstIndex(), u.maybeLastIndex(), u.maybeTerm(10), u.maybeTerm(11)]).to.deep.equal([11, 10, 3, undefined]);
  });

  describe('truncateAndAppend', () => {
    // [name, offset, entries, appended, offset after, entries after]
    const cases: Array<[string, number, string, string, number, string]> = [
      ['right after the last: append', 5, '5@1', '6@1 7@1', 5, '5@1 6@1 7@1'],
      ['onto an empty unstable log at its offset', 5, '', '5@1', 5, '5@1'],
      ['at the offset: replace all', 5, '5@1', '5@2 6@2', 5, '5@2 6@2'],
      // Below the offset: the new entries shadow storage from their first index on.
      ['below the offset: replace all, offset moves back', 5, '5@1', '4@2 5@2 6@2', 4, '4@2 5@2 6@2'],
      ['below the offset, shorter than what was there', 5, '5@1 6@1 7@1', '3@2', 3, '3@2'],
      ['inside: truncate the rest, then append', 5, '5@1 6@1 7@1', '6@2', 5, '5@1 6@2'],
      ['inside, longer than what was there', 5, '5@1 6@1 7@1', '7@2 8@2 9@2', 5, '5@1 6@1 7@2 8@2 9@2'],
    ];
    for (const [name, offset, es, appended, wantOffset, wantEnts] of cases) {
      it(name, () => {
        const u = unstable(offset, es);
        u.truncateAndAppend(ents(appended));
        expect([u.offset, show(u.entries)]).to.deep.equal([wantOffset, wantEnts]);
      });
    }

    it("copies the caller's array: a later change to it does not reach the log", () => {
      const u = unstable(5, '5@1');
      const batch = ents('5@2 6@2');
      u.truncateAndAppend(batch);
      batch.pop();
      expect(show(u.entries)).to.equal('5@2 6@2');
    });
  });

  it('slice: entries in [lo, hi) by index', () => {
    const u = unstable(5, '5@1 6@1 7@2');
    expect(show(u.slice(5, 8))).to.equal('5@1 6@1 7@2');
    expect(show(u.slice(6, 7))).to.equal('6@1');
    expect(show(u.slice(7, 7))).to.equal('');
  });
});
