// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceReadResponse {
  /**
   * The stored value (empty if never written).
   */
  'value'?: (Buffer | Uint8Array | string);
  /**
   * The token that wrote it (0 if never written).
   */
  'fencingToken'?: (number | string | Long);
}

export interface FenceReadResponse__Output {
  /**
   * The stored value (empty if never written).
   */
  'value': (Buffer);
  /**
   * The token that wrote it (0 if never written).
   */
  'fencingToken': (number);
}
