// Direct tests of src/raft/raft-log.ts, the log as the core sees it (durable storage + the unstable
// tail), in the manner of etcd's log_test.go: conflicts, the AppendEntries receiver, commit,
// term lookups across storage, unstable and the compaction boundary, slices, applied entries.
import { expect } from 'chai';
import { MemoryStorage } from '../../src/raft/memory-storage.js';
import { RaftLog } from '../../src/raft/raft-log.js';
import { CompactedError, InvariantError, type Entry } from '../../src/raft/types.js';
import { ents, seededRandom } from './harness.js';

const show = (es: readonly Entry[]) => es.map((e) => `${e.index}@${e.term}`).join(' ');

interface Shape {
  /** Snapshot (and compaction) at this index@term. */
  snap?: [number, number];
  /** Entries in storage (after the snapshot). */
  stored?: string;
  /** Entries appended since, not persisted. */
  unstable?: string;
  commit?: number;
}

function raftLog({ snap, stored = '', unstable = '', commit }: Shape, onAppend?: (es: readonly Entry[]) => void): RaftLog {
  const storage = new MemoryStorage(['a']);
  if (snap) storage.applySnapshot({ metadata: { index: snap[0], term: snap[1], voters: ['a'] }, data: new Uint8Array(0) });
  storage.append(ents(stored));
  const log = new RaftLog(storage, 'a', onAppend);
  log.append(ents(unstable));
  if (commit !== undefined) log.committed = commit;
  return log;
}
/** Every index of the log with its term, from the snapshot's index on. */
const terms = (log: RaftLog) => {
  const out: string[] = [];
  for (let i = log.firstIndex() - 1; i <= log.lastIndex(); i++) out.push(`${i}@${log.term(i)}`);
  return out.join(' ');
};

