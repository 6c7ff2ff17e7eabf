// Original file: proto/lockd.proto

import type { LeaderKey as _lockd_v1_LeaderKey, LeaderKey__Output as _lockd_v1_LeaderKey__Output } from '../../lockd/v1/LeaderKey.js';

export interface CampaignResponse {
  'leader'?: (_lockd_v1_LeaderKey | null);
}

export interface CampaignResponse__Output {
  'leader': (_lockd_v1_LeaderKey__Output | null);
}
