// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceDeleteResponse {
  /**
   * True if the key held a value and this call deleted it (a replay answers the first attempt's).
   */
  'deleted'?: (boolean);
  /**
   * The highest token accepted for this key (this call's token when deleted).
   */
  'highestToken'?: (number | string | Long);
}

export interface FenceDeleteResponse__Output {
  /**
   * True if the key held a value and this call deleted it (a replay answers the first attempt's).
   */
  'deleted': (boolean);
  /**
   * The highest token accepted for this key (this call's token when deleted).
   */
  'highestToken': (number);
}
