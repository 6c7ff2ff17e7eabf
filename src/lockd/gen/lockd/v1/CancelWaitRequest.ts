// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface CancelWaitRequest {
  /**
   * The lock waited on.
   */
  'name'?: (string);
  /**
   * The waiting lease.
   */
  'leaseId'?: (number | string | Long);
}

export interface CancelWaitRequest__Output {
  /**
   * The lock waited on.
   */
  'name': (string);
  /**
   * The waiting lease.
   */
  'leaseId': (number);
}
