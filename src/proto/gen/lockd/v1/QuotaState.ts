// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface QuotaState {
  /**
   * "leases", "locks", "dedup_ids", "election_bytes" or "fence_keys".
   */
  'name'?: (string);
  /**
   * The quota in force.
   */
  'limit'?: (number | string | Long);
  /**
   * What the principal uses now (leases past their deadline count until their cleanup Tick).
   */
  'used'?: (number | string | Long);
  /**
   * True when no admin set it: the default.
   */
  'isDefault'?: (boolean);
}

export interface QuotaState__Output {
  /**
   * "leases", "locks", "dedup_ids", "election_bytes" or "fence_keys".
   */
  'name': (string);
  /**
   * The quota in force.
   */
  'limit': (number);
  /**
   * What the principal uses now (leases past their deadline count until their cleanup Tick).
   */
  'used': (number);
  /**
   * True when no admin set it: the default.
   */
  'isDefault': (boolean);
}
