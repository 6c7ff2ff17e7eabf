// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceWriteRequest {
  /**
   * The key to write.
   */
  'key'?: (string);
  /**
   * The value to store.
   */
  'value'?: (Buffer | Uint8Array | string);
  /**
   * The writer's fencing token.
   */
  'fencingToken'?: (number | string | Long);
}

export interface FenceWriteRequest__Output {
  /**
   * The key to write.
   */
  'key': (string);
  /**
   * The value to store.
   */
  'value': (Buffer);
  /**
   * The writer's fencing token.
   */
  'fencingToken': (number);
}
