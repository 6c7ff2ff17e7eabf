// Original file: proto/lockd.proto

import type { AclRule as _lockd_v1_AclRule, AclRule__Output as _lockd_v1_AclRule__Output } from '../../lockd/v1/AclRule.js';

export interface AuthGrantRequest {
  'rule'?: (_lockd_v1_AclRule | null);
  /**
   * As on every mutating request (see the top of this file).
   */
  'requestId'?: (string);
}

export interface AuthGrantRequest__Output {
  'rule': (_lockd_v1_AclRule__Output | null);
  /**
   * As on every mutating request (see the top of this file).
   */
  'requestId': (string);
}
