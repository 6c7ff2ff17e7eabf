// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface TransferLeaderResponse {
  /**
   * The leader once the call ends (the new one, or the old one if nothing changed).
   */
  'leaderId'?: (string);
  /**
   * Its client address, when known ("" otherwise).
   */
  'leaderAddress'?: (string);
  /**
   * The term in which leader_id leads, as the answering node knows it.
   */
  'term'?: (number | string | Long);
  /**
   * The leader the call found (the one that handed over).
   */
  'previousLeaderId'?: (string);
  /**
   * False when nothing changed (target_id named the leader itself).
   */
  'transferred'?: (boolean);
}

export interface TransferLeaderResponse__Output {
  /**
   * The leader once the call ends (the new one, or the old one if nothing changed).
   */
  'leaderId': (string);
  /**
   * Its client address, when known ("" otherwise).
   */
  'leaderAddress': (string);
  /**
   * The term in which leader_id leads, as the answering node knows it.
   */
  'term': (number);
  /**
   * The leader the call found (the one that handed over).
   */
  'previousLeaderId': (string);
  /**
   * False when nothing changed (target_id named the leader itself).
   */
  'transferred': (boolean);
}
