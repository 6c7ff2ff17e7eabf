// Errors the client raises. Server failures keep their gRPC code name so callers can branch on
// it ('NOT_FOUND', 'FAILED_PRECONDITION', ...) without importing gRPC; the loss of a lease or a
// lock is its own class because it is not a failed call but a fact the holder must act on.
import { status as Status, type ServiceError } from '@grpc/grpc-js';

/** gRPC status code names by number (0 → 'OK', 14 → 'UNAVAILABLE', ...). */
const CODE_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(Status)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
);

export function codeName(code: number): string {
  return CODE_NAMES.get(code) ?? `CODE_${code}`;
}

/** A call failed: the gRPC code (number and name), the server's message, and the leader it named. */
export class LockdError extends Error {
  override readonly name = 'LockdError';
  constructor(
    /** gRPC status code name, e.g. 'NOT_FOUND'. */
    readonly codeName: string,
    /** gRPC status code number. */
    readonly code: number,
    /** The server's (or the client's) explanation. */
    readonly details: string,
    /** Client address of the leader when an UNAVAILABLE named it. */
    readonly leader?: string,
  ) {
    super(`${codeName}: ${details}`);
  }
}

/** The lease can no longer be trusted: the abort reason of Lease.signal (and of its locks' signals). */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly leaseId: number,
    /**
     * expired: no keepalive was acknowledged in time, so the local deadline (send time of the last
     *   acknowledged keepalive + TTL) passed — the cluster may expire the lease from now on;
     * gone: the cluster said the lease no longer exists (ttl_ms = 0 or NOT_FOUND);
     * revoked / closed: this client revoked or closed it;
     * aborted: the caller's own signal (the liveness it tied the lease to) aborted.
     */
    readonly why: 'expired' | 'gone' | 'revoked' | 'closed' | 'aborted',
    detail?: string,
  ) {
    super(`lease ${leaseId} lost (${why})${detail ? `: ${detail}` : ''}`);
  }
}

/** The lock is no longer held with this token: the abort reason of Lock.signal. */
export class LockLostError extends Error {
  override readonly name = 'LockLostError';
  constructor(
    readonly lockName: string,
    readonly token: number,
    /**
     * lease: its lease was lost (see cause); released / expired: the cluster reported the grant
     * released (by someone holding the token, or a revoke) or expired — also thrown by acquire()
     * when a retry finds its request's grant already ended (AcquireResponse.grant_ended); superseded: a later grant
     * was seen; released-here: this handle released it.
     */
    readonly why: 'lease' | 'released' | 'expired' | 'superseded' | 'released-here',
    options?: { cause?: unknown },
  ) {
    super(`lock ${JSON.stringify(lockName)} (token ${token}) no longer held (${why})`, options);
  }
}

/** acquire(name, { wait: false }) found the lock held by another lease. */
export class LockHeldError extends Error {
  override readonly name = 'LockHeldError';
  constructor(
    readonly lockName: string,
    readonly holderLeaseId: number,
  ) {
    super(`lock ${JSON.stringify(lockName)} is held by lease ${holderLeaseId}`);
  }
}

function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && typeof (e as Partial<ServiceError>).code === 'number' && 'details' in e;
}

// The server's wording, "... the leader is n2 at 127.0.0.1:7002" (only that: other addresses in a
// message, e.g. of a leader a follower failed to reach, are not hints).
const LEADER_IN_TEXT = /\bleader is (?:\S+ at )?((?:\d{1,3}\.){3}\d{1,3}|\[[0-9A-Fa-f:.]+\]|localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*):(\d{1,5})\b/;

/** The leader's client address an UNAVAILABLE carries: the `lockd-leader` trailer, else the message. */
export function leaderHint(e: Pick<ServiceError, 'code' | 'details' | 'metadata'>): string | undefined {
  if (e.code !== Status.UNAVAILABLE) return undefined;
  const fromTrailer = e.metadata?.get('lockd-leader')?.[0];
  if (typeof fromTrailer === 'string' && fromTrailer !== '') return fromTrailer;
  const m = LEADER_IN_TEXT.exec(e.details ?? '');
  return m ? `${m[1]}:${m[2]}` : undefined;
}

/** Any failure of a call as a LockdError (client-side failures keep their own class). */
export function toLockdError(e: unknown): Error {
  if (e instanceof LockdError || e instanceof LeaseLostError || e instanceof LockLostError || e instanceof LockHeldError) return e;
  // grpc-js ends connection failures with an empty "Resolution note: "; drop it.
  if (isServiceError(e)) return new LockdError(codeName(e.code), e.code, (e.details || e.message).replace(/\s*Resolution note:\s*$/, ''), leaderHint(e));
  return e instanceof Error ? e : new Error(String(e));
}

/** A client-side failure with a gRPC code (a deadline we enforce, a call the caller aborted). */
export function clientError(code: number, details: string): LockdError {
  return new LockdError(codeName(code), code, details);
}
