// What applying one command answers its proposer. The service maps `error` to the gRPC status code
// of the same name; everything else maps to the reply message fields.

import type { CommandType } from './commands.js';

export type ErrorKind = 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'FAILED_PRECONDITION' | 'RESOURCE_EXHAUSTED' | 'PERMISSION_DENIED';

/** A refused command. It changed nothing (except appliedIndex). */
export interface Failure {
  readonly type: CommandType;
  readonly ok: false;
  readonly error: ErrorKind;
  readonly message: string;
  /** FenceWrite/FenceDelete refused for a stale token: the highest token accepted for the key. */
  readonly highestToken?: number;
}

export interface GrantResult {
  readonly type: 'Grant';
  readonly ok: true;
  readonly leaseId: number;
  readonly ttlMs: number;
  /** True when a retried requestId returned the first result instead of applying again. */
  readonly duplicate: boolean;
}

export interface RevokeResult {
  readonly type: 'Revoke';
  readonly ok: true;
  readonly leaseId: number;
  /** Lock names the lease held, released by this entry (sorted). */
  readonly releasedLocks: readonly string[];
}

export interface RenewedLease {
  readonly leaseId: number;
  /** The lease's granted TTL: the keepalive reply's ttl_ms. */
  readonly ttlMs: number;
}

export interface TickResult {
  readonly type: 'Tick';
  readonly ok: true;
  /** Logical time after this entry. */
  readonly now: number;
  /** Keepalives answered with ttl_ms > 0, in the order of the command (duplicates dropped). */
  readonly renewed: readonly RenewedLease[];
  /** Keepalives for leases already expired/revoked/unknown: answer ttl_ms = 0. */
  readonly gone: readonly number[];
  /** Leases this entry expired (ascending). */
  readonly expired: readonly number[];
}

/**
 * acquired: this lease holds the lock with `token` (new grant, or already held: idempotent).
 * held:     wait=false and someone else holds it: holderLeaseId/holderToken say who.
 * queued:   wait=true and someone else holds it: the lease is in the FIFO queue at `position` (1 = next).
 *           The grant arrives later as an ACQUIRED event for (name, leaseId); the lease's death as WAITER_REMOVED.
 * ended:    only for a retry (duplicate): the request was granted the lock with `endedToken`, and that
 *           grant has ended since (released). Not acquired, nothing changed; holderLeaseId/holderToken
 *           are the current holder (0 = free). A retry never takes the lock again for its request.
 * A retried try-lock that got nothing answers 'held' (or 'queued' while its lease waits by another
 * call) with the holder as of now, which may be 0 (free now) or its own lease (granted by another call).
 */
export type AcquireStatus = 'acquired' | 'held' | 'queued' | 'ended';

export interface AcquireResult {
  readonly type: 'Acquire';
  readonly ok: true;
  readonly status: AcquireStatus;
  /** The lease's fencing token when status = acquired, else 0. */
  readonly token: number;
  /** With status = acquired: whether that grant is shared now (a downgrade since makes a retry say so), else false. */
  readonly shared: boolean;
  /** The current holder (the caller's own lease when acquired). */
  readonly holderLeaseId: number;
  /** The current holder's token (= token when acquired). */
  readonly holderToken: number;
  /** 1-based queue position when queued, else 0. */
  readonly position: number;
  /** With status = ended: the token the request had been granted, else 0. */
  readonly endedToken: number;
  /** Not acquired while a lock-delay runs on the name: how long it still runs (logical ms), else 0. */
  readonly delayRemainingMs: number;
  readonly duplicate: boolean;
}

export interface ReleaseResult {
  readonly type: 'Release';
  readonly ok: true;
  /** False: the token is not the current holder's (stale); nothing changed. */
  readonly released: boolean;
}

export interface FenceWriteResult {
  readonly type: 'FenceWrite';
  readonly ok: true;
  /** Highest token accepted for the key after this write (= the write's token). */
  readonly highestToken: number;
}

export interface FenceDeleteResult {
  readonly type: 'FenceDelete';
  readonly ok: true;
  /** True if the key held a value and this entry deleted it (a replay: the first attempt's answer). */
  readonly deleted: boolean;
  /** Highest token accepted for the key after this entry (0 for a key never written). */
  readonly highestToken: number;
}

export interface CancelWaitResult {
  readonly type: 'CancelWait';
  readonly ok: true;
  /** True if the lease was waiting and left the queue. */
  readonly removed: boolean;
  /**
   * The lease's token if it holds the lock at this entry (e.g. it was granted just before the cancel
   * was applied), else 0; 0 too when a later call re-asserted the lease's interest (abandonedAtIndex).
   * Without abandonedAtIndex, a service that can no longer deliver that grant should Release(name, heldToken).
   */
  readonly heldToken: number;
  /** True when this entry released heldToken (abandonedAtIndex > 0, and no later call was handed the grant). */
  readonly released: boolean;
}

export interface SetPermitsResult {
  readonly type: 'SetPermits';
  readonly ok: true;
  /** The permits before and after this entry (a replay: the first attempt's). */
  readonly previous: number;
  readonly permits: number;
  /** Waiters this entry granted (they now fit). */
  readonly granted: number;
}

export interface ProclaimResult {
  readonly type: 'Proclaim';
  readonly ok: true;
}

export interface AclGrantResult {
  readonly type: 'AclGrant';
  readonly ok: true;
  /** False: the rule was already there (nothing changed). */
  readonly created: boolean;
}

export interface AclRevokeResult {
  readonly type: 'AclRevoke';
  readonly ok: true;
  /** False: there was no such rule (nothing changed). */
  readonly removed: boolean;
}

export interface QuotaSetResult {
  readonly type: 'QuotaSet';
  readonly ok: true;
  /** The principal's quotas in force after this entry (defaults filled in). */
  readonly quotas: Readonly<Record<'leases' | 'locks' | 'dedupIds' | 'electionBytes' | 'fenceKeys', number>>;
}

export type Success =
  | GrantResult
  | RevokeResult
  | TickResult
  | AcquireResult
  | ReleaseResult
  | FenceWriteResult
  | FenceDeleteResult
  | CancelWaitResult
  | SetPermitsResult
  | ProclaimResult
  | AclGrantResult
  | AclRevokeResult
  | QuotaSetResult;

export type ApplyResult = Success | Failure;

/** The result type a proposer of command type T receives. */
export type ResultFor<T extends CommandType> = Extract<Success, { type: T }> | Failure;

export function failure(type: CommandType, error: ErrorKind, message: string, highestToken?: number): Failure {
  return highestToken === undefined ? { type, ok: false, error, message } : { type, ok: false, error, message, highestToken };
}
