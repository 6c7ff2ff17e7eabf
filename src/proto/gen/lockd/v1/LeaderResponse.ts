// Original file: proto/lockd.proto

import type { LeaderKey as _lockd_v1_LeaderKey, LeaderKey__Output as _lockd_v1_LeaderKey__Output } from '../../lockd/v1/LeaderKey.js';

export interface LeaderResponse {
  /**
   * False when nobody leads (Observe only; Leader answers NOT_FOUND then).
   */
  'hasLeader'?: (boolean);
  'leader'?: (_lockd_v1_LeaderKey | null);
  'value'?: (string);
}

export interface LeaderResponse__Output {
  /**
   * False when nobody leads (Observe only; Leader answers NOT_FOUND then).
   */
  'hasLeader': (boolean);
  'leader': (_lockd_v1_LeaderKey__Output | null);
  'value': (string);
}
