// Original file: proto/lockd.proto

import type { LeaderKey as _lockd_v1_LeaderKey, LeaderKey__Output as _lockd_v1_LeaderKey__Output } from '../../lockd/v1/LeaderKey.js';

export interface ProclaimRequest {
  /**
   * The leadership: its lease_id and fencing_token must both be the current leader's, else
   * FAILED_PRECONDITION (a token with another lease's id sets nothing).
   */
  'leader'?: (_lockd_v1_LeaderKey | null);
  /**
   * The new value (up to 1024 bytes of UTF-8). Not deduplicated: a late duplicate sets it again.
   */
  'value'?: (string);
}

export interface ProclaimRequest__Output {
  /**
   * The leadership: its lease_id and fencing_token must both be the current leader's, else
   * FAILED_PRECONDITION (a token with another lease's id sets nothing).
   */
  'leader': (_lockd_v1_LeaderKey__Output | null);
  /**
   * The new value (up to 1024 bytes of UTF-8). Not deduplicated: a late duplicate sets it again.
   */
  'value': (string);
}
