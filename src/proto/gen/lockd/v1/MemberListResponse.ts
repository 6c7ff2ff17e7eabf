// Original file: proto/lockd.proto

import type { MemberInfo as _lockd_v1_MemberInfo, MemberInfo__Output as _lockd_v1_MemberInfo__Output } from '../../lockd/v1/MemberInfo.js';
import type { Long } from '@grpc/proto-loader';

export interface MemberListResponse {
  'leaderId'?: (string);
  'commitIndex'?: (number | string | Long);
  /**
   * Index of the config entry that made the current configuration (0: the --peers bootstrap).
   */
  'configIndex'?: (number | string | Long);
  /**
   * Voters first, then learners.
   */
  'members'?: (_lockd_v1_MemberInfo)[];
  /**
   * Every id ever removed (never usable again).
   */
  'removedIds'?: (string)[];
  /**
   * MemberPromote needs the learner's match index within this many entries of commit_index.
   */
  'promoteMaxLag'?: (number | string | Long);
}

export interface MemberListResponse__Output {
  'leaderId': (string);
  'commitIndex': (number);
  /**
   * Index of the config entry that made the current configuration (0: the --peers bootstrap).
   */
  'configIndex': (number);
  /**
   * Voters first, then learners.
   */
  'members': (_lockd_v1_MemberInfo__Output)[];
  /**
   * Every id ever removed (never usable again).
   */
  'removedIds': (string)[];
  /**
   * MemberPromote needs the learner's match index within this many entries of commit_index.
   */
  'promoteMaxLag': (number);
}
