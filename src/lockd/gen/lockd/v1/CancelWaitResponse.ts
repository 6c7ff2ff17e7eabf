// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface CancelWaitResponse {
  /**
   * True if the lease was waiting and left the queue.
   */
  'removed'?: (boolean);
  /**
   * The lease's fencing token if it holds the lock, else 0.
   */
  'fencingToken'?: (number | string | Long);
}

export interface CancelWaitResponse__Output {
  /**
   * True if the lease was waiting and left the queue.
   */
  'removed': (boolean);
  /**
   * The lease's fencing token if it holds the lock, else 0.
   */
  'fencingToken': (number);
}
