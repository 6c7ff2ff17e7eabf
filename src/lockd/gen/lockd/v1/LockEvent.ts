// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface LockEvent {
  /**
   * The lock's name.
   */
  'name'?: (string);
  /**
   * What happened: ACQUIRED | RELEASED | EXPIRED | ...
   */
  'type'?: (string);
  /**
   * The fencing token of the grant concerned.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The lease concerned.
   */
  'leaseId'?: (number | string | Long);
  /**
   * Raft log index of the entry that made the change.
   */
  'index'?: (number | string | Long);
}

export interface LockEvent__Output {
  /**
   * The lock's name.
   */
  'name': (string);
  /**
   * What happened: ACQUIRED | RELEASED | EXPIRED | ...
   */
  'type': (string);
  /**
   * The fencing token of the grant concerned.
   */
  'fencingToken': (number);
  /**
   * The lease concerned.
   */
  'leaseId': (number);
  /**
   * Raft log index of the entry that made the change.
   */
  'index': (number);
}