describe('raft log (src/raft/raft-log.ts)', () => {
  describe('indexes and terms across storage, unstable and the compaction boundary', () => {
    const log = raftLog({ snap: [3, 1], stored: '4@1 5@2', unstable: '6@2 7@3' });
    // [index, term]
    const cases: Array<[number, number | undefined]> = [
      [1, undefined], // compacted
      [2, undefined],
      [3, 1], // the snapshot's last entry: its term is still known
      [4, 1], // storage
      [5, 2],
      [6, 2], // unstable
      [7, 3],
      [8, undefined], // beyond the log
    ];
    for (const [i, want] of cases) it(`term(${i}) = ${want}`, () => expect(log.term(i)).to.equal(want));

    it('first, last, stable index and last term', () => {
      expect([log.firstIndex(), log.lastIndex(), log.stableIndex(), log.lastTerm()]).to.deep.equal([4, 7, 5, 3]);
    });

    it('unstable entries shadow storage at the same index', () => {
      const l = raftLog({ stored: '1@1 2@1 3@1', unstable: '2@2' });
      expect([terms(l), l.lastIndex(), l.stableIndex()]).to.deep.equal(['0@0 1@1 2@2', 2, 1]);
    });

    it('a fresh log: commit and applied start at the snapshot index', () => {
      const l = raftLog({ snap: [5, 2], stored: '6@2' });
      expect([l.committed, l.applied, l.firstIndex(), l.lastIndex(), l.lastTerm()]).to.deep.equal([5, 5, 6, 6, 2]);
    });

    it('an empty log: index 0, term 0', () => {
      const l = raftLog({});
      expect([l.firstIndex(), l.lastIndex(), l.lastTerm(), l.term(0), l.term(1)]).to.deep.equal([1, 0, 0, 0, undefined]);
    });
  });

  describe('findConflict', () => {
    // Log 1@1 2@2 3@3. [incoming, first conflicting (or new) index; 0: all present]
    const cases: Array<[string, number]> = [
      ['', 0],
      ['1@1 2@2 3@3', 0],
      ['2@2 3@3', 0],
      ['3@3', 0],
      ['1@1 2@2 3@3 4@4 5@4', 4], // new entries past the end
      ['3@3 4@4', 4],
      ['4@4 5@4', 4],
      ['1@4 2@4', 1], // conflicts
      ['2@1 3@4 4@4', 2],
      ['3@1 4@2 5@4 6@4', 3],
    ];
    const log = raftLog({ stored: '1@1 2@2 3@3' });
    for (const [incoming, want] of cases) it(`[${incoming}] → ${want}`, () => expect(log.findConflict(ents(incoming))).to.equal(want));
  });

  describe('findConflictByTerm: the largest index ≤ i whose term is ≤ t (the reject hint)', () => {
    // [name, log, index, term, want]
    const cases: Array<[string, Shape, number, number, number]> = [
      ['same term at index: itself', { stored: '1..3@1 4..6@2' }, 6, 2, 6],
      ['a higher term tail is skipped', { stored: '1..3@1 4..6@4' }, 6, 2, 3],
      ['a lower term at index: itself', { stored: '1..3@1 4..6@2' }, 6, 5, 6],
      ['no entry has a low enough term: 0', { stored: '1..3@3 4..6@4' }, 6, 2, 0],
      ['term 0 skips to the start', { stored: '1..3@1' }, 3, 0, 0],
      ['index 0', { stored: '1..3@1' }, 0, 1, 0],
      // At the compaction boundary: the term of what is compacted is unknown; stop there (the leader
      // will find it behind its own first index and send a snapshot).
      ['stops at the first unknown term below the log', { snap: [3, 5], stored: '4..6@6' }, 6, 2, 2],
      ["the snapshot's term counts", { snap: [3, 1], stored: '4..6@6' }, 6, 2, 3],
    ];
    for (const [name, shape, i, t, want] of cases) it(name, () => expect(raftLog(shape).findConflictByTerm(i, t)).to.equal(want));
  });

  describe('isUpToDate (Raft §5.4.1)', () => {
    // Our log ends at 3@2. [candidate last index, last term, up to date]
    const cases: Array<[number, number, boolean]> = [
      [2, 3, true], // higher last term, shorter log
      [3, 3, true],
      [4, 3, true],
      [2, 2, false], // same term, shorter
      [3, 2, true], // same term, same length
      [4, 2, true], // same term, longer
      [9, 1, false], // lower term, however long
      [0, 0, false],
    ];
    const log = raftLog({ stored: '1@1 2@2 3@2' });
    for (const [li, lt, want] of cases) it(`candidate ${li}@${lt}: ${want}`, () => expect(log.isUpToDate(li, lt)).to.equal(want));
  });

  describe('maybeAppend (the AppendEntries receiver, Raft fig. 2)', () => {
    // Log 1@1 2@2 3@3, commit 1. [name, prev index, prev term, leader commit, entries, → last new, commit, log]
    const cases: Array<[string, number, number, number, string, number | undefined, number, string]> = [
      ['prev term mismatch: reject', 3, 2, 3, '4@4', undefined, 1, '1@1 2@2 3@3'],
      ['prev beyond our log: reject', 4, 4, 3, '5@4', undefined, 1, '1@1 2@2 3@3'],
      ["heartbeat-like: nothing new, commit to the leader's", 3, 3, 3, '', 3, 3, '1@1 2@2 3@3'],
      ['commit capped by the last new entry', 1, 1, 3, '', 1, 1, '1@1 2@2 3@3'],
      ['commit never decreases', 3, 3, 0, '', 3, 1, '1@1 2@2 3@3'],
      ['append after the last', 3, 3, 4, '4@4', 4, 4, '1@1 2@2 3@3 4@4'],
      ['append, commit capped by last new', 3, 3, 10, '4@4 5@4', 5, 5, '1@1 2@2 3@3 4@4 5@4'],
      ['already present: no truncation', 1, 1, 2, '2@2', 2, 2, '1@1 2@2 3@3'],
      // A duplicate (old, shorter) App must not cut off the entries after it: 3@3 stays.
      ['a stale shorter App keeps the tail', 1, 1, 1, '2@2', 2, 1, '1@1 2@2 3@3'],
      ['conflict: truncate and replace', 2, 2, 3, '3@4', 3, 3, '1@1 2@2 3@4'],
      ['conflict after matching entries', 1, 1, 3, '2@2 3@4 4@4', 4, 3, '1@1 2@2 3@4 4@4'],
    ];
    for (const [name, pi, pt, commit, incoming, want, wantCommit, wantLog] of cases) {
      it(name, () => {
        const log = raftLog({ stored: '1@1 2@2 3@3', commit: 1 });
        expect(log.maybeAppend(pi, pt, commit, ents(incoming))).to.equal(want);
        expect([log.committed, terms(log)]).to.deep.equal([wantCommit, `0@0 ${wantLog}`]);
      });
    }

    it('a conflict at or below the commit index is an invariant violation, and changes nothing', () => {
      const log = raftLog({ stored: '1@1 2@2 3@3', commit: 2 });
      expect(() => log.maybeAppend(1, 1, 3, ents('2@4'))).to.throw(InvariantError, /committed entries are never overwritten/);
      expect(terms(log)).to.equal('0@0 1@1 2@2 3@3');
    });
  });

  describe('append', () => {
    it('tells its listener of every append (the config log follows the log this way)', () => {
      const seen: string[] = [];
      const log = raftLog({ stored: '1@1' }, (es) => seen.push(show(es)));
      log.append(ents('2@1 3@1'));
      log.append(ents('3@2'));
      log.append([]);
      expect(seen).to.deep.equal(['2@1 3@1', '3@2']);
      expect(log.lastIndex()).to.equal(3);
    });

    it('refuses to truncate a committed entry, or to leave a gap', () => {
      const log = raftLog({ stored: '1@1 2@1 3@1', commit: 2 });
      expect(() => log.append(ents('2@2'))).to.throw(InvariantError, /committed entries are never truncated/);
      expect(() => log.append(ents('5@2'))).to.throw(InvariantError, /log has no gaps/);
      expect(log.append(ents('3@2'))).to.equal(3); // right after the commit index is fine
    });
  });

  describe('commitTo and appliedTo', () => {
    it('commit never goes back, nor past the last index', () => {
      const log = raftLog({ stored: '1..3@1', commit: 2 });
      log.commitTo(1);
      expect(log.committed).to.equal(2);
      log.commitTo(3);
      expect(log.committed).to.equal(3);
      expect(() => log.commitTo(4)).to.throw(InvariantError, /commit within log/);
    });

    it('applied stays within commit and never goes back', () => {
      const log = raftLog({ stored: '1..3@1', commit: 2 });
      log.appliedTo(1);
      expect(() => log.appliedTo(3)).to.throw(InvariantError, /applied 1 → 3, committed 2/);
      log.appliedTo(2);
      expect(() => log.appliedTo(1)).to.throw(InvariantError, /applied 2 → 1, committed 2/);
      log.appliedTo(0); // 0: nothing applied yet (a Ready with no entries), a no-op
      expect(log.applied).to.equal(2);
    });

    // [name, shape, applied, → has next, next committed entries]
    const next: Array<[string, Shape, number, boolean, string]> = [
      ['nothing committed', { stored: '1..3@1', commit: 0 }, 0, false, ''],
      ['committed, none applied', { stored: '1..3@1', commit: 2 }, 0, true, '1@1 2@1'],
      ['partly applied', { stored: '1..3@1', commit: 3 }, 1, true, '2@1 3@1'],
      ['all applied', { stored: '1..3@1', commit: 3 }, 3, false, ''],
      ['committed entries still unstable are handed out too', { stored: '1@1', unstable: '2@1 3@1', commit: 3 }, 1, true, '2@1 3@1'],
      ['after a snapshot: from its index on', { snap: [5, 1], stored: '6@1 7@1', commit: 7 }, 5, true, '6@1 7@1'],
    ];
    for (const [name, shape, applied, has, want] of next) {
      it(`next committed entries: ${name}`, () => {
        const log = raftLog(shape);
        log.applied = applied;
        expect([log.hasNextCommittedEnts(), show(log.nextCommittedEnts(Infinity))]).to.deep.equal([has, want]);
      });
    }

    it('next committed entries are cut to maxBytes, but at least one goes', () => {
      const log = raftLog({ stored: '1..5@1', commit: 5 });
      // Each entry's data is 2 bytes ("e1").
      expect(show(log.nextCommittedEnts(5))).to.equal('1@1 2@1');
      expect(show(log.nextCommittedEnts(4))).to.equal('1@1 2@1');
      expect(show(log.nextCommittedEnts(3))).to.equal('1@1');
      expect(show(log.nextCommittedEnts(1))).to.equal('1@1');
    });
  });

  describe('slice', () => {
    const log = raftLog({ snap: [3, 1], stored: '4@1 5@2', unstable: '6@2 7@3' });
    // [lo, hi, want]
    const cases: Array<[number, number, string]> = [
      [4, 4, ''],
      [4, 6, '4@1 5@2'], // storage only
      [6, 8, '6@2 7@3'], // unstable only
      [5, 7, '5@2 6@2'], // across the boundary
      [4, 8, '4@1 5@2 6@2 7@3'],
      [8, 4, ''], // lo ≥ hi
    ];
    for (const [lo, hi, want] of cases) it(`[${lo}, ${hi}) = ${want || '(none)'}`, () => expect(show(log.slice(lo, hi))).to.equal(want));

    it('compacted below the first index: CompactedError (the leader sends a snapshot)', () => {
      expect(() => log.slice(3, 5)).to.throw(CompactedError);
      expect(() => log.slice(1, 5)).to.throw(CompactedError);
    });

    it('past the last index: an invariant violation', () => {
      expect(() => log.slice(6, 9)).to.throw(InvariantError, /slice within log/);
    });

    it('maxBytes: a prefix that fits, at least one entry; a cut in storage does not reach into unstable', () => {
      expect(show(log.slice(4, 8, 4))).to.equal('4@1 5@2');
      expect(show(log.slice(4, 8, 1))).to.equal('4@1');
      expect(show(log.slice(4, 8, 6))).to.equal('4@1 5@2 6@2');
      expect(show(log.slice(6, 8, 1))).to.equal('6@2');
    });
  });

  it('property: random Apps, with random writes to storage between them, against a naive receiver', () => {
    // The naive receiver (Raft fig. 2 read literally) over a plain array; log[0] is the 0@0 sentinel.
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = seededRandom(seed);
      const log = raftLog({});
      const model: number[] = [0]; // model[i] = term of entry i
      let commit = 0;
      for (let step = 0; step < 60; step++) {
        if (rnd(4) === 0) {
          // The driver writes what is unstable (sometimes only part of it, as a batch boundary would).
          const es = log.unstable.entries;
          if (es.length > 0) {
            const upto = es.slice(0, 1 + rnd(es.length));
            (log.storage as MemoryStorage).append(upto);
            log.stableTo(upto[upto.length - 1].index, upto[upto.length - 1].term);
          }
          continue;
        }
        const last = model.length - 1;
        const prev = rnd(last + 2);
        const prevTerm = rnd(5) === 0 || prev > last ? rnd(5) : model[prev];
        const es: Entry[] = [];
        let t = Math.max(prevTerm, 1);
        for (let k = 0, n = rnd(4); k < n; k++) {
          t += rnd(2);
          es.push({ index: prev + 1 + k, term: t, data: new Uint8Array(0) });
        }
        const leaderCommit = rnd(prev + es.length + 2);
        const what = `seed ${seed} step ${step}: App prev ${prev}@${prevTerm} [${show(es)}] commit ${leaderCommit}`;
        // The naive answer.
        let want: number | undefined;
        let overwritesCommitted = false;
        const next = [...model];
        if (prev < next.length && next[prev] === prevTerm) {
          for (const e of es) {
            if (e.index < next.length && next[e.index] === e.term) continue;
            if (e.index <= commit) overwritesCommitted = true;
            next.length = e.index;
            next.push(e.term);
          }
          want = prev + es.length;
        }
        // (chai only on a mismatch: thousands of steps must stay fast)
        if (overwritesCommitted) {
          let threw: unknown;
          try {
            log.maybeAppend(prev, prevTerm, leaderCommit, es);
          } catch (e) {
            threw = e;
          }
          if (!(threw instanceof InvariantError)) expect.fail(`${what}: overwrites a committed entry, expected an InvariantError`);
        } else {
          const got = log.maybeAppend(prev, prevTerm, leaderCommit, es);
          if (got !== want) expect(got, what).to.equal(want);
          if (want !== undefined) {
            model.splice(0, model.length, ...next);
            commit = Math.max(commit, Math.min(leaderCommit, want));
          }
        }
        const wantTerms = model.map((term, i) => `${i}@${term}`).join(' ');
        if (terms(log) !== wantTerms || log.committed !== commit || log.stableIndex() > log.lastIndex()) {
          expect({ log: terms(log), commit: log.committed }, what).to.deep.equal({ log: wantTerms, commit });
          expect.fail(`${what}: stable index ${log.stableIndex()} past the last ${log.lastIndex()}`);
        }
      }
    }
  });

  describe('stableTo, stableSnapTo and restore', () => {
    it('stableTo moves the stable index; a superseded write is ignored', () => {
      const log = raftLog({ stored: '1@1', unstable: '2@1 3@1' });
      log.stableTo(2, 1);
      expect(log.stableIndex()).to.equal(2);
      log.append(ents('3@2'));
      log.stableTo(3, 1); // the write of 3@1 finished, but 3@2 replaced it
      expect([log.stableIndex(), log.lastIndex(), log.term(3)]).to.deep.equal([2, 3, 2]);
    });

    it('restore: a snapshot becomes the whole log, committed', () => {
      const log = raftLog({ stored: '1..3@1', unstable: '4@2', commit: 2 });
      log.restore({ metadata: { index: 10, term: 3, voters: ['a'] }, data: new Uint8Array(0) });
      expect([log.committed, log.firstIndex(), log.lastIndex(), log.lastTerm(), log.term(9)]).to.deep.equal([10, 11, 10, 3, undefined]);
      expect(log.hasNextCommittedEnts()).to.equal(false); // the snapshot itself is what gets applied
      log.stableSnapTo(10);
      expect(log.unstable.snapshot).to.equal(undefined);
    });
  });
});
