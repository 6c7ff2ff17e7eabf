// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LeaseTimeToLiveRequest {
  /**
   * The lease to inspect.
   */
  'leaseId'?: (number | string | Long);
}

export interface LeaseTimeToLiveRequest__Output {
  /**
   * The lease to inspect.
   */
  'leaseId': (number);
}
