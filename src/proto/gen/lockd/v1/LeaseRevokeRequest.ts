// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseRevokeRequest {
  /**
   * The lease to end.
   */
  'leaseId'?: (number | string | Long);
  /**
   * Makes a retried Revoke answer OK instead of NOT_FOUND (see "Request ids" at the top).
   */
  'requestId'?: (string);
}

export interface LeaseRevokeRequest__Output {
  /**
   * The lease to end.
   */
  'leaseId': (number);
  /**
   * Makes a retried Revoke answer OK instead of NOT_FOUND (see "Request ids" at the top).
   */
  'requestId': (string);
}
