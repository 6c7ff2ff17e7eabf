// Original file: proto/raft.proto

import type { EntryType as _raft_v1_EntryType, EntryType__Output as _raft_v1_EntryType__Output } from '../../raft/v1/EntryType.js';
import type { Long } from '@grpc/proto-loader';

/**
 * One log entry. Empty data in a normal entry is the leader's no-op of its term.
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
   * The application's command, opaque to Raft; or a configuration (type ENTRY_TYPE_CONFIG).
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * What `data` is. A receiver must keep it: a config entry applied as a command, or a command
   * taken for a configuration, splits the cluster.
   */
  'type'?: (_raft_v1_EntryType);
}

/**
 * One log entry. Empty data in a normal entry is the leader's no-op of its term.
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
   * The application's command, opaque to Raft; or a configuration (type ENTRY_TYPE_CONFIG).
   */
  'data': (Buffer);
  /**
   * What `data` is. A receiver must keep it: a config entry applied as a command, or a command
   * taken for a configuration, splits the cluster.
   */
  'type': (_raft_v1_EntryType__Output);
}
