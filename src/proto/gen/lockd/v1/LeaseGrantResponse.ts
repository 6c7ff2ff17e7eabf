// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantResponse {
  /**
   * The new lease's id (never 0).
   */
  'leaseId'?: (number | string | Long);
  /**
   * The TTL granted, in milliseconds.
   */
  'ttlMs'?: (number | string | Long);
}

export interface LeaseGrantResponse__Output {
  /**
   * The new lease's id (never 0).
   */
  'leaseId': (number);
  /**
   * The TTL granted, in milliseconds.
   */
  'ttlMs': (number);
}
