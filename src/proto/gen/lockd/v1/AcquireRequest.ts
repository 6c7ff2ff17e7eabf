// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface AcquireRequest {
  /**
   * The lock's name; an invalid name is INVALID_ARGUMENT.
   */
  'name'?: (string);
  /**
   * The lease that will hold the lock; unknown or expired: NOT_FOUND.
   */
  'leaseId'?: (number | string | Long);
  /**
   * Queue and wait for the lock instead of answering at once.
   */
  'wait'?: (boolean);
  /**
   * Client-chosen id that makes a retried Acquire apply once (see "Request ids" at the top).
   * 
   * Per lease, at most 1,024 locks held and waited on together: an Acquire that would take a new
   * lock or queue beyond that is RESOURCE_EXHAUSTED, naming the limit (the lease's existing grants and
   * queue places are answered as before). Cluster-wide bounds: 100,000 held locks, 1,024 waiters per
   * lock (RESOURCE_EXHAUSTED). One client with many leases can still reach the cluster-wide ones;
   * per-principal quotas (issue #12) will bound that.
   */
  'requestId'?: (string);
}

export interface AcquireRequest__Output {
  /**
   * The lock's name; an invalid name is INVALID_ARGUMENT.
   */
  'name': (string);
  /**
   * The lease that will hold the lock; unknown or expired: NOT_FOUND.
   */
  'leaseId': (number);
  /**
   * Queue and wait for the lock instead of answering at once.
   */
  'wait': (boolean);
  /**
   * Client-chosen id that makes a retried Acquire apply once (see "Request ids" at the top).
   * 
   * Per lease, at most 1,024 locks held and waited on together: an Acquire that would take a new
   * lock or queue beyond that is RESOURCE_EXHAUSTED, naming the limit (the lease's existing grants and
   * queue places are answered as before). Cluster-wide bounds: 100,000 held locks, 1,024 waiters per
   * lock (RESOURCE_EXHAUSTED). One client with many leases can still reach the cluster-wide ones;
   * per-principal quotas (issue #12) will bound that.
   */
  'requestId': (string);
}
