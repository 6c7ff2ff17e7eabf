// Time for the client: deadlines and send times on the monotonic clock (performance.now()), never
// Date — a wall clock that steps would make a lease look alive longer than it is. gRPC wants
// wall-clock deadlines, so they are converted only at the call.
import { clientError } from './errors.js';
import { status as Status } from '@grpc/grpc-js';

/** Now on the monotonic clock, in milliseconds. */
export function monoNow(): number {
  return performance.now();
}

/** The longest delay setTimeout honours: a longer one fires after 1 ms instead (a Node timer limit). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A monotonic deadline timeoutMs from now (Infinity when no timeout). */
export function deadlineAfter(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined || timeoutMs === Infinity) return Infinity;
  if (!(timeoutMs >= 0)) throw new Error(`timeout must be a non-negative number of milliseconds, got ${timeoutMs}`);
  return monoNow() + timeoutMs;
}

/**
 * A deadline further ahead than this is not sent on the wire: grpc-js servers (lockd's) read a
 * grpc-timeout above 2^31-1 ms as negative and fail the call at once. The client enforces it instead.
 */
export const MAX_WIRE_DEADLINE_MS = MAX_TIMER_MS - 60_000;

/** The gRPC deadline (wall clock Date) for a monotonic deadline; Infinity stays Infinity, and so does one beyond MAX_WIRE_DEADLINE_MS. */
export function grpcDeadline(monoDeadline: number): Date | number {
  if (monoDeadline === Infinity || monoDeadline - monoNow() > MAX_WIRE_DEADLINE_MS) return Infinity;
  return new Date(Date.now() + Math.max(0, monoDeadline - monoNow()));
}

/**
 * setTimeout for any delay on the monotonic clock: a delay beyond MAX_TIMER_MS (a 30-day timeout) is
 * waited in steps, each re-measuring what is left. Infinity never fires. Returns the cancel function.
 */
export function longTimeout(fn: () => void, ms: number, maxStepMs = MAX_TIMER_MS): () => void {
  if (!(ms < Infinity)) return () => {};
  const due = monoNow() + ms;
  let current: NodeJS.Timeout;
  const step = (): void => {
    const rest = due - monoNow();
    current = rest > maxStepMs ? setTimeout(step, maxStepMs) : setTimeout(fn, Math.max(0, rest));
  };
  step();
  return () => clearTimeout(current);
}

/** Resolve after ms, or reject with the signal's reason if it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error a call aborted by `signal` fails with: its reason if that is an Error, else CANCELLED. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : clientError(Status.CANCELLED, `aborted: ${String(signal.reason)}`);
}

/** Exponential backoff, jittered: between half and all of min(max, initial·2^attempt) ms. */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly initialMs = 50,
    private readonly maxMs = 1000,
  ) {}
  next(): number {
    const cap = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(cap / 2 + (Math.random() * cap) / 2);
  }
  reset(): void {
    this.attempt = 0;
  }
}
