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
  /**
   * The holding lease; 0 = the one grant fencing_token names (a token names one grant, so a stale
   * token releases nothing even while others hold the lock). Set, it must be that grant's lease (else
   * released = false). Only grants made before tokens were per grant can share a token; releasing one
   * of those without lease_id is FAILED_PRECONDITION.
   */
  'leaseId'?: (number | string | Long);
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
  /**
   * The holding lease; 0 = the one grant fencing_token names (a token names one grant, so a stale
   * token releases nothing even while others hold the lock). Set, it must be that grant's lease (else
   * released = false). Only grants made before tokens were per grant can share a token; releasing one
   * of those without lease_id is FAILED_PRECONDITION.
   */
  'leaseId': (number);
}
