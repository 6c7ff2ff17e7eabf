// Uncontended locking: C clients, each looping acquire → release on its own lock name, with a
// lease granted up front. Measures cycles/s and acquire/release latency.
import { performance } from 'node:perf_hooks';
import { Recorder, round } from '../lib/stats.js';
import { Window } from '../lib/window.js';
import { ErrorBudget, fmt, type WorkloadContext } from './context.js';

export interface UncontendedResult {
  readonly clients: number;
  /** Cycles completed inside the window. */
  readonly cycles: number;
  readonly cycles_per_s: number;
  readonly acquire_p50_ms: number;
  readonly acquire_p99_ms: number;
  readonly release_p50_ms: number;
  readonly release_p99_ms: number;
  readonly cycle_p50_ms: number;
  readonly cycle_p99_ms: number;
  readonly errors: number;
}

export async function runUncontended(ctx: WorkloadContext, address: string, clients: number, label: string): Promise<UncontendedResult> {
  const lockers = Array.from({ length: clients }, () => ctx.newLocker(address));
  const run = Math.random().toString(36).slice(2, 8);
  try {
    const leases = await Promise.all(lockers.map((l) => l.grant(60_000)));
    const acquire = new Recorder();
    const release = new Recorder();
    const cycle = new Recorder();
    const errors = new ErrorBudget(`uncontended C=${clients}`);
    const w = new Window(ctx.spec);
    ctx.onWindow?.(w);
    const loop = async (k: number) => {
      const name = `unc-${run}-${k}`;
      while (!w.over) {
        try {
          const t0 = performance.now();
          const held = await lockers[k].acquire(name, leases[k], 10_000);
          const t1 = performance.now();
          await lockers[k].release(held, 10_000);
          const t2 = performance.now();
          if (w.counts(t2)) {
            acquire.add(t1 - t0);
            release.add(t2 - t1);
            cycle.add(t2 - t0);
          }
        } catch (e) {
          errors.note(e);
        }
      }
    };
    await Promise.all(lockers.map((_, k) => loop(k)));
    const c = cycle.summary(w.lengthMs);
    const a = acquire.summary(w.lengthMs);
    const r = release.summary(w.lengthMs);
    const res: UncontendedResult = {
      clients,
      cycles: c.count,
      cycles_per_s: round(c.perSecond),
      acquire_p50_ms: round(a.p50Ms),
      acquire_p99_ms: round(a.p99Ms),
      release_p50_ms: round(r.p50Ms),
      release_p99_ms: round(r.p99Ms),
      cycle_p50_ms: round(c.p50Ms),
      cycle_p99_ms: round(c.p99Ms),
      errors: errors.count,
    };
    ctx.log(
      `[${label}] uncontended C=${clients}: ${fmt(res.cycles_per_s, 0)} cycles/s, acquire p50 ${fmt(res.acquire_p50_ms, 2)} ms p99 ${fmt(res.acquire_p99_ms, 2)} ms, release p50 ${fmt(res.release_p50_ms, 2)} ms${errors.count ? `, ${errors.count} errors (${errors.first})` : ''}`,
    );
    await Promise.all(lockers.map((l, k) => l.revoke(leases[k]).catch(() => {})));
    return res;
  } finally {
    for (const l of lockers) l.close();
  }
}
