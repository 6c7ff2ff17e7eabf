// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantRequest {
  /**
   * Requested time to live in milliseconds; out of the server's range: INVALID_ARGUMENT.
   */
  'ttlMs'?: (number | string | Long);
  /**
   * Client-chosen id that makes a retried Grant return the same lease instead of a new one.
   */
  'requestId'?: (string);
}

export interface LeaseGrantRequest__Output {
  /**
   * Requested time to live in milliseconds; out of the server's range: INVALID_ARGUMENT.
   */
  'ttlMs': (number);
  /**
   * Client-chosen id that makes a retried Grant return the same lease instead of a new one.
   */
  'requestId': (string);
}
