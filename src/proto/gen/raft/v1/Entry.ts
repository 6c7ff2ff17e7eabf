// Original file: proto/raft.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One log entry. Empty data is the leader's no-op of its term.
 */
export interface Entry {
  /**
   * Term in which the entry was proposed.
   */
  'term'?: (number | string | Long);
  /**
   * Position in the log (1-based).
   */
  'index'?: (number | string | Long);
  /**
   * The application's command, opaque to Raft.
   */
  'data'?: (Buffer | Uint8Array | string);
}

/**
 * One log entry. Empty data is the leader's no-op of its term.
 */
export interface Entry__Output {
  /**
   * Term in which the entry was proposed.
   */
  'term': (number);
  /**
   * Position in the log (1-based).
   */
  'index': (number);
  /**
   * The application's command, opaque to Raft.
   */
  'data': (Buffer);
}
