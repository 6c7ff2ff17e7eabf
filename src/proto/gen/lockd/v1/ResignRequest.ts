// Original file: proto/lockd.proto

import type { LeaderKey as _lockd_v1_LeaderKey, LeaderKey__Output as _lockd_v1_LeaderKey__Output } from '../../lockd/v1/LeaderKey.js';

export interface ResignRequest {
  'leader'?: (_lockd_v1_LeaderKey | null);
  /**
   * See "Request ids" at the top.
   */
  'requestId'?: (string);
}

export interface ResignRequest__Output {
  'leader': (_lockd_v1_LeaderKey__Output | null);
  /**
   * See "Request ids" at the top.
   */
  'requestId': (string);
}
