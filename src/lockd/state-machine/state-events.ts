// Events one entry produces, in the order they happened inside it: lock changes and lease
// lifecycle alike (hence StateEvent, not LockEvent). The service feeds them to Observe streams,
// pending wait=true Acquires and keepalive streams, and the observation layer to everyone else.

export type StateEventType =
  /** name granted to leaseId; token = this grant's own (token.ts: this entry's index × 2^10 + ordinal). */
  | 'ACQUIRED'
  /** name released by its holder leaseId/token: explicit Release, or the holder's lease was revoked. */
  | 'RELEASED'
  /** name lost by its holder leaseId/token because the lease expired. */
  | 'EXPIRED'
  /** leaseId joined name's wait queue. */
  | 'QUEUED'
  /** leaseId left name's queue because the lease itself expired or was revoked: its call ends NOT_FOUND. */
  | 'WAITER_REMOVED'
  /** leaseId left name's queue by CancelWait. */
  | 'WAIT_CANCELLED'
  /** Election: the grant (leaseId, token) of name got a new value (Proclaim). */
  | 'PROCLAIMED'
  /** The exclusive grant (leaseId, token) of name became shared (a downgrade). */
  | 'DOWNGRADED'
  /** name's permits changed (SetPermits, or the first waiter of an idle name); leaseId and token 0. */
  | 'PERMITS_CHANGED'
  /** Lease lifecycle (name is ''). */
  | 'LEASE_GRANTED'
  | 'LEASE_EXPIRED'
  | 'LEASE_REVOKED';

export interface StateEvent {
  readonly type: StateEventType;
  /** Lock name; '' for LEASE_* events. */
  readonly name: string;
  readonly leaseId: number;
  /** Fencing token concerned; 0 when none (QUEUED, WAITER_REMOVED, WAIT_CANCELLED, LEASE_*). */
  readonly token: number;
  /** Index of the entry that produced the event. */
  readonly index: number;
}
