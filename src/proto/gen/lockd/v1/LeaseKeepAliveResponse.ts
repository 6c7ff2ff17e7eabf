// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseKeepAliveResponse {
  /**
   * The lease this answers.
   */
  'leaseId'?: (number | string | Long);
  /**
   * The lease's TTL after renewal in milliseconds; 0 means the lease is gone.
   */
  'ttlMs'?: (number | string | Long);
}

export interface LeaseKeepAliveResponse__Output {
  /**
   * The lease this answers.
   */
  'leaseId': (number);
  /**
   * The lease's TTL after renewal in milliseconds; 0 means the lease is gone.
   */
  'ttlMs': (number);
}
