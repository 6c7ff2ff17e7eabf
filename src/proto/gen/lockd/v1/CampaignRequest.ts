// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface CampaignRequest {
  /**
   * The election (a lock name).
   */
  'name'?: (string);
  /**
   * The campaigning lease.
   */
  'leaseId'?: (number | string | Long);
  /**
   * The leader's value once it leads: up to 1024 bytes of UTF-8 (else INVALID_ARGUMENT).
   */
  'value'?: (string);
  /**
   * See "Request ids" at the top.
   */
  'requestId'?: (string);
}

export interface CampaignRequest__Output {
  /**
   * The election (a lock name).
   */
  'name': (string);
  /**
   * The campaigning lease.
   */
  'leaseId': (number);
  /**
   * The leader's value once it leads: up to 1024 bytes of UTF-8 (else INVALID_ARGUMENT).
   */
  'value': (string);
  /**
   * See "Request ids" at the top.
   */
  'requestId': (string);
}
