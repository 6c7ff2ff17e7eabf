// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface CancelWaitResponse {
  /**
   * True if the lease was waiting and left the queue.
   */
  'removed'?: (boolean);
  /**
   * The lease's fencing token if it holds the lock, else 0 (also 0 when abandoned_at_index showed a
   * later Acquire owns it). With released = true, the token this call released.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * True if this call released the lock (only with abandoned_at_index > 0).
   */
  'released'?: (boolean);
}

export interface CancelWaitResponse__Output {
  /**
   * True if the lease was waiting and left the queue.
   */
  'removed': (boolean);
  /**
   * The lease's fencing token if it holds the lock, else 0 (also 0 when abandoned_at_index showed a
   * later Acquire owns it). With released = true, the token this call released.
   */
  'fencingToken': (number);
  /**
   * True if this call released the lock (only with abandoned_at_index > 0).
   */
  'released': (boolean);
}
