// The lock API's time constants, derived from the node's Raft tick, and call-deadline arithmetic.
// Deadlines are wall-clock epoch milliseconds because that is what gRPC carries; nothing here
// decides a lease (the replicated clock does, docs/design.md §4).
import type { NodeConfig } from '../node/config.js';
import { leaseClockTiming, type LeaseClockTiming } from '../node/lease-clock.js';
import { realClock, type Clock } from '../node/clock.js';
import { MAX_TIMER_MS, timerAt } from './timer-at.js';

/** The node's lease clock timing (leaseTickMs, maxElapsedMs: the margin a Grant carries) and the API's own bounds. */
export interface ApiTiming extends LeaseClockTiming {
  /** Server-side bound on a proposal or read barrier: a few election timeouts, then UNAVAILABLE. */
  readonly writeBoundMs: number;
  /** How long a call waits for an election to produce a leader before answering UNAVAILABLE. */
  readonly leaderWaitMs: number;
  /** A cancelled waiting Acquire leaves the queue after this long, unless a retry of it arrived. */
  readonly cancelGraceMs: number;
  /** How long a node keeps trying to cancel an abandoned wait through the leader. */
  readonly cleanupBudgetMs: number;
}

export function apiTiming(config: Pick<NodeConfig, 'tickMs' | 'electionTicks'>): ApiTiming {
  const electionMs = config.tickMs * config.electionTicks;
  return {
    ...leaseClockTiming(config),
    writeBoundMs: Math.max(1000, 3 * electionMs),
    leaderWaitMs: Math.max(200, 2 * electionMs),
    cancelGraceMs: Math.max(1000, 2 * electionMs),
    cleanupBudgetMs: Math.max(10_000, 10 * electionMs),
  };
}

/** A call's deadline as epoch ms (Infinity when the client set none). */
export function deadlineOf(call: { getDeadline(): Date | number }): number {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : d;
  return Number.isFinite(ms) ? ms : Infinity;
}

/**
 * When the server must answer a call with deadline `deadline` if its work takes longer than
 * `boundMs`: a little before the client's deadline (so the client hears why, e.g. UNAVAILABLE with
 * the leader, instead of a bare DEADLINE_EXCEEDED), and never later than the server's own bound.
 */
export function answerBy(deadline: number, boundMs: number, now = Date.now()): number {
  const remaining = deadline - now;
  const slack = Math.min(100, Math.max(0, Math.floor(remaining / 10)));
  return Math.min(deadline - slack, now + boundMs);
}

export class TimeoutError extends Error {}

/** `p`, or a TimeoutError at epoch ms `at` on `clock` (the work itself is not cancelled). */
export function settleBy<T>(p: Promise<T>, at: number, what: string, clock: Clock = realClock): Promise<T> {
  const ms = at - clock.wallMs();
  if (!Number.isFinite(ms)) return p;
  return new Promise<T>((resolve, reject) => {
    const timer = timerAt(at, () => reject(new TimeoutError(`${what} did not complete within ${Math.max(0, Math.round(ms))} ms`)), MAX_TIMER_MS, clock).unref(); // never keeps a stopping node alive: `p` is what the caller waits on
    p.then(
      (v) => {
        timer.clear();
        resolve(v);
      },
      (e: unknown) => {
        timer.clear();
        reject(e as Error);
      },
    );
  });
}
