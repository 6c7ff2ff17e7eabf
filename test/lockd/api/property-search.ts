// The search both API property tests share (api-property.test.ts, recipe-property.test.ts): run
// seeded sequences, retry a run that could not conclude, and shrink a failing one to the shortest
// sub-sequence found that still fails, so the error shows a seed and a few operations to replay.

/** One run of a sequence against the cluster and its model. */
export type RunResult =
  | { readonly kind: 'pass' }
  | { readonly kind: 'inconclusive'; readonly why: string }
  | { readonly kind: 'fail'; readonly why: string; readonly log: readonly string[] };
/** How often each path of interest was exercised (the tests require the ones that matter). */
export type Coverage = Map<string, number>;

export interface SeedSearch<Op> {
  readonly first: number;
  readonly last: number;
  sequence(seed: number): Op[];
  /** One run of `ops` in a fresh namespace (`attempt` counts every run, to keep namespaces apart). */
  runOnce(seed: number, ops: readonly Op[], attempt: number): Promise<RunResult>;
  /** Re-runs a shrink may spend. */
  readonly shrinkRuns: number;
}

/**
 * Runs seeds first..last. A run that ends inconclusive (e.g. UNAVAILABLE during a leader change) is
 * retried up to 3 times; a failing seed is shrunk and thrown with its replay line. Returns how many
 * seeds stayed inconclusive.
 */
export async function searchSeeds<Op>(s: SeedSearch<Op>): Promise<number> {
  let attempts = 0;
  const run = async (seed: number, ops: readonly Op[]): Promise<RunResult> => {
    let r: RunResult = { kind: 'inconclusive', why: 'not run' };
    for (let k = 0; k < 3 && r.kind === 'inconclusive'; k++) r = await s.runOnce(seed, ops, attempts++);
    return r;
  };
  let inconclusive = 0;
  for (let seed = s.first; seed <= s.last; seed++) {
    const ops = s.sequence(seed);
    const r = await run(seed, ops);
    if (r.kind === 'inconclusive') inconclusive++;
    if (r.kind !== 'fail') continue;
    const small = await shrink(ops, s.shrinkRuns, async (cand) => (await run(seed, cand)).kind === 'fail');
    const again = await run(seed, small);
    const shown = again.kind === 'fail' ? again : r;
    throw new Error(
      `seed ${seed}: ${shown.why}\nshrunk from ${ops.length} to ${small.length} ops (replay: LOCKD_PROP_SEEDS=${seed}-${seed}):\n${shown.log.join('\n')}`,
    );
  }
  return inconclusive;
}

/** Delta debugging by chunks: the shortest sub-sequence found (within `budget` runs) that still fails. */
async function shrink<Op>(ops: Op[], budget: number, fails: (cand: Op[]) => Promise<boolean>): Promise<Op[]> {
  let cur = ops;
  for (let chunk = Math.ceil(cur.length / 2); chunk >= 1 && budget > 0;) {
    let removed = false;
    for (let i = 0; i < cur.length && budget > 0; budget--) {
      const cand = [...cur.slice(0, i), ...cur.slice(i + chunk)];
      if (await fails(cand)) {
        cur = cand;
        removed = true;
      } else i += chunk;
    }
    if (!removed) chunk = Math.floor(chunk / 2);
  }
  return cur;
}
