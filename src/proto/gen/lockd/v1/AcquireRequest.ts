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
   * quotas are not per principal yet.
   */
  'requestId'?: (string);
  /**
   * Recipes (all default to the plain mutex above). A lock is granted strictly in FIFO order: a
   * waiter is granted as soon as the head of the queue fits, and nobody behind it is granted first.
   * 
   * Semaphore: 0 or 1 is a mutex; N > 1 lets up to N leases hold the name at once (at most 1024),
   * each grant with its own fencing token (see the Lock service: waiters granted by one entry get
   * distinct tokens). Everyone holding or waiting on a name must ask the same permits: a different value
   * is FAILED_PRECONDITION naming both (SetPermits changes it).
   */
  'permits'?: (number);
  /**
   * Read-write lock: shared holders coexist (up to 1024), an exclusive one (shared = false) is
   * alone. A waiting exclusive acquirer blocks every later shared one (no writer starvation). Needs
   * permits 0 or 1 (else INVALID_ARGUMENT). A Fence.Write or Delete bound to the lock accepts only
   * the exclusive holder's token. The exclusive holder asking shared = true downgrades its grant in
   * place (same token; the shared waiters at the head join it); a shared holder asking exclusive is
   * FAILED_PRECONDITION (an upgrade deadlocks two readers that both try it: release, then acquire).
   * A lease waiting one way that asks the other is FAILED_PRECONDITION.
   */
  'shared'?: (boolean);
  /**
   * Lock-delay in milliseconds, 0 to 60,000 (else INVALID_ARGUMENT): when this grant ends because
   * its lease expired or was revoked (not on Release), nobody is granted the name for that long on
   * the cluster's logical clock, so a holder that is still running after losing its lease cannot
   * meet its successor at an unfenced resource. The waiters are granted by the clock tick that ends
   * the delay; Inspect shows when. An Acquire answered with an existing grant keeps that grant's delay.
   */
  'lockDelayMs'?: (number | string | Long);
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
   * quotas are not per principal yet.
   */
  'requestId': (string);
  /**
   * Recipes (all default to the plain mutex above). A lock is granted strictly in FIFO order: a
   * waiter is granted as soon as the head of the queue fits, and nobody behind it is granted first.
   * 
   * Semaphore: 0 or 1 is a mutex; N > 1 lets up to N leases hold the name at once (at most 1024),
   * each grant with its own fencing token (see the Lock service: waiters granted by one entry get
   * distinct tokens). Everyone holding or waiting on a name must ask the same permits: a different value
   * is FAILED_PRECONDITION naming both (SetPermits changes it).
   */
  'permits': (number);
  /**
   * Read-write lock: shared holders coexist (up to 1024), an exclusive one (shared = false) is
   * alone. A waiting exclusive acquirer blocks every later shared one (no writer starvation). Needs
   * permits 0 or 1 (else INVALID_ARGUMENT). A Fence.Write or Delete bound to the lock accepts only
   * the exclusive holder's token. The exclusive holder asking shared = true downgrades its grant in
   * place (same token; the shared waiters at the head join it); a shared holder asking exclusive is
   * FAILED_PRECONDITION (an upgrade deadlocks two readers that both try it: release, then acquire).
   * A lease waiting one way that asks the other is FAILED_PRECONDITION.
   */
  'shared': (boolean);
  /**
   * Lock-delay in milliseconds, 0 to 60,000 (else INVALID_ARGUMENT): when this grant ends because
   * its lease expired or was revoked (not on Release), nobody is granted the name for that long on
   * the cluster's logical clock, so a holder that is still running after losing its lease cannot
   * meet its successor at an unfenced resource. The waiters are granted by the clock tick that ends
   * the delay; Inspect shows when. An Acquire answered with an existing grant keeps that grant's delay.
   */
  'lockDelayMs': (number);
}
