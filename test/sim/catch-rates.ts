// Catch rates: for every planted bug (planted.ts), seeds 1..N of the run that plants it — how many a check
// caught, the first, and the median simulated time (steps) to the violation; then the correct build on the same
// seeds of every distinct run, which must report nothing.

import { runSeeds, type SeedOptions } from './pool.js';
import { withoutBug, type PlantedRun } from './planted.js';
import type { SimReport } from './runner.js';

export interface BugRate {
  readonly bug: string;
  readonly layer: string;
  readonly caught: number;
  readonly firstSeed: number | null;
  /** Median step of the violation among caught seeds (null when never caught). */
  readonly medianStep: number | null;
  /** Checks that caught it, with counts. */
  readonly checks: Readonly<Record<string, number>>;
}

export interface CatchRates {
  readonly seeds: number;
  readonly start: number;
  readonly bugs: BugRate[];
  readonly correct: { readonly violations: number; readonly runs: number; readonly failing: { seed: number; replay: string; check: string }[] };
}

/** `correctOnly`: only the correct build on every run kind (the long clean run: `--catch-rates --correct-only --seeds 10000`). */
export async function catchRates(
  runs: readonly PlantedRun[],
  seeds: number,
  start = 1,
  workers = 1,
  progress?: (line: string) => void,
  correctOnly = false,
): Promise<CatchRates> {
  const bugs: BugRate[] = [];
  for (const r of correctOnly ? [] : runs) {
    const reports = await runSeeds(start, seeds, r.opts, { workers });
    const caught = reports.filter((x) => x.violation).sort((a, b) => a.seed - b.seed);
    const steps = caught.map((x) => x.violation!.step).sort((a, b) => a - b);
    const checks: Record<string, number> = {};
    for (const x of caught) checks[x.violation!.check] = (checks[x.violation!.check] ?? 0) + 1;
    bugs.push({
      bug: r.bug,
      layer: r.layer,
      caught: caught.length,
      firstSeed: caught[0]?.seed ?? null,
      medianStep: steps.length > 0 ? steps[Math.floor((steps.length - 1) / 2)] : null,
      checks,
    });
    progress?.(`catch-rates: ${r.bug} ${caught.length}/${seeds}`);
  }
  // The correct build on each distinct run the bugs used.
  const shapes = new Map<string, SeedOptions>();
  for (const r of runs) {
    const o = withoutBug(r.opts);
    shapes.set(JSON.stringify(o), o);
  }
  const failing: CatchRates['correct']['failing'] = [];
  for (const o of shapes.values()) {
    const reports: SimReport[] = await runSeeds(start, seeds, o, { workers });
    for (const x of reports) if (x.violation) failing.push({ seed: x.seed, replay: x.replay, check: x.violation.check });
    progress?.(`catch-rates: correct build ${JSON.stringify(o)} ${reports.filter((x) => x.violation).length}/${seeds}`);
  }
  return { seeds, start, bugs, correct: { violations: failing.length, runs: shapes.size, failing } };
}

export function formatCatchRates(c: CatchRates): string {
  const rows = c.bugs.map((b) => {
    const checks = Object.entries(b.checks)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    return (
      `${b.bug.padEnd(34)} ${b.layer.padEnd(16)} ${`${b.caught}/${c.seeds}`.padStart(8)}  first ${String(b.firstSeed ?? '-').padStart(4)}  ` +
      `median step ${String(b.medianStep ?? '-').padStart(5)}  ${checks}`
    );
  });
  return [
    `catch rates, seeds ${c.start}..${c.start + c.seeds - 1}:`,
    ...rows,
    `correct build: ${c.correct.violations} violations in ${c.correct.runs} run kinds × ${c.seeds} seeds`,
    ...c.correct.failing.map((f) => `  ${f.check}: ${f.replay}`),
  ].join('\n');
}

export function catchRatesJson(c: CatchRates): string {
  return JSON.stringify({
    seeds: c.seeds,
    bugs: c.bugs.map((b) => ({ bug: b.bug, caught: b.caught, firstSeed: b.firstSeed })),
    correct: { violations: c.correct.violations },
  });
}
