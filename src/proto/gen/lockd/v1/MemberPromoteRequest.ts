// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberPromoteRequest {
  'id'?: (string);
  'expectedConfigIndex'?: (number | string | Long);
  'requestId'?: (string);
  '_expectedConfigIndex'?: "expectedConfigIndex";
}

export interface MemberPromoteRequest__Output {
  'id': (string);
  'expectedConfigIndex'?: (number);
  'requestId': (string);
  '_expectedConfigIndex'?: "expectedConfigIndex";
}
