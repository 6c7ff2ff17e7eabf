// Repetitions (the performance round's hygiene): every figure is the median of N interleaved repetitions, shown
// with its spread. Pure helpers: the order systems run in, the median and range of a figure, and
// the summary of each headline key over the repetitions.
import { percentile, round } from './stats.js';

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Repetitions that gave a (finite) value. */
  readonly n: number;
}

/** Median and range of the finite values; undefined when there are none. */
export function spread(values: ReadonlyArray<number | undefined>): Spread | undefined {
  const xs = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  return { median: percentile(xs, 0.5), min: xs[0], max: xs[xs.length - 1], n: xs.length };
}

/**
 * The order of the systems in repetition `rep`: rotated by one each time (A B C, B C A, C A B, ...),
 * so that no system always runs first after another workload or always follows the same one.
 */
export function rotation<T>(systems: readonly T[], rep: number): T[] {
  const n = systems.length;
  if (n === 0) return [];
  const k = ((rep % n) + n) % n;
  return [...systems.slice(k), ...systems.slice(0, k)];
}

export interface PlannedRun<S, W> {
  readonly rep: number;
  readonly workload: W;
  readonly system: S;
}

/**
 * The order of every run: repetition after repetition (so a slow spell of the machine hits one
 * repetition of everything, not all repetitions of one workload), each workload in turn, and each
 * workload against every system back to back in the repetition's rotated order.
 */
export function interleave<S, W>(systems: readonly S[], workloads: readonly W[], reps: number): Array<PlannedRun<S, W>> {
  const out: Array<PlannedRun<S, W>> = [];
  for (let rep = 0; rep < reps; rep++) for (const workload of workloads) for (const system of rotation(systems, rep)) out.push({ rep, workload, system });
  return out;
}

/** Each numeric key's spread over the repetitions' headlines; a string key (a recipe) keeps its most frequent value. */
export function summarizeReps(heads: ReadonlyArray<Record<string, unknown>>): Record<string, Spread | string> {
  const keys = new Set(heads.flatMap((h) => Object.keys(h)));
  const out: Record<string, Spread | string> = {};
  for (const k of keys) {
    const vals = heads.map((h) => h[k]);
    if (vals.some((v) => typeof v === 'string')) {
      const counts = new Map<string, number>();
      for (const v of vals) if (typeof v === 'string') counts.set(v, (counts.get(v) ?? 0) + 1);
      out[k] = [...counts].sort((a, b) => b[1] - a[1])[0][0];
      continue;
    }
    const s = spread(vals as Array<number | undefined>);
    if (s) out[k] = s;
  }
  return out;
}

/** The medians alone (what ratios and target checks read). */
export function medians(summary: Record<string, Spread | string>): Record<string, number | string> {
  return Object.fromEntries(Object.entries(summary).map(([k, v]) => [k, typeof v === 'string' ? v : round(v.median)]));
}

/** "1.23 [1.1–1.4]" (the value alone when there was one repetition or no spread). */
export function formatSpread(s: Spread | undefined, fmt: (x: number) => string = (x) => String(round(x))): string {
  if (!s) return '-';
  const m = fmt(s.median);
  if (s.n === 1 || s.min === s.max) return m;
  return `${m} [${fmt(s.min)}–${fmt(s.max)}]`;
}

export interface RunPlan {
  readonly reps: number;
  /** Workload runs in one repetition (each system, API and recipe counted). */
  readonly runsPerRep: number;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Set-up and tear-down of one run (clients, leases, scrapes, revokes): measured ~0.6 s on a quiet machine. */
  readonly overheadMs: number;
  /** Everything else: cluster starts, floors, keepalive, failover, profile. */
  readonly fixedMs: number;
}

export function estimateMs(p: RunPlan): number {
  return p.reps * p.runsPerRep * (p.warmupMs + p.windowMs + p.overheadMs) + p.fixedMs;
}
