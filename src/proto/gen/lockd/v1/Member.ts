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
  /**
   * The member's build line as it stated it to this node (StatusResponse.build): "" until heard
   * from, "(none)" for a lockd before 0.2.0, which states none.
   */
  'build'?: (string);
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
  /**
   * The member's build line as it stated it to this node (StatusResponse.build): "" until heard
   * from, "(none)" for a lockd before 0.2.0, which states none.
   */
  'build': (string);
}
