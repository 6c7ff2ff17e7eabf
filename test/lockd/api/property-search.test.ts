// The property tests' seed search on its own (no cluster): it must report a failing seed with a
// shrunk sequence, retry an inconclusive run, and count the seeds that stay inconclusive.
import { expect } from 'chai';
import { searchSeeds, type RunResult } from './property-search.js';

const ops = [1, 2, 3, 4, 5, 6, 7, 8, 9];
const failsWith3And7 = async (_seed: number, o: readonly number[]): Promise<RunResult> =>
  o.includes(3) && o.includes(7) ? { kind: 'fail', why: 'needs 3 and 7', log: [o.join(',')] } : { kind: 'pass' };

describe('property search (shared by the API property tests)', () => {
  it('throws for the first failing seed, with the sequence shrunk to what still fails', async () => {
    let error = '';
    await searchSeeds({ first: 4, last: 9, shrinkRuns: 60, sequence: () => ops, runOnce: failsWith3And7 }).catch((e: Error) => (error = e.message));
    expect(error).to.match(/^seed 4: needs 3 and 7\nshrunk from 9 to 2 ops \(replay: LOCKD_PROP_SEEDS=4-4\):\n3,7$/);
  });

  it('retries an inconclusive run up to three times and counts the seeds that stay inconclusive', async () => {
    const calls = new Map<number, number>();
    const inconclusive = await searchSeeds({
      first: 1,
      last: 3,
      shrinkRuns: 60,
      sequence: () => ops,
      // seed 1 concludes on its second run, seed 2 never, seed 3 at once
      runOnce: async (seed): Promise<RunResult> => {
        const n = (calls.get(seed) ?? 0) + 1;
        calls.set(seed, n);
        return (seed === 1 && n === 2) || seed === 3 ? { kind: 'pass' } : { kind: 'inconclusive', why: 'UNAVAILABLE' };
      },
    });
    expect(inconclusive).to.equal(1);
    expect([...calls]).to.deep.equal([
      [1, 2],
      [2, 3],
      [3, 1],
    ]);
  });
});
