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
   * Milliseconds left before it expires, on the cluster's logical clock. Every deadline (at Grant
   * and at each renewal) is set past ttl by a safety margin: two lease-clock ticks (200 ms by
   * default) plus 1,000 ppm of the TTL, rounded up (3.6 s at 1 h, 1 ms at 1 s). So just after a
   * renewal this exceeds granted_ttl_ms by up to that margin. The margin is what lets a client
   * trust its lease until send time of its last acknowledged keepalive (or Grant) + ttl_ms on its
   * own monotonic clock, even when that clock runs up to 1,000 ppm (0.1 %) slower than the
   * leader's; a client must not trust it any longer than that.
   */
  'remainingMs'?: (number | string | Long);
  /**
   * Names of the locks it holds, sorted. Bounded: a lease holds and waits for at most 1,024 locks
   * together, each name at most 512 bytes, so the list is at most 512 KiB (well under a client's usual 4 MiB receive
   * limit) and is always complete: nothing is left off.
   */
  'locks'?: (string)[];
  /**
   * The principal that granted it (its owner).
   */
  'owner'?: (string);
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
   * Milliseconds left before it expires, on the cluster's logical clock. Every deadline (at Grant
   * and at each renewal) is set past ttl by a safety margin: two lease-clock ticks (200 ms by
   * default) plus 1,000 ppm of the TTL, rounded up (3.6 s at 1 h, 1 ms at 1 s). So just after a
   * renewal this exceeds granted_ttl_ms by up to that margin. The margin is what lets a client
   * trust its lease until send time of its last acknowledged keepalive (or Grant) + ttl_ms on its
   * own monotonic clock, even when that clock runs up to 1,000 ppm (0.1 %) slower than the
   * leader's; a client must not trust it any longer than that.
   */
  'remainingMs': (number);
  /**
   * Names of the locks it holds, sorted. Bounded: a lease holds and waits for at most 1,024 locks
   * together, each name at most 512 bytes, so the list is at most 512 KiB (well under a client's usual 4 MiB receive
   * limit) and is always complete: nothing is left off.
   */
  'locks': (string)[];
  /**
   * The principal that granted it (its owner).
   */
  'owner': (string);
}
