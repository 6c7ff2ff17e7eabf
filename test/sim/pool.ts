// Run many seeds, spread over worker threads (one per core by default). Seeds are handed out in small
// batches so the workers stay busy; reports come back in completion order and are returned sorted by seed.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { runSim, type SimOptions, type SimReport } from './runner.js';

export type SeedOptions = Omit<SimOptions, 'seed'>;

export interface Job {
  readonly seeds: number[];
  readonly opts: SeedOptions;
}

export type WorkerReply = { report: SimReport; idle?: undefined } | { idle: true; report?: undefined };

export interface PoolOptions {
  readonly workers?: number;
  /** Called for each finished seed (in completion order). */
  readonly onReport?: (r: SimReport, done: number) => void;
}

const BATCH = 4;

export function defaultWorkers(): number {
  return Math.max(1, Math.min(availableParallelism(), 8));
}

/** Run seeds start..start+count-1 and return their reports, sorted by seed. */
export async function runSeeds(start: number, count: number, opts: SeedOptions, pool: PoolOptions = {}): Promise<SimReport[]> {
  const workers = Math.min(pool.workers ?? defaultWorkers(), Math.max(1, Math.ceil(count / BATCH)));
  const reports: SimReport[] = [];
  const onReport = (r: SimReport) => {
    reports.push(r);
    pool.onReport?.(r, reports.length);
  };
  if (workers <= 1) {
    for (let s = start; s < start + count; s++) onReport(runSim({ ...opts, seed: s }));
    return reports;
  }

  let next = start;
  const end = start + count;
  const takeBatch = (): number[] => {
    const seeds: number[] = [];
    while (seeds.length < BATCH && next < end) seeds.push(next++);
    return seeds;
  };
  const boot = new URL('./worker-boot.mjs', import.meta.url);
  const entry = new URL('./worker.ts', import.meta.url).href;
  const threads: Worker[] = [];
  try {
    await Promise.all(
      Array.from(
        { length: workers },
        () =>
          new Promise<void>((resolve, reject) => {
            const w = new Worker(boot, { workerData: { entry } });
            threads.push(w);
            const feed = () => {
              const seeds = takeBatch();
              if (seeds.length === 0) resolve();
              else w.postMessage({ seeds, opts } satisfies Job);
            };
            w.on('message', (msg: WorkerReply) => (msg.idle ? feed() : onReport(msg.report)));
            w.on('error', reject);
            w.on('exit', (code) => code !== 0 && reject(new Error(`sim worker exited with code ${code}`)));
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  return reports.sort((a, b) => a.seed - b.seed);
}
