// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface Member {
  /**
   * The member's node id.
   */
  'id'?: (string);
  /**
   * Its address (host:port).
   */
  'address'?: (string);
  /**
   * Leader only: highest log index known replicated on it.
   */
  'matchIndex'?: (number | string | Long);
}

export interface Member__Output {
  /**
   * The member's node id.
   */
  'id': (string);
  /**
   * Its address (host:port).
   */
  'address': (string);
  /**
   * Leader only: highest log index known replicated on it.
   */
  'matchIndex': (number);
}
