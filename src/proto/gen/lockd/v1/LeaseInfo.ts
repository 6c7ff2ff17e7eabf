// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One live lease as listed by List.
 */
export interface LeaseInfo {
  /**
   * The lease's id.
   */
  'leaseId'?: (number | string | Long);
  /**
   * The TTL it was granted, in milliseconds.
   */
  'grantedTtlMs'?: (number | string | Long);
  /**
   * Milliseconds left before it expires (with the margin of LeaseTimeToLiveResponse.remaining_ms).
   */
  'remainingMs'?: (number | string | Long);
  /**
   * The principal that granted it (its owner).
   */
  'owner'?: (string);
}

/**
 * One live lease as listed by List.
 */
export interface LeaseInfo__Output {
  /**
   * The lease's id.
   */
  'leaseId': (number);
  /**
   * The TTL it was granted, in milliseconds.
   */
  'grantedTtlMs': (number);
  /**
   * Milliseconds left before it expires (with the margin of LeaseTimeToLiveResponse.remaining_ms).
   */
  'remainingMs': (number);
  /**
   * The principal that granted it (its owner).
   */
  'owner': (string);
}
