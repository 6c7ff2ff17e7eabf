// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceWriteResponse {
  /**
   * The highest token accepted for this key (this write's token on success).
   */
  'highestToken'?: (number | string | Long);
}

export interface FenceWriteResponse__Output {
  /**
   * The highest token accepted for this key (this write's token on success).
   */
  'highestToken': (number);
}
