// Original file: proto/raft.proto

import type { MessageType as _raft_v1_MessageType, MessageType__Output as _raft_v1_MessageType__Output } from '../../raft/v1/MessageType.js';
import type { Entry as _raft_v1_Entry, Entry__Output as _raft_v1_Entry__Output } from '../../raft/v1/Entry.js';
import type { Snapshot as _raft_v1_Snapshot, Snapshot__Output as _raft_v1_Snapshot__Output } from '../../raft/v1/Snapshot.js';
import type { Long } from '@grpc/proto-loader';

/**
 * Every message between peers (src/raft/types.ts Message). Fields a type does not use are zero.
 */
export interface Message {
  /**
   * What kind of message this is.
   */
  'type'?: (_raft_v1_MessageType);
  /**
   * Sender node id.
   */
  'from'?: (string);
  /**
   * Receiver node id; a node refuses messages addressed to another id.
   */
  'to'?: (string);
  /**
   * Sender's current term.
   */
  'term'?: (number | string | Long);
  /**
   * App: term of the entry before `entries`; Vote/PreVote: term of the candidate's last entry;
   * AppResp: term of the sender's entry at `index` (accept; the leader checks it against its own
   * log) or at reject_hint (reject).
   */
  'logTerm'?: (number | string | Long);
  /**
   * App: index of the entry before `entries`; Vote/PreVote: candidate's last index;
   * AppResp: last index matched (or rejected).
   */
  'index'?: (number | string | Long);
  /**
   * App: the entries to append after `index`.
   */
  'entries'?: (_raft_v1_Entry)[];
  /**
   * Leader's commit index.
   */
  'commit'?: (number | string | Long);
  /**
   * Responses: true if the request was refused.
   */
  'reject'?: (boolean);
  /**
   * AppResp reject: where the leader should probe next (fast backtracking).
   */
  'rejectHint'?: (number | string | Long);
  /**
   * Snap only: the snapshot to install (sent chunked, see SnapshotChunk).
   */
  'snapshot'?: (_raft_v1_Snapshot | null);
  /**
   * ReadIndex context carried on Heartbeat/HeartbeatResp.
   */
  'context'?: (string);
}

/**
 * Every message between peers (src/raft/types.ts Message). Fields a type does not use are zero.
 */
export interface Message__Output {
  /**
   * What kind of message this is.
   */
  'type': (_raft_v1_MessageType__Output);
  /**
   * Sender node id.
   */
  'from': (string);
  /**
   * Receiver node id; a node refuses messages addressed to another id.
   */
  'to': (string);
  /**
   * Sender's current term.
   */
  'term': (number);
  /**
   * App: term of the entry before `entries`; Vote/PreVote: term of the candidate's last entry;
   * AppResp: term of the sender's entry at `index` (accept; the leader checks it against its own
   * log) or at reject_hint (reject).
   */
  'logTerm': (number);
  /**
   * App: index of the entry before `entries`; Vote/PreVote: candidate's last index;
   * AppResp: last index matched (or rejected).
   */
  'index': (number);
  /**
   * App: the entries to append after `index`.
   */
  'entries': (_raft_v1_Entry__Output)[];
  /**
   * Leader's commit index.
   */
  'commit': (number);
  /**
   * Responses: true if the request was refused.
   */
  'reject': (boolean);
  /**
   * AppResp reject: where the leader should probe next (fast backtracking).
   */
  'rejectHint': (number);
  /**
   * Snap only: the snapshot to install (sent chunked, see SnapshotChunk).
   */
  'snapshot': (_raft_v1_Snapshot__Output | null);
  /**
   * ReadIndex context carried on Heartbeat/HeartbeatResp.
   */
  'context': (string);
}
