// Original file: proto/raft.proto

import type { Message as _raft_v1_Message, Message__Output as _raft_v1_Message__Output } from '../../raft/v1/Message.js';
import type { Long } from '@grpc/proto-loader';

/**
 * A Snap message in pieces. Chunks of one snapshot are written back to back on one stream, in
 * offset order, starting at offset 0; nothing else is interleaved between them.
 */
export interface SnapshotChunk {
  /**
   * In the first chunk (offset 0) only: the Snap message, whose snapshot.data is left empty.
   */
  'message'?: (_raft_v1_Message | null);
  /**
   * Byte offset of `data` within the snapshot's data.
   */
  'offset'?: (number | string | Long);
  /**
   * Length of the snapshot's data in bytes (the same in every chunk).
   */
  'totalBytes'?: (number | string | Long);
  /**
   * The bytes [offset, offset + len(data)) of the snapshot's data.
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * True on the final chunk: the receiver now holds total_bytes bytes and delivers the message.
   */
  'last'?: (boolean);
}

/**
 * A Snap message in pieces. Chunks of one snapshot are written back to back on one stream, in
 * offset order, starting at offset 0; nothing else is interleaved between them.
 */
export interface SnapshotChunk__Output {
  /**
   * In the first chunk (offset 0) only: the Snap message, whose snapshot.data is left empty.
   */
  'message': (_raft_v1_Message__Output | null);
  /**
   * Byte offset of `data` within the snapshot's data.
   */
  'offset': (number);
  /**
   * Length of the snapshot's data in bytes (the same in every chunk).
   */
  'totalBytes': (number);
  /**
   * The bytes [offset, offset + len(data)) of the snapshot's data.
   */
  'data': (Buffer);
  /**
   * True on the final chunk: the receiver now holds total_bytes bytes and delivers the message.
   */
  'last': (boolean);
}
