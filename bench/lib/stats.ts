// Latency samples and rates for one measured window. Samples are kept whole (a window holds at most
// a few hundred thousand) so percentiles are exact, not bucketed.

export interface Summary {
  readonly count: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Linear-interpolated percentile of sorted values (q in [0, 1]). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export class Recorder {
  private readonly samples: number[] = [];

  add(ms: number): void {
    this.samples.push(ms);
  }

  get count(): number {
    return this.samples.length;
  }

  summary(windowMs: number): Summary {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return {
      count: sorted.length,
      perSecond: windowMs > 0 ? (sorted.length * 1000) / windowMs : NaN,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
    };
  }
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Round for display/JSON: 3 significant decimals below 10, fewer above. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
