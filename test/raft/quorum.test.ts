// Direct tests of src/raft/quorum.ts: tables, then a brute-force property test (in the spirit of
// etcd's quorum/quick_test.go, but exhaustive over small configurations instead of random): the
// commit index and the vote result against a naive computation over every assignment of match
// indexes and votes, for every configuration of 1 to 7 voters.
//
// lockd has no joint configurations (single-server changes, src/raft/README.md), so there is no
// joint quorum to test. What replaces joint consensus is the overlap property of single-server
// changes, checked here by brute force too: any majority of a configuration and any majority of a
// configuration one voter away share a voter (and two voters away, they may not).
import { expect } from 'chai';
import { committedIndex, quorumSize, voteResult, type VoteResult } from '../../src/raft/quorum.js';

const IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** Every assignment of values from `domain` to `n` slots (domain^n of them), as arrays. */
function* assignments<T>(n: number, domain: readonly T[]): Generator<T[]> {
  const idx = new Array<number>(n).fill(0);
  for (;;) {
    yield idx.map((k) => domain[k]);
    let k = 0;
    while (k < n && ++idx[k] === domain.length) idx[k++] = 0;
    if (k === n) return;
  }
}

/** The naive commit index: the largest i that more than half of the voters have matched. */
function naiveCommit(matches: readonly number[]): number {
  let best = 0;
  for (const i of matches) if (2 * matches.filter((m) => m >= i).length > matches.length) best = Math.max(best, i);
  return best;
}

/** The naive vote result: won with more than half granted; lost when even every missing vote would not make it. */
function naiveVote(votes: readonly (boolean | undefined)[]): VoteResult {
  const n = votes.length;
  const granted = votes.filter((v) => v === true).length;
  const possible = votes.filter((v) => v !== false).length;
  if (2 * granted > n) return 'won';
  if (2 * possible <= n) return 'lost';
  return 'pending';
}

