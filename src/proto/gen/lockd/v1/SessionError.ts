// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

/**
 * An operation's failure: what the unary RPC's status would have been.
 */
export interface SessionError {
  /**
   * The gRPC status code (INVALID_ARGUMENT = 3, NOT_FOUND = 5, ...; see the top of this file).
   */
  'code'?: (number);
  /**
   * The status message.
   */
  'message'?: (string);
  /**
   * With UNAVAILABLE: the leader's address when known (the unary call's `lockd-leader` trailer).
   */
  'leader'?: (string);
  /**
   * With a stale Fence.Write or Delete (FAILED_PRECONDITION): the highest accepted token (the unary call's
   * `lockd-highest-token` trailer); 0 otherwise.
   */
  'highestToken'?: (number | string | Long);
}

/**
 * An operation's failure: what the unary RPC's status would have been.
 */
export interface SessionError__Output {
  /**
   * The gRPC status code (INVALID_ARGUMENT = 3, NOT_FOUND = 5, ...; see the top of this file).
   */
  'code': (number);
  /**
   * The status message.
   */
  'message': (string);
  /**
   * With UNAVAILABLE: the leader's address when known (the unary call's `lockd-leader` trailer).
   */
  'leader': (string);
  /**
   * With a stale Fence.Write or Delete (FAILED_PRECONDITION): the highest accepted token (the unary call's
   * `lockd-highest-token` trailer); 0 otherwise.
   */
  'highestToken': (number);
}
