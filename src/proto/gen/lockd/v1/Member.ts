// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface Member {
  /**
   * The member's node id.
   */
  'id'?: (string);
  /**
   * Its CLIENT address (host:port) as the member advertised it (--advertise-client), "" until this
   * node has heard from it. Never a peer address.
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
   * Its CLIENT address (host:port) as the member advertised it (--advertise-client), "" until this
   * node has heard from it. Never a peer address.
   */
  'address': (string);
  /**
   * Leader only: highest log index known replicated on it.
   */
  'matchIndex': (number);
}
