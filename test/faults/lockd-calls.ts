// One gRPC call as the workload sees it: ok, a definite failure (the server answered and nothing
// changed, or the request never left this process), or unknown (it may have taken effect).
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { codeName } from '../../src/client/errors.js';

export type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'fail'; code: string; message: string } | { kind: 'unknown'; code: string; message: string };

/** How a definite or unknown failure is recorded in a history (the message bounded). */
export const failureRecord = (o: Exclude<Outcome<unknown>, { kind: 'ok' }>) => ({ code: o.code, message: o.message.slice(0, 300) });

/** Codes a server answers only when it changed nothing. */
const DEFINITE = new Set([
  Status.INVALID_ARGUMENT,
  Status.NOT_FOUND,
  Status.FAILED_PRECONDITION,
  Status.RESOURCE_EXHAUSTED,
  Status.OUT_OF_RANGE,
  Status.PERMISSION_DENIED,
  Status.UNAUTHENTICATED,
  Status.ALREADY_EXISTS,
  Status.UNIMPLEMENTED,
]);

/** UNAVAILABLE raised by this process's channel before anything was sent (nothing reached a server). */
const NEVER_SENT = /No connection established|ECONNREFUSED/;

export function classify<T>(err: ServiceError): Outcome<T> {
  const code = codeName(err.code);
  const message = err.details || err.message;
  if (DEFINITE.has(err.code)) return { kind: 'fail', code, message };
  if (err.code === Status.UNAVAILABLE && NEVER_SENT.test(message)) return { kind: 'fail', code: 'NOT_SENT', message };
  return { kind: 'unknown', code, message };
}

type UnaryFn<Req, Res> = (req: Req, options: { deadline: Date }, cb: (err: ServiceError | null, res?: Res) => void) => unknown;

/** Call a unary method with a deadline; never throws. */
export function unaryCall<Req, Res>(fn: UnaryFn<Req, Res>, req: Req, timeoutMs: number): Promise<Outcome<Res>> {
  return new Promise((resolve) => {
    try {
      fn(req, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => resolve(err ? classify<Res>(err) : { kind: 'ok', value: res! }));
    } catch (e) {
      resolve({ kind: 'fail', code: 'NOT_SENT', message: (e as Error).message });
    }
  });
}

export interface RetryOptions<T> {
  budgetMs: number;
  attemptMs: number;
  firstEndpoint: number;
  endpoints: number;
  /** Outcomes not to retry even though unknown (e.g. a wait that ran out of time). */
  final?: (o: Outcome<T>) => boolean;
  stop?: () => boolean;
  /** Told of every attempt that is followed by another: its outcome and when it started (Date.now()). */
  retried?: (o: Outcome<T>, startedAt: number) => void;
}

/**
 * Retry a call on successive endpoints until it is definite (ok or fail) or `budgetMs` runs out.
 * Returns the last outcome and whether any attempt was unknown: after an unknown attempt a later
 * failure no longer proves that nothing happened.
 */
export async function retryCall<T>(
  attempt: (endpointIndex: number, timeoutMs: number) => Promise<Outcome<T>>,
  opts: RetryOptions<T>,
): Promise<{ last: Outcome<T>; uncertain: boolean; endpoint: number; attempts: number; lastStartedAt: number }> {
  const until = Date.now() + opts.budgetMs;
  let ep = opts.firstEndpoint;
  let uncertain = false;
  let backoff = 20;
  for (let attempts = 1; ; attempts++) {
    const startedAt = Date.now();
    const left = until - startedAt;
    const o = await attempt(ep % opts.endpoints, Math.max(50, Math.min(opts.attemptMs, left)));
    if (o.kind === 'unknown') uncertain = true;
    const again = (o.kind === 'unknown' || (o.kind === 'fail' && o.code === 'NOT_SENT')) && !(opts.final?.(o) ?? false);
    if (!again || Date.now() + backoff >= until || opts.stop?.())
      return { last: o, uncertain, endpoint: ep % opts.endpoints, attempts, lastStartedAt: startedAt };
    opts.retried?.(o, startedAt);
    ep++;
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, 300);
  }
}
