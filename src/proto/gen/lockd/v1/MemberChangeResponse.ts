// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberChangeResponse {
  /**
   * Index of the config entry that made the change (now committed).
   */
  'configIndex'?: (number | string | Long);
  /**
   * The configuration as the leader has it when it answers (for a retry, possibly later changes too).
   */
  'voters'?: (string)[];
  'learners'?: (string)[];
}

export interface MemberChangeResponse__Output {
  /**
   * Index of the config entry that made the change (now committed).
   */
  'configIndex': (number);
  /**
   * The configuration as the leader has it when it answers (for a retry, possibly later changes too).
   */
  'voters': (string)[];
  'learners': (string)[];
}
