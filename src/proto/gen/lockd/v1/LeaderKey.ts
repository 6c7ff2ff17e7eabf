// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

/**
 * A leadership: the grant of the election's lock.
 */
export interface LeaderKey {
  'name'?: (string);
  'leaseId'?: (number | string | Long);
  /**
   * The grant's fencing token (see the Lock service: floor(token / 1024) is the index of the entry
   * that made this lease the leader).
   */
  'fencingToken'?: (number | string | Long);
}

/**
 * A leadership: the grant of the election's lock.
 */
export interface LeaderKey__Output {
  'name': (string);
  'leaseId': (number);
  /**
   * The grant's fencing token (see the Lock service: floor(token / 1024) is the index of the entry
   * that made this lease the leader).
   */
  'fencingToken': (number);
}
