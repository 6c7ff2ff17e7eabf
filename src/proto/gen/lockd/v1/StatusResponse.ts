// Original file: proto/lockd.proto

import type { Member as _lockd_v1_Member, Member__Output as _lockd_v1_Member__Output } from '../../lockd/v1/Member.js';
import type { Long } from '@grpc/proto-loader';

export interface StatusResponse {
  /**
   * The answering node's id.
   */
  'nodeId'?: (string);
  /**
   * Its Raft role: follower | precandidate | candidate | leader. The role it acts on: it changes
   * once the change is on the node's disk, and a node answering leader serves calls itself.
   */
  'role'?: (string);
  /**
   * The term that goes with role (on disk; a newer term may be in the middle of being written).
   */
  'term'?: (number | string | Long);
  /**
   * The leader it knows of ("" if none), as it routes calls.
   */
  'leaderId'?: (string);
  /**
   * Highest log index known committed.
   */
  'commitIndex'?: (number | string | Long);
  /**
   * Highest log index applied to its state machine.
   */
  'appliedIndex'?: (number | string | Long);
  /**
   * Every member; match_index is filled in on the leader only.
   */
  'members'?: (_lockd_v1_Member)[];
  /**
   * Client address of the leader, when known ("" otherwise).
   */
  'leaderAddress'?: (string);
}

export interface StatusResponse__Output {
  /**
   * The answering node's id.
   */
  'nodeId': (string);
  /**
   * Its Raft role: follower | precandidate | candidate | leader. The role it acts on: it changes
   * once the change is on the node's disk, and a node answering leader serves calls itself.
   */
  'role': (string);
  /**
   * The term that goes with role (on disk; a newer term may be in the middle of being written).
   */
  'term': (number);
  /**
   * The leader it knows of ("" if none), as it routes calls.
   */
  'leaderId': (string);
  /**
   * Highest log index known committed.
   */
  'commitIndex': (number);
  /**
   * Highest log index applied to its state machine.
   */
  'appliedIndex': (number);
  /**
   * Every member; match_index is filled in on the leader only.
   */
  'members': (_lockd_v1_Member__Output)[];
  /**
   * Client address of the leader, when known ("" otherwise).
   */
  'leaderAddress': (string);
}
