// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface ReleaseRequest {
  /**
   * The lock's name.
   */
  'name'?: (string);
  /**
   * The fencing token of the grant being released.
   */
  'fencingToken'?: (number | string | Long);
}

export interface ReleaseRequest__Output {
  /**
   * The lock's name.
   */
  'name': (string);
  /**
   * The fencing token of the grant being released.
   */
  'fencingToken': (number);
}
