// The measurement window every workload uses: a warm-up whose operations are not counted, then a
// fixed window; an operation counts if it completes inside the window.
import { performance } from 'node:perf_hooks';

export interface WindowSpec {
  readonly warmupMs: number;
  readonly windowMs: number;
}

export class Window {
  readonly start: number;
  readonly end: number;

  constructor(spec: WindowSpec, now = performance.now()) {
    this.start = now + spec.warmupMs;
    this.end = this.start + spec.windowMs;
  }

  /** True once the window has closed: loops stop starting new operations. */
  get over(): boolean {
    return performance.now() >= this.end;
  }

  /** True if an operation completing now is counted. */
  counts(now = performance.now()): boolean {
    return now >= this.start && now < this.end;
  }

  get lengthMs(): number {
    return this.end - this.start;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
