// Failover: kill -9 the leader, then time until a fresh acquire succeeds at a survivor. Attempts
// start every `everyMs` at each survivor (each a new lock name, with a lease granted before the
// kill) without waiting for earlier ones, so the figure's resolution is `everyMs`.
import { performance } from 'node:perf_hooks';
import { InFlight } from '../lib/grpc-call.js';
import { median, round } from '../lib/stats.js';
import { sleep } from '../lib/window.js';
import type { BenchCluster } from '../clusters/cluster.js';
import type { Locker } from '../systems/locker.js';
import { fmt, type WorkloadContext } from './context.js';

export interface FailoverResult {
  readonly setting: string;
  readonly trials_ms: number[];
  readonly median_ms: number;
}

export async function runFailover(
  ctx: WorkloadContext,
  cluster: BenchCluster,
  trials: number,
  setting: string,
  label: string,
  everyMs = 10,
  capMs = 30_000,
): Promise<FailoverResult> {
  const lockers = new Map<string, Locker>(cluster.nodes.map((n) => [n.id, ctx.newLocker(n.clientAddress)]));
  const results: number[] = [];
  try {
    for (let t = 1; t <= trials; t++) {
      const leader = await cluster.waitForLeader(30_000);
      const survivors = cluster.nodes.filter((n) => n.id !== leader.id && n.proc?.running);
      const first = lockers.get(survivors[0].id)!;
      const lease = await first.grant(120_000);
      // Warm every survivor's connection with one full cycle through it.
      for (const s of survivors) {
        const l = lockers.get(s.id)!;
        await l.release(await l.acquire(`fo-warm-${t}-${s.id}-${Date.now()}`, lease, 5000), 5000);
      }
      const inflight = new InFlight();
      let done: number | undefined;
      let k = 0;
      const t0 = performance.now();
      await cluster.kill(leader.id);
      while (done === undefined && performance.now() - t0 < capMs) {
        for (const s of survivors) {
          const name = `fo-${t}-${k++}-${Date.now()}`;
          lockers
            .get(s.id)!
            .acquire(name, lease, 2000, inflight)
            .then(
              () => (done ??= performance.now() - t0),
              () => {},
            );
        }
        await sleep(everyMs);
      }
      inflight.cancelAll();
      if (done === undefined) throw new Error(`failover trial ${t}: no acquire succeeded within ${capMs} ms`);
      results.push(done);
      ctx.log(`[${label}] failover (${setting}) trial ${t}: ${fmt(done, 0)} ms (killed ${leader.id})`);
      cluster.restart(leader.id);
      await cluster.waitForLeader(30_000);
    }
    const res = { setting, trials_ms: results.map(round), median_ms: round(median(results)) };
    ctx.log(`[${label}] failover (${setting}): median ${fmt(res.median_ms, 0)} ms of [${res.trials_ms.join(', ')}]`);
    return res;
  } finally {
    for (const l of lockers.values()) l.close();
  }
}
