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
  /**
   * The answering node's lockd version (MAJOR.MINOR.PATCH) and build line, which names the formats
   * it reads and writes: "lockd/0.2.0 storage=3 snapshot=8 command=2 frame=1 backup=1"
   * (`lockd --version`). Absent ("") from a lockd before 0.2.0.
   */
  'version'?: (string);
  'build'?: (string);
  /**
   * The cluster version as this node knows it: the lowest version among the members (voters and
   * learners, which apply every entry too), as each states it on its peer streams; a member that
   * states none runs a lockd before 0.2.0 and counts as 0.1.0. Features that an older member
   * could not decode or would apply differently are used only once the cluster version reaches the
   * version that introduced them. cluster_version_complete is false while some member has not been
   * heard from since this node started: cluster_version is then at most 0.1.0 and every newer
   * feature stays off.
   */
  'clusterVersion'?: (string);
  'clusterVersionComplete'?: (boolean);
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
  /**
   * The answering node's lockd version (MAJOR.MINOR.PATCH) and build line, which names the formats
   * it reads and writes: "lockd/0.2.0 storage=3 snapshot=8 command=2 frame=1 backup=1"
   * (`lockd --version`). Absent ("") from a lockd before 0.2.0.
   */
  'version': (string);
  'build': (string);
  /**
   * The cluster version as this node knows it: the lowest version among the members (voters and
   * learners, which apply every entry too), as each states it on its peer streams; a member that
   * states none runs a lockd before 0.2.0 and counts as 0.1.0. Features that an older member
   * could not decode or would apply differently are used only once the cluster version reaches the
   * version that introduced them. cluster_version_complete is false while some member has not been
   * heard from since this node started: cluster_version is then at most 0.1.0 and every newer
   * feature stays off.
   */
  'clusterVersion': (string);
  'clusterVersionComplete': (boolean);
}
