// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseRevokeRequest {
  /**
   * The lease to end.
   */
  'leaseId'?: (number | string | Long);
}

export interface LeaseRevokeRequest__Output {
  /**
   * The lease to end.
   */
  'leaseId': (number);
}
