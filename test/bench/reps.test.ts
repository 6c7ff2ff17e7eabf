// bench/lib/reps.ts: the order systems run in per repetition, the median and range of a figure,
// the summary of headline keys over repetitions, and the duration estimate.
import { expect } from 'chai';
import { estimateMs, formatSpread, interleave, medians, rotation, spread, summarizeReps } from '../../bench/lib/reps.js';

describe('bench: repetitions', () => {
  it('rotates the system order by one per repetition, so each system runs first once in every n', () => {
    const s = ['lockd', 'etcd', 'lockd-base'];
    expect([0, 1, 2, 3].map((r) => rotation(s, r).join(' '))).to.deep.equal([
      'lockd etcd lockd-base',
      'etcd lockd-base lockd',
      'lockd-base lockd etcd',
      'lockd etcd lockd-base',
    ]);
    expect(rotation(['lockd', 'etcd'], 1)).to.deep.equal(['etcd', 'lockd']);
    expect(rotation([], 3)).to.deep.equal([]);
    expect(s).to.deep.equal(['lockd', 'etcd', 'lockd-base']); // not changed in place
  });

  it("interleaves: repetition after repetition, each workload against every system back to back in that repetition's order", () => {
    const runs = interleave(['L', 'E'], ['c1', 'c64'], 3).map((r) => `${r.rep}${r.workload}${r.system}`);
    expect(runs).to.deep.equal(['0c1L', '0c1E', '0c64L', '0c64E', '1c1E', '1c1L', '1c64E', '1c64L', '2c1L', '2c1E', '2c64L', '2c64E']);
    expect(interleave(['L'], ['c1'], 0)).to.deep.equal([]);
  });

  it('spread: median (the mean of the middle two for an even count), min and max of the finite values only', () => {
    expect(spread([5, 1, 3])).to.deep.equal({ median: 3, min: 1, max: 5, n: 3 });
    expect(spread([4, 1, 3, 10])).to.deep.equal({ median: 3.5, min: 1, max: 10, n: 4 });
    expect(spread([2, undefined, NaN, Infinity, 4])).to.deep.equal({ median: 3, min: 2, max: 4, n: 2 });
    expect(spread([undefined, NaN])).to.equal(undefined);
  });

  it('summarizes each key over the repetitions: numbers as spreads, a recipe as its most frequent value, a key missing in some repetitions over those that have it', () => {
    const s = summarizeReps([
      { a: 10, recipe: 'etcd v3lock', once: 7 },
      { a: 30, recipe: 'etcd mutex' },
      { a: 20, recipe: 'etcd v3lock', b: undefined },
    ]);
    expect(s.a).to.deep.equal({ median: 20, min: 10, max: 30, n: 3 });
    expect(s.recipe).to.equal('etcd v3lock');
    expect(s.once).to.deep.equal({ median: 7, min: 7, max: 7, n: 1 });
    expect(s).to.not.have.property('b');
    expect(medians(s)).to.deep.equal({ a: 20, recipe: 'etcd v3lock', once: 7 });
  });

  it('formats "median [min–max]", the value alone for one repetition or no spread, "-" for none', () => {
    expect(formatSpread({ median: 1.234, min: 1.1, max: 1.4, n: 5 })).to.equal('1.23 [1.1–1.4]');
    expect(formatSpread({ median: 7, min: 7, max: 7, n: 1 })).to.equal('7');
    expect(formatSpread({ median: 7, min: 7, max: 7, n: 5 })).to.equal('7');
    expect(formatSpread(undefined)).to.equal('-');
  });

  it('estimates a run as repetitions × runs × (warm-up + window + overhead) + the fixed part', () => {
    expect(estimateMs({ reps: 5, runsPerRep: 27, warmupMs: 1000, windowMs: 5000, overheadMs: 700, fixedMs: 20_000 })).to.equal(5 * 27 * 6700 + 20_000);
  });
});
