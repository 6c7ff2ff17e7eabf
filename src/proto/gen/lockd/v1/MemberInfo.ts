// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface MemberInfo {
  'id'?: (string);
  /**
   * Where members dial it (its --advertise-peer), "" if the leader does not know it.
   */
  'peerAddress'?: (string);
  /**
   * Where clients dial it: as it advertised it, else as given to MemberAdd, else "".
   */
  'clientAddress'?: (string);
  /**
   * "voter" or "learner".
   */
  'role'?: (string);
  /**
   * Highest log index known replicated on it (the leader's own last index for itself).
   */
  'matchIndex'?: (number | string | Long);
  /**
   * commit_index - match_index, 0 when it has everything committed.
   */
  'lag'?: (number | string | Long);
  'leader'?: (boolean);
}

export interface MemberInfo__Output {
  'id': (string);
  /**
   * Where members dial it (its --advertise-peer), "" if the leader does not know it.
   */
  'peerAddress': (string);
  /**
   * Where clients dial it: as it advertised it, else as given to MemberAdd, else "".
   */
  'clientAddress': (string);
  /**
   * "voter" or "learner".
   */
  'role': (string);
  /**
   * Highest log index known replicated on it (the leader's own last index for itself).
   */
  'matchIndex': (number);
  /**
   * commit_index - match_index, 0 when it has everything committed.
   */
  'lag': (number);
  'leader': (boolean);
}
