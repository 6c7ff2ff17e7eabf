// Original file: proto/lockd.proto

import type { AclRule as _lockd_v1_AclRule, AclRule__Output as _lockd_v1_AclRule__Output } from '../../lockd/v1/AclRule.js';

export interface AuthListResponse {
  'rules'?: (_lockd_v1_AclRule)[];
}

export interface AuthListResponse__Output {
  'rules': (_lockd_v1_AclRule__Output)[];
}
