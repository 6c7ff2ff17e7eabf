// Contended locking: C clients on ONE lock name, each looping blocking acquire → release. Counts
// handoffs (acquires completed) per second and the acquire wait, and checks mutual exclusion on
// the client side (a holder clears its mark before it sends its release).
import { performance } from 'node:perf_hooks';
import { InFlight } from '../lib/grpc-call.js';
import { Recorder, round } from '../lib/stats.js';
import { Window, sleep } from '../lib/window.js';
import { ErrorBudget, fmt, type WorkloadContext } from './context.js';

export interface ContendedResult {
  readonly clients: number;
  readonly recipe: string;
  /** Hand-offs (acquires) completed inside the window: the contended cycle. */
  readonly cycles: number;
  readonly handoffs_per_s: number;
  readonly wait_p50_ms: number;
  readonly wait_p99_ms: number;
  readonly exclusion_violations: number;
  readonly errors: number;
}

export async function runContended(ctx: WorkloadContext, address: string, clients: number, label: string): Promise<ContendedResult> {
  const lockers = Array.from({ length: clients }, () => ctx.newLocker(address));
  const name = `cont-${clients}-${Math.random().toString(36).slice(2, 8)}`;
  const inflight = new InFlight();
  try {
    const leases = await Promise.all(lockers.map((l) => l.grant(60_000)));
    const wait = new Recorder();
    const errors = new ErrorBudget(`contended C=${clients}`);
    let holder = -1;
    let violations = 0;
    const w = new Window(ctx.spec);
    ctx.onWindow?.(w);
    let stopping = false;
    const loop = async (k: number) => {
      while (!w.over && !stopping) {
        try {
          const t0 = performance.now();
          const held = await lockers[k].acquire(name, leases[k], 30_000, inflight);
          const t1 = performance.now();
          if (holder !== -1) violations++;
          holder = k;
          if (w.counts(t1)) wait.add(t1 - t0);
          holder = -1;
          await lockers[k].release(held, 10_000);
        } catch (e) {
          if (!w.over && !stopping) errors.note(e);
        }
      }
    };
    const loops = Promise.all(lockers.map((_, k) => loop(k)));
    await sleep(Math.max(0, w.end - performance.now()));
    // Waiters still queued when the window closes: cancel them rather than wait for their turn.
    stopping = true;
    inflight.cancelAll();
    await Promise.race([loops, sleep(15_000)]);
    const s = wait.summary(w.lengthMs);
    const res: ContendedResult = {
      clients,
      recipe: lockers[0].label,
      cycles: s.count,
      handoffs_per_s: round(s.perSecond),
      wait_p50_ms: round(s.p50Ms),
      wait_p99_ms: round(s.p99Ms),
      exclusion_violations: violations,
      errors: errors.count,
    };
    ctx.log(
      `[${label}] contended C=${clients} (${res.recipe}): ${fmt(res.handoffs_per_s, 1)} handoffs/s, wait p50 ${fmt(res.wait_p50_ms, 1)} ms p99 ${fmt(res.wait_p99_ms, 1)} ms${violations ? `, ${violations} EXCLUSION VIOLATIONS` : ''}${errors.count ? `, ${errors.count} errors (${errors.first})` : ''}`,
    );
    await Promise.all(lockers.map((l, k) => l.revoke(leases[k]).catch(() => {})));
    return res;
  } finally {
    inflight.cancelAll();
    for (const l of lockers) l.close();
  }
}
