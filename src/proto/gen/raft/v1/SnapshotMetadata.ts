// Original file: proto/raft.proto

import type { Long } from '@grpc/proto-loader';

/**
 * What a snapshot covers.
 */
export interface SnapshotMetadata {
  /**
   * Index of the last entry the snapshot covers.
   */
  'index'?: (number | string | Long);
  /**
   * Term of that entry.
   */
  'term'?: (number | string | Long);
  /**
   * Voting members as of `index`.
   */
  'voters'?: (string)[];
}

/**
 * What a snapshot covers.
 */
export interface SnapshotMetadata__Output {
  /**
   * Index of the last entry the snapshot covers.
   */
  'index': (number);
  /**
   * Term of that entry.
   */
  'term': (number);
  /**
   * Voting members as of `index`.
   */
  'voters': (string)[];
}
