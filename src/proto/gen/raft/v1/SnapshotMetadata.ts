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
  /**
   * Non-voting members (they receive the log, never vote or count) as of `index`.
   */
  'learners'?: (string)[];
  /**
   * Every id ever removed as of `index`: never a member again, its messages are refused.
   */
  'removed'?: (string)[];
  /**
   * Index of the config entry that made this configuration (0: the bootstrap configuration);
   * at most `index`. A membership change may name it to be refused if the configuration moved on.
   */
  'configIndex'?: (number | string | Long);
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
  /**
   * Non-voting members (they receive the log, never vote or count) as of `index`.
   */
  'learners': (string)[];
  /**
   * Every id ever removed as of `index`: never a member again, its messages are refused.
   */
  'removed': (string)[];
  /**
   * Index of the config entry that made this configuration (0: the bootstrap configuration);
   * at most `index`. A membership change may name it to be refused if the configuration moved on.
   */
  'configIndex': (number);
}
