// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface SnapshotInfo {
  /**
   * The log index whose applied state the backup holds, and that entry's term.
   */
  'index'?: (number | string | Long);
  'term'?: (number | string | Long);
  /**
   * Total bytes of data that follow (the whole backup file, checksum included).
   */
  'sizeBytes'?: (number | string | Long);
  /**
   * The configuration in effect at `index`: voters and learners (ids).
   */
  'voters'?: (string)[];
  'learners'?: (string)[];
  /**
   * The node that took it (the leader).
   */
  'leaderId'?: (string);
  /**
   * The backup file's format, and the state machine snapshot format inside it.
   */
  'fileFormat'?: (number);
  'stateFormat'?: (number);
  /**
   * The replicated logical clock at `index` (ms), and what the state holds then.
   */
  'logicalNowMs'?: (number | string | Long);
  'leases'?: (number | string | Long);
  'locks'?: (number | string | Long);
  'fencedKeys'?: (number | string | Long);
  'aclRules'?: (number | string | Long);
}

export interface SnapshotInfo__Output {
  /**
   * The log index whose applied state the backup holds, and that entry's term.
   */
  'index': (number);
  'term': (number);
  /**
   * Total bytes of data that follow (the whole backup file, checksum included).
   */
  'sizeBytes': (number);
  /**
   * The configuration in effect at `index`: voters and learners (ids).
   */
  'voters': (string)[];
  'learners': (string)[];
  /**
   * The node that took it (the leader).
   */
  'leaderId': (string);
  /**
   * The backup file's format, and the state machine snapshot format inside it.
   */
  'fileFormat': (number);
  'stateFormat': (number);
  /**
   * The replicated logical clock at `index` (ms), and what the state holds then.
   */
  'logicalNowMs': (number);
  'leases': (number);
  'locks': (number);
  'fencedKeys': (number);
  'aclRules': (number);
}
