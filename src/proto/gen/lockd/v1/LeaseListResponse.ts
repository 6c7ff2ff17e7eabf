// Original file: proto/lockd.proto

import type { LeaseInfo as _lockd_v1_LeaseInfo, LeaseInfo__Output as _lockd_v1_LeaseInfo__Output } from '../../lockd/v1/LeaseInfo.js';

export interface LeaseListResponse {
  /**
   * Every live lease.
   */
  'leases'?: (_lockd_v1_LeaseInfo)[];
}

export interface LeaseListResponse__Output {
  /**
   * Every live lease.
   */
  'leases': (_lockd_v1_LeaseInfo__Output)[];
}
