// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface AcquireResponse {
  /**
   * True if the caller's lease now holds the lock.
   */
  'acquired'?: (boolean);
  /**
   * The grant's fencing token: this grant's alone, strictly increasing per lock, the granting entry's
   * index × 1024 + its ordinal among that entry's grants of this lock (see the Lock service); 0 when
   * not acquired.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The lease holding the lock: the caller's when acquired, else the current holder (0: free).
   */
  'holderLeaseId'?: (number | string | Long);
  /**
   * Only on a retry (same request_id): the request was granted the lock earlier and that grant has
   * ended since. acquired is false and nothing changed; see the Acquire rpc.
   */
  'grantEnded'?: (boolean);
  /**
   * With grant_ended: the fencing token the request had been granted (no longer valid). Else 0.
   */
  'endedFencingToken'?: (number | string | Long);
  /**
   * Not acquired while a lock-delay runs on the name (see AcquireRequest.lock_delay_ms; the holder
   * fields are then 0 if nobody holds it): the milliseconds it still runs on the cluster's logical
   * clock. Else 0.
   */
  'lockDelayRemainingMs'?: (number | string | Long);
  /**
   * With acquired: whether the grant is shared (a read lock) now, else false.
   */
  'shared'?: (boolean);
}

export interface AcquireResponse__Output {
  /**
   * True if the caller's lease now holds the lock.
   */
  'acquired': (boolean);
  /**
   * The grant's fencing token: this grant's alone, strictly increasing per lock, the granting entry's
   * index × 1024 + its ordinal among that entry's grants of this lock (see the Lock service); 0 when
   * not acquired.
   */
  'fencingToken': (number);
  /**
   * The lease holding the lock: the caller's when acquired, else the current holder (0: free).
   */
  'holderLeaseId': (number);
  /**
   * Only on a retry (same request_id): the request was granted the lock earlier and that grant has
   * ended since. acquired is false and nothing changed; see the Acquire rpc.
   */
  'grantEnded': (boolean);
  /**
   * With grant_ended: the fencing token the request had been granted (no longer valid). Else 0.
   */
  'endedFencingToken': (number);
  /**
   * Not acquired while a lock-delay runs on the name (see AcquireRequest.lock_delay_ms; the holder
   * fields are then 0 if nobody holds it): the milliseconds it still runs on the cluster's logical
   * clock. Else 0.
   */
  'lockDelayRemainingMs': (number);
  /**
   * With acquired: whether the grant is shared (a read lock) now, else false.
   */
  'shared': (boolean);
}
