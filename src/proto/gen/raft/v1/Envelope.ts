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
  /**
   * A whole message of any type but Snap in the peer frame encoding, which is what lockd sends
   * (a receiver still accepts `message`). Layout (src/lockd/transport/frame-codec.ts); uint is
   * unsigned LEB128, minimal, at most 8 bytes and at most 2^53 - 1; str and bytes are a uint
   * length then the bytes (str: well-formed UTF-8):
   * u8 version = 1; u8 type (MessageType number, not SNAP);
   * uint term, log_term, index, commit, reject_hint; u8 flags (bit 0: reject, others 0);
   * str from, to (non-empty, at most 255 bytes each); str context (at most 4096 bytes);
   * uint entry count; per entry: uint term, uint index, u8 type (EntryType number), bytes data;
   * nothing after the last entry. Any other frame (another version, a truncated or overlong
   * field, trailing bytes) ends the stream with FAILED_PRECONDITION and is not delivered.
   */
  'frame'?: (Buffer | Uint8Array | string);
  'body'?: "message"|"snapshotChunk"|"frame";
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
  /**
   * A whole message of any type but Snap in the peer frame encoding, which is what lockd sends
   * (a receiver still accepts `message`). Layout (src/lockd/transport/frame-codec.ts); uint is
   * unsigned LEB128, minimal, at most 8 bytes and at most 2^53 - 1; str and bytes are a uint
   * length then the bytes (str: well-formed UTF-8):
   * u8 version = 1; u8 type (MessageType number, not SNAP);
   * uint term, log_term, index, commit, reject_hint; u8 flags (bit 0: reject, others 0);
   * str from, to (non-empty, at most 255 bytes each); str context (at most 4096 bytes);
   * uint entry count; per entry: uint term, uint index, u8 type (EntryType number), bytes data;
   * nothing after the last entry. Any other frame (another version, a truncated or overlong
   * field, trailing bytes) ends the stream with FAILED_PRECONDITION and is not delivered.
   */
  'frame'?: (Buffer);
  'body'?: "message"|"snapshotChunk"|"frame";
}