describe('raft quorum (src/raft/quorum.ts)', () => {
  describe('tables', () => {
    it('quorumSize: a strict majority', () => {
      expect([1, 2, 3, 4, 5, 6, 7].map(quorumSize)).to.deep.equal([1, 2, 2, 3, 3, 4, 4]);
    });

    // [matches of voters a, b, c, ..., commit index]
    const commits: Array<[number[], number]> = [
      [[5], 5],
      [[5, 3], 3],
      [[5, 3, 1], 3],
      [[1, 3, 5], 3], // order does not matter
      [[5, 5, 0], 5],
      [[5, 0, 0], 0],
      [[7, 6, 5, 4], 5], // 4 voters: 3 needed
      [[7, 7, 0, 0], 0], // half is not a majority
      [[9, 8, 7, 2, 1], 7],
      [[0, 0, 0], 0],
    ];
    for (const [matches, want] of commits) {
      it(`committedIndex(${matches.join(',')}) = ${want}`, () => {
        const voters = IDS.slice(0, matches.length);
        const before = [...voters];
        expect(committedIndex(voters, (id) => matches[IDS.indexOf(id)])).to.equal(want);
        expect(voters, 'the voter list is not reordered').to.deep.equal(before);
      });
    }

    // [votes of voters a, b, c, ... (y granted, n rejected, - not yet), result]
    const votes: Array<[string, VoteResult]> = [
      ['y', 'won'],
      ['-', 'pending'],
      ['n', 'lost'],
      ['y-', 'pending'],
      ['yy', 'won'],
      ['yn', 'lost'], // two voters: one refusal is enough to lose
      ['y--', 'pending'],
      ['yy-', 'won'],
      ['yn-', 'pending'],
      ['ynn', 'lost'],
      ['yy--', 'pending'],
      ['yyy-', 'won'],
      ['ynn-', 'lost'],
      ['yyn-', 'pending'],
      ['yynn-', 'pending'],
      ['yyynn', 'won'],
      ['yynnn', 'lost'],
    ];
    for (const [spec, want] of votes) {
      it(`voteResult(${spec}) = ${want}`, () => {
        const voters = IDS.slice(0, spec.length);
        const m = new Map<string, boolean>();
        [...spec].forEach((v, k) => v !== '-' && m.set(voters[k], v === 'y'));
        expect(voteResult(voters, m)).to.equal(want);
      });
    }

    it("voteResult counts only voters: a learner's or a stranger's vote is ignored", () => {
      const m = new Map([
        ['a', true],
        ['x', true],
        ['y', true],
      ]);
      expect(voteResult(['a', 'b', 'c'], m)).to.equal('pending');
      m.set('z', false).set('w', false);
      expect(voteResult(['a', 'b', 'c'], m)).to.equal('pending');
    });
  });

  describe('brute force: every small configuration against a naive computation', () => {
    it('committedIndex, for 1..7 voters and every assignment of match indexes in 0..3', () => {
      let checked = 0;
      for (let n = 1; n <= 7; n++) {
        const voters = IDS.slice(0, n);
        for (const matches of assignments(n, [0, 1, 2, 3])) {
          const got = committedIndex(voters, (id) => matches[voters.indexOf(id)]);
          if (got !== naiveCommit(matches)) expect.fail(`voters ${n}, matches ${matches.join(',')}: got ${got}, naive ${naiveCommit(matches)}`);
          checked++;
        }
      }
      expect(checked).to.equal(4 + 16 + 64 + 256 + 1024 + 4096 + 16384);
    });

    it("voteResult, for 1..7 voters and every assignment of granted / rejected / missing, with strangers' votes mixed in", () => {
      let checked = 0;
      for (let n = 1; n <= 7; n++) {
        const voters = IDS.slice(0, n);
        for (const vs of assignments<boolean | undefined>(n, [true, false, undefined])) {
          const m = new Map<string, boolean>();
          vs.forEach((v, k) => v !== undefined && m.set(voters[k], v));
          // Non-voters' answers (a learner answers vote requests too) must change nothing.
          m.set('learner', checked % 2 === 0).set('removed', checked % 3 === 0);
          const got = voteResult(voters, m);
          if (got !== naiveVote(vs))
            expect.fail(`votes ${vs.map((v) => (v === undefined ? '-' : v ? 'y' : 'n')).join('')}: got ${got}, naive ${naiveVote(vs)}`);
          checked++;
        }
      }
      expect(checked).to.equal(3 + 9 + 27 + 81 + 243 + 729 + 2187);
    });

    it('a vote result never goes back: won and lost stay once more votes arrive (monotone)', () => {
      const rank: Record<VoteResult, number> = { pending: 0, won: 1, lost: 1 };
      for (let n = 1; n <= 6; n++) {
        const voters = IDS.slice(0, n);
        for (const vs of assignments<boolean | undefined>(n, [true, false, undefined])) {
          const m = new Map<string, boolean>();
          vs.forEach((v, k) => v !== undefined && m.set(voters[k], v));
          const before = voteResult(voters, m);
          for (let k = 0; k < n; k++) {
            if (vs[k] !== undefined) continue;
            for (const v of [true, false]) {
              const after = voteResult(voters, new Map(m).set(voters[k], v));
              if (rank[before] === 1 && after !== before) expect.fail(`${n} voters: ${before} became ${after} with one more vote`);
            }
          }
        }
      }
    });
  });

  describe('brute force: the overlap that makes single-server changes safe (thesis §4.1)', () => {
    const U = IDS.slice(0, 5);
    const members = (mask: number) => U.filter((_, k) => mask & (1 << k));
    /** Every subset of `config`'s voters that wins an election under voteResult, as bit masks over U. */
    function winningSets(config: number): number[] {
      const out: number[] = [];
      for (let s = 0; s < 1 << U.length; s++) {
        if ((s & config) !== s) continue;
        const votes = new Map(members(s).map((id) => [id, true] as [string, boolean]));
        if (voteResult(members(config), votes) === 'won') out.push(s);
      }
      return out;
    }
    const popcount = (x: number) => members(x).length;
    const wins = new Map<number, number[]>();
    for (let c = 1; c < 1 << U.length; c++) wins.set(c, winningSets(c));

    /** Pairs of configurations whose voters differ in exactly `d` ids, and a pair of disjoint winning sets if there is one. */
    function disjointMajorities(d: number): { pairs: number; counterexample?: string } {
      let pairs = 0;
      for (const [c1, w1] of wins) {
        for (const [c2, w2] of wins) {
          if (popcount(c1 ^ c2) !== d) continue;
          pairs++;
          for (const s of w1) {
            for (const t of w2) {
              if ((s & t) === 0) return { pairs, counterexample: `{${members(c1)}} won by {${members(s)}}, {${members(c2)}} won by {${members(t)}}` };
            }
          }
        }
      }
      return { pairs };
    }

    it('the configuration before and after adding or removing one voter: every two majorities share a voter', () => {
      const { pairs, counterexample } = disjointMajorities(1);
      expect(counterexample).to.equal(undefined);
      expect(pairs).to.equal(5 * 2 ** 4 * 2 - 2 * 5); // ordered pairs {c, c ± x}, minus those through the empty set
    });

    it('(the check has teeth) two voters changed at once: some majorities are disjoint', () => {
      expect(disjointMajorities(2).counterexample).to.be.a('string');
    });

    it('every winning set of a configuration is also a commit quorum there', () => {
      for (const [c, w] of wins) {
        const voters = members(c);
        for (const s of w)
          expect(
            committedIndex(voters, (id) => (members(s).includes(id) ? 1 : 0)),
            `{${voters}} by {${members(s)}}`,
          ).to.equal(1);
      }
    });
  });
});
