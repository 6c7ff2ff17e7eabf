// Original file: proto/raft.proto

import type { Message as _raft_v1_Message, Message__Output as _raft_v1_Message__Output } from '../../raft/v1/Message.js';
import type { SnapshotChunk as _raft_v1_SnapshotChunk, SnapshotChunk__Output as _raft_v1_SnapshotChunk__Output } from '../../raft/v1/SnapshotChunk.js';

/**
 * The unit written on a peer stream.
 */
export interface Envelope {
  /**
   * The cluster both nodes belong to (--cluster-id); must match the receiver's.
   */
  'clusterId'?: (string);
  /**
   * The sending node's id; must equal message.from.
   */
  'senderId'?: (string);
  /**
   * A whole message of any type but Snap.
   */
  'message'?: (_raft_v1_Message | null);
  /**
   * One piece of a Snap message.
   */
  'snapshotChunk'?: (_raft_v1_SnapshotChunk | null);
  'body'?: "message"|"snapshotChunk";
}

/**
 * The unit written on a peer stream.
 */
export interface Envelope__Output {
  /**
   * The cluster both nodes belong to (--cluster-id); must match the receiver's.
   */
  'clusterId': (string);
  /**
   * The sending node's id; must equal message.from.
   */
  'senderId': (string);
  /**
   * A whole message of any type but Snap.
   */
  'message'?: (_raft_v1_Message__Output | null);
  /**
   * One piece of a Snap message.
   */
  'snapshotChunk'?: (_raft_v1_SnapshotChunk__Output | null);
  'body'?: "message"|"snapshotChunk";
}
