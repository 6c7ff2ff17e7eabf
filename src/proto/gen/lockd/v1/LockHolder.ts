// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One grant of a lock (InspectResponse.holders).
 */
export interface LockHolder {
  'leaseId'?: (number | string | Long);
  'fencingToken'?: (number | string | Long);
  'shared'?: (boolean);
  /**
   * The grant's lock-delay (AcquireRequest.lock_delay_ms).
   */
  'lockDelayMs'?: (number | string | Long);
}

/**
 * One grant of a lock (InspectResponse.holders).
 */
export interface LockHolder__Output {
  'leaseId': (number);
  'fencingToken': (number);
  'shared': (boolean);
  /**
   * The grant's lock-delay (AcquireRequest.lock_delay_ms).
   */
  'lockDelayMs': (number);
}
