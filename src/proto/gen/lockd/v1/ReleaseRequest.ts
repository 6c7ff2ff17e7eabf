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
  /**
   * Makes a retried Release answer what the first attempt did (released = true when it released the
   * lock) instead of NOT_FOUND or released = false (see "Request ids" at the top). The same id with
   * another name or token is INVALID_ARGUMENT.
   */
  'requestId'?: (string);
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
  /**
   * Makes a retried Release answer what the first attempt did (released = true when it released the
   * lock) instead of NOT_FOUND or released = false (see "Request ids" at the top). The same id with
   * another name or token is INVALID_ARGUMENT.
   */
  'requestId': (string);
}
