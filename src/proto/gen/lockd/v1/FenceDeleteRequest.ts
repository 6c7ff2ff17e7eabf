// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceDeleteRequest {
  /**
   * The key to delete.
   */
  'key'?: (string);
  /**
   * The deleter's fencing token (the per-key rule as for a write).
   */
  'fencingToken'?: (number | string | Long);
  /**
   * As FenceWriteRequest.lock.
   */
  'lock'?: (string);
  /**
   * As FenceWriteRequest.request_id.
   */
  'requestId'?: (string);
}

export interface FenceDeleteRequest__Output {
  /**
   * The key to delete.
   */
  'key': (string);
  /**
   * The deleter's fencing token (the per-key rule as for a write).
   */
  'fencingToken': (number);
  /**
   * As FenceWriteRequest.lock.
   */
  'lock': (string);
  /**
   * As FenceWriteRequest.request_id.
   */
  'requestId': (string);
}
