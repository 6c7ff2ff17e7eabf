// Original file: proto/lockd.proto

import type { LockHolder as _lockd_v1_LockHolder, LockHolder__Output as _lockd_v1_LockHolder__Output } from '../../lockd/v1/LockHolder.js';
import type { Long } from '@grpc/proto-loader';

export interface InspectResponse {
  /**
   * True if some lease holds the lock.
   */
  'held'?: (boolean);
  /**
   * The current grant's fencing token (0 if free).
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The holding lease (0 if free).
   */
  'holderLeaseId'?: (number | string | Long);
  /**
   * Leases queued for the lock, first in line first.
   */
  'waitingLeaseIds'?: (number | string | Long)[];
  /**
   * The fields above describe a mutex. For a semaphore or read-write lock, held, fencing_token and
   * holder_lease_id describe its oldest grant, and these the whole lock:
   * The name's permits (1 for a mutex and for a free name).
   */
  'permits'?: (number);
  /**
   * Every holder, in grant order.
   */
  'holders'?: (_lockd_v1_LockHolder)[];
  /**
   * Whether each waiter (in waiting_lease_ids order) asks shared.
   */
  'waitingShared'?: (boolean)[];
  /**
   * A lock-delay running on the name (AcquireRequest.lock_delay_ms): the cluster's logical time, in
   * milliseconds, at which it ends (0 = none), and how long that is from now on that clock.
   */
  'lockDelayUntilMs'?: (number | string | Long);
  'lockDelayRemainingMs'?: (number | string | Long);
}

export interface InspectResponse__Output {
  /**
   * True if some lease holds the lock.
   */
  'held': (boolean);
  /**
   * The current grant's fencing token (0 if free).
   */
  'fencingToken': (number);
  /**
   * The holding lease (0 if free).
   */
  'holderLeaseId': (number);
  /**
   * Leases queued for the lock, first in line first.
   */
  'waitingLeaseIds': (number)[];
  /**
   * The fields above describe a mutex. For a semaphore or read-write lock, held, fencing_token and
   * holder_lease_id describe its oldest grant, and these the whole lock:
   * The name's permits (1 for a mutex and for a free name).
   */
  'permits': (number);
  /**
   * Every holder, in grant order.
   */
  'holders': (_lockd_v1_LockHolder__Output)[];
  /**
   * Whether each waiter (in waiting_lease_ids order) asks shared.
   */
  'waitingShared': (boolean)[];
  /**
   * A lock-delay running on the name (AcquireRequest.lock_delay_ms): the cluster's logical time, in
   * milliseconds, at which it ends (0 = none), and how long that is from now on that clock.
   */
  'lockDelayUntilMs': (number);
  'lockDelayRemainingMs': (number);
}
