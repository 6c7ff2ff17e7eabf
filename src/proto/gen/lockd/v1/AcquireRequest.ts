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
   * Client-chosen id that makes a retried Acquire apply once.
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
   * Client-chosen id that makes a retried Acquire apply once.
   */
  'requestId': (string);
}
