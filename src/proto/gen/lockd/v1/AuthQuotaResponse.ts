// Original file: proto/lockd.proto

import type { QuotaState as _lockd_v1_QuotaState, QuotaState__Output as _lockd_v1_QuotaState__Output } from '../../lockd/v1/QuotaState.js';

export interface AuthQuotaResponse {
  'principal'?: (string);
  /**
   * Every quota, in the order leases, locks, dedup_ids, election_bytes, fence_keys.
   */
  'quotas'?: (_lockd_v1_QuotaState)[];
}

export interface AuthQuotaResponse__Output {
  'principal': (string);
  /**
   * Every quota, in the order leases, locks, dedup_ids, election_bytes, fence_keys.
   */
  'quotas': (_lockd_v1_QuotaState__Output)[];
}
