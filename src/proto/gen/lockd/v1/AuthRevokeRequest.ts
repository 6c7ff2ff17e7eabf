// Original file: proto/lockd.proto

import type { AclRule as _lockd_v1_AclRule, AclRule__Output as _lockd_v1_AclRule__Output } from '../../lockd/v1/AclRule.js';

export interface AuthRevokeRequest {
  'rule'?: (_lockd_v1_AclRule | null);
  /**
   * As on every mutating request.
   */
  'requestId'?: (string);
}

export interface AuthRevokeRequest__Output {
  'rule': (_lockd_v1_AclRule__Output | null);
  /**
   * As on every mutating request.
   */
  'requestId': (string);
}
