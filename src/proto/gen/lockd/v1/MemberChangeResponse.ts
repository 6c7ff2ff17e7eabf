// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberChangeResponse {
  /**
   * Index of the config entry that made the change (now committed).
   */
  'configIndex'?: (number | string | Long);
  /**
   * The configuration after it.
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
   * The configuration after it.
   */
  'voters': (string)[];
  'learners': (string)[];
}
