// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseGrantRequest {
  /**
   * Requested time to live in milliseconds; out of the server's range: INVALID_ARGUMENT.
   */
  'ttlMs'?: (number | string | Long);
  /**
   * Client-chosen id that makes a retried Grant return the same lease instead of a new one (see
   * "Request ids" at the top). That lease was granted when the first attempt was applied, and a retry
   * is answered with it even after it has expired: trust it from the send time of the FIRST attempt
   * (+ ttl_ms), never a later one's, or the client trusts a lease the cluster has already ended.
   * The id is the granting principal's: the same id from another principal is PERMISSION_DENIED
   * (whether that lease lives or has ended; it is never handed another principal's lease). Without
   * --acl every caller is one principal.
   * 
   * Live leases are bounded cluster-wide (100,000): beyond that Grant is RESOURCE_EXHAUSTED, naming
   * the limit. Quotas are not per principal yet, so one client may take them all (each for up to
   * the 1 h maximum TTL); per-principal quotas would bound that, the cluster-wide cap staying as
   * the memory bound.
   */
  'requestId'?: (string);
}

export interface LeaseGrantRequest__Output {
  /**
   * Requested time to live in milliseconds; out of the server's range: INVALID_ARGUMENT.
   */
  'ttlMs': (number);
  /**
   * Client-chosen id that makes a retried Grant return the same lease instead of a new one (see
   * "Request ids" at the top). That lease was granted when the first attempt was applied, and a retry
   * is answered with it even after it has expired: trust it from the send time of the FIRST attempt
   * (+ ttl_ms), never a later one's, or the client trusts a lease the cluster has already ended.
   * The id is the granting principal's: the same id from another principal is PERMISSION_DENIED
   * (whether that lease lives or has ended; it is never handed another principal's lease). Without
   * --acl every caller is one principal.
   * 
   * Live leases are bounded cluster-wide (100,000): beyond that Grant is RESOURCE_EXHAUSTED, naming
   * the limit. Quotas are not per principal yet, so one client may take them all (each for up to
   * the 1 h maximum TTL); per-principal quotas would bound that, the cluster-wide cap staying as
   * the memory bound.
   */
  'requestId': (string);
}
