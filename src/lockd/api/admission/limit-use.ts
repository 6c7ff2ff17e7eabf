// One admission limit as the node reports it: its name (the flag), its value, how much of it is in
// use now and how often it refused. /metrics reads these (observe/admission-metrics.ts); every
// refusal's message names the limit and its value, so a client's error leads to the flag.
import * as grpc from '@grpc/grpc-js';
import { ApiError } from '../api-error.js';

export class LimitUse {
  private refusedCount = 0;

  constructor(
    /** The flag without its dashes, e.g. 'max-streams-per-principal'. */
    readonly name: string,
    readonly limit: number,
    /** Current use (for a per-key limit: its largest key's). */
    readonly used: () => number,
    private readonly onRefusal: (use: LimitUse) => void = () => {},
  ) {}

  get refused(): number {
    return this.refusedCount;
  }

  /** Count a refusal; the error the caller gets: RESOURCE_EXHAUSTED naming the limit, its value and what to do. */
  refuse(detail: string): ApiError {
    this.refusedCount++;
    this.onRefusal(this);
    return new ApiError(grpc.status.RESOURCE_EXHAUSTED, `${this.name} limit of ${this.limit} reached${detail ? `: ${detail}` : ''}`);
  }
}

/** The per-key counts behind a per-key limit (per principal, per address): zero counts are dropped, so the map holds only what is in use. */
export class KeyedCounts {
  private readonly counts = new Map<string, number>();

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string, n: number): void {
    const v = (this.counts.get(key) ?? 0) + n;
    if (v <= 0) this.counts.delete(key);
    else this.counts.set(key, v);
  }

  /** The largest count (scrape time only: O(keys)). */
  max(): number {
    let m = 0;
    for (const v of this.counts.values()) if (v > m) m = v;
    return m;
  }

  get keys(): number {
    return this.counts.size;
  }
}
