// How far past `now + ttl` a lease's deadline lies (docs/design.md §4). The leader chooses both parts and
// carries them in every Grant and Tick entry, so that replicas never depend on configuration:
//  - marginMs, the leader's cap on one Tick's elapsed time (two lease-clock intervals, 200 ms by
//    default): the next Tick may count up to that much time from before the entry was proposed;
//  - driftPpm, the clock-rate difference between the leader and a client that the deadline
//    absorbs. A client stops trusting its lease at sendTime + ttl on its own monotonic clock; if
//    the leader's clock runs faster by r (as a fraction), its `ttl` passes in ttl / (1 + r) of the
//    client's time, so the deadline needs r · ttl more. The two parts add up: they cover different
//    errors that can occur together.
// Worked example, 1 h TTL: 3,600,000 + 200 + ceil(3,600,000 · 1,000 / 10^6) = now + 3,603,800 ms.
// The fixed 200 ms alone covered ~55 ppm at 1 h; 1,000 ppm (0.1 %) is far beyond what a quartz
// clock drifts (tens of ppm) and costs 3.6 s of extra lease life at that TTL. Pure.

/** The drift bound the leader puts in every Grant and Tick (parts per million of the TTL). */
export const DRIFT_BOUND_PPM = 1000;

/** Extra milliseconds a `ttlMs` lease gets for a clock-rate difference of `driftPpm` (rounded up). */
export function driftAllowanceMs(ttlMs: number, driftPpm: number): number {
  return Math.ceil((ttlMs * driftPpm) / 1_000_000);
}

/** The deadline an entry at logical time `now` gives a lease: now + ttl + margin + drift allowance. */
export function leaseDeadline(now: number, ttlMs: number, marginMs: number, driftPpm: number): number {
  return now + ttlMs + marginMs + driftAllowanceMs(ttlMs, driftPpm);
}

/** The margin fields a leader whose Ticks are capped at `maxElapsedMs` puts in its Grant and Tick entries. */
export function leaderMargins(maxElapsedMs: number): { marginMs: number; driftPpm: number } {
  return { marginMs: maxElapsedMs, driftPpm: DRIFT_BOUND_PPM };
}
