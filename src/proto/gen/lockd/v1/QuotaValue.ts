// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface QuotaValue {
  /**
   * "leases", "locks", "dedup_ids", "election_bytes" or "fence_keys".
   */
  'name'?: (string);
  /**
   * 0..1,000,000,000 (0 refuses every new one of its kind).
   */
  'value'?: (number | string | Long);
}

export interface QuotaValue__Output {
  /**
   * "leases", "locks", "dedup_ids", "election_bytes" or "fence_keys".
   */
  'name': (string);
  /**
   * 0..1,000,000,000 (0 refuses every new one of its kind).
   */
  'value': (number);
}
