// Original file: proto/raft.proto

import type { SnapshotMetadata as _raft_v1_SnapshotMetadata, SnapshotMetadata__Output as _raft_v1_SnapshotMetadata__Output } from '../../raft/v1/SnapshotMetadata.js';

/**
 * The application's state as of metadata.index.
 */
export interface Snapshot {
  /**
   * What the snapshot covers.
   */
  'metadata'?: (_raft_v1_SnapshotMetadata | null);
  /**
   * The state machine's serialized state, opaque to Raft.
   */
  'data'?: (Buffer | Uint8Array | string);
}

/**
 * The application's state as of metadata.index.
 */
export interface Snapshot__Output {
  /**
   * What the snapshot covers.
   */
  'metadata': (_raft_v1_SnapshotMetadata__Output | null);
  /**
   * The state machine's serialized state, opaque to Raft.
   */
  'data': (Buffer);
}
