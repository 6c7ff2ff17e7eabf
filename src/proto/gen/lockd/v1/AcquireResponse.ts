// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface AcquireResponse {
  /**
   * True if the caller's lease now holds the lock.
   */
  'acquired'?: (boolean);
  /**
   * The grant's fencing token (strictly increasing per lock); 0 when not acquired.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The lease holding the lock: the caller's when acquired, else the current holder.
   */
  'holderLeaseId'?: (number | string | Long);
}

export interface AcquireResponse__Output {
  /**
   * True if the caller's lease now holds the lock.
   */
  'acquired': (boolean);
  /**
   * The grant's fencing token (strictly increasing per lock); 0 when not acquired.
   */
  'fencingToken': (number);
  /**
   * The lease holding the lock: the caller's when acquired, else the current holder.
   */
  'holderLeaseId': (number);
}
