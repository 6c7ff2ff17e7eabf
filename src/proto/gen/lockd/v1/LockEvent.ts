// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LockEvent {
  /**
   * The lock's name.
   */
  'name'?: (string);
  /**
   * What happened: ACQUIRED (granted to lease_id with fencing_token), RELEASED (released by its
   * holder, or the holder's lease was revoked), EXPIRED (the holder's lease expired), QUEUED (lease_id
   * joined the wait queue), WAITER_REMOVED (a waiter's lease ended), WAIT_CANCELLED (a waiter gave up),
   * PROCLAIMED (Election.Proclaim set the value of the grant lease_id/fencing_token).
   */
  'type'?: (string);
  /**
   * The fencing token of the grant concerned (its own: see the Lock service; 0 for QUEUED,
   * WAITER_REMOVED, WAIT_CANCELLED). For ACQUIRED, floor(fencing_token / 1024) = index.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The lease concerned.
   */
  'leaseId'?: (number | string | Long);
  /**
   * Raft log index of the entry that made the change.
   */
  'index'?: (number | string | Long);
}

export interface LockEvent__Output {
  /**
   * The lock's name.
   */
  'name': (string);
  /**
   * What happened: ACQUIRED (granted to lease_id with fencing_token), RELEASED (released by its
   * holder, or the holder's lease was revoked), EXPIRED (the holder's lease expired), QUEUED (lease_id
   * joined the wait queue), WAITER_REMOVED (a waiter's lease ended), WAIT_CANCELLED (a waiter gave up),
   * PROCLAIMED (Election.Proclaim set the value of the grant lease_id/fencing_token).
   */
  'type': (string);
  /**
   * The fencing token of the grant concerned (its own: see the Lock service; 0 for QUEUED,
   * WAITER_REMOVED, WAIT_CANCELLED). For ACQUIRED, floor(fencing_token / 1024) = index.
   */
  'fencingToken': (number);
  /**
   * The lease concerned.
   */
  'leaseId': (number);
  /**
   * Raft log index of the entry that made the change.
   */
  'index': (number);
}
