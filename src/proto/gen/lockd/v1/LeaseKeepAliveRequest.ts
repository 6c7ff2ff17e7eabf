// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseKeepAliveRequest {
  /**
   * The lease to renew.
   */
  'leaseId'?: (number | string | Long);
}

export interface LeaseKeepAliveRequest__Output {
  /**
   * The lease to renew.
   */
  'leaseId': (number);
}
