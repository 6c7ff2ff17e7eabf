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
   * The holding lease; 0 = whichever holds fencing_token. Needed only when one entry granted the name
   * to several leases under one token (a semaphore's or read lock's waiters): then a Release without
   * it is FAILED_PRECONDITION. Set, it must be the holder's (else released = false).
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
   * The holding lease; 0 = whichever holds fencing_token. Needed only when one entry granted the name
   * to several leases under one token (a semaphore's or read lock's waiters): then a Release without
   * it is FAILED_PRECONDITION. Set, it must be the holder's (else released = false).
   */
  'leaseId': (number);
}
