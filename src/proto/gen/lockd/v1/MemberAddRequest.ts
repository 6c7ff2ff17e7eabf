// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberAddRequest {
  /**
   * The new member's id: never used in this cluster before.
   */
  'id'?: (string);
  /**
   * HOST:PORT its peer listener is reachable at (its --advertise-peer).
   */
  'peerUrl'?: (string);
  /**
   * HOST:PORT its client listener is reachable at (its --advertise-client); may be "".
   */
  'clientUrl'?: (string);
  /**
   * Add as a learner (receives the log, no vote): the safe way; promote it once caught up.
   */
  'learner'?: (boolean);
  /**
   * Compare-and-swap: refuse unless the configuration is still that of this config index.
   */
  'expectedConfigIndex'?: (number | string | Long);
  'requestId'?: (string);
  '_expectedConfigIndex'?: "expectedConfigIndex";
}

export interface MemberAddRequest__Output {
  /**
   * The new member's id: never used in this cluster before.
   */
  'id': (string);
  /**
   * HOST:PORT its peer listener is reachable at (its --advertise-peer).
   */
  'peerUrl': (string);
  /**
   * HOST:PORT its client listener is reachable at (its --advertise-client); may be "".
   */
  'clientUrl': (string);
  /**
   * Add as a learner (receives the log, no vote): the safe way; promote it once caught up.
   */
  'learner': (boolean);
  /**
   * Compare-and-swap: refuse unless the configuration is still that of this config index.
   */
  'expectedConfigIndex'?: (number);
  'requestId': (string);
  '_expectedConfigIndex'?: "expectedConfigIndex";
}
