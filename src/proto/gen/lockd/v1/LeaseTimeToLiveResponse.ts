// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseTimeToLiveResponse {
  /**
   * The lease inspected.
   */
  'leaseId'?: (number | string | Long);
  /**
   * The TTL it was granted, in milliseconds.
   */
  'grantedTtlMs'?: (number | string | Long);
  /**
   * Milliseconds left before it expires, on the cluster's logical clock. Every deadline includes
   * a small safety margin (two lease-clock ticks), so just after a renewal this exceeds
   * granted_ttl_ms by up to that margin.
   */
  'remainingMs'?: (number | string | Long);
  /**
   * Names of the locks it holds.
   */
  'locks'?: (string)[];
}

export interface LeaseTimeToLiveResponse__Output {
  /**
   * The lease inspected.
   */
  'leaseId': (number);
  /**
   * The TTL it was granted, in milliseconds.
   */
  'grantedTtlMs': (number);
  /**
   * Milliseconds left before it expires, on the cluster's logical clock. Every deadline includes
   * a small safety margin (two lease-clock ticks), so just after a renewal this exceeds
   * granted_ttl_ms by up to that margin.
   */
  'remainingMs': (number);
  /**
   * Names of the locks it holds.
   */
  'locks': (string)[];
}
