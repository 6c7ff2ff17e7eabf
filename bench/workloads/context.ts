// What every workload is given: where to report progress and how long to measure.
import type { Window, WindowSpec } from '../lib/window.js';
import type { Locker } from '../systems/locker.js';

export interface WorkloadContext {
  readonly log: (line: string) => void;
  readonly spec: WindowSpec;
  /** A new client of the system under test, dialling `address`. */
  readonly newLocker: (address: string) => Locker;
  /** Told the measured window as soon as it is set (bench/lib/meter.ts samples CPU and counters at its edges). */
  readonly onWindow?: (w: Window) => void;
}

/** Stop a workload that piles up errors instead of measuring it. */
export class ErrorBudget {
  count = 0;
  first: string | undefined;

  constructor(
    private readonly what: string,
    private readonly limit = 200,
  ) {}

  note(e: unknown): void {
    this.count++;
    this.first ??= (e as Error).message;
    if (this.count > this.limit) throw new Error(`${this.what}: more than ${this.limit} errors; first: ${this.first}`);
  }
}

/** Grant `n` leases with at most `concurrency` grants in flight. */
export async function grantMany(locker: Locker, n: number, ttlMs: number, concurrency = 64): Promise<string[]> {
  const out: string[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const k = next++;
      out[k] = await locker.grant(ttlMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return out;
}

export const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
