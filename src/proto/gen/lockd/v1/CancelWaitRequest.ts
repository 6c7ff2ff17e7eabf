// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface CancelWaitRequest {
  /**
   * The lock waited on.
   */
  'name'?: (string);
  /**
   * The waiting lease.
   */
  'leaseId'?: (number | string | Long);
  /**
   * For the cleanup of an abandoned waiting Acquire (lockd nodes send it): the log index of that
   * call's last Acquire entry, or an applied index its entries cannot follow. If a later Acquire of
   * the lease for this lock was answered queued or acquired, the cancel changes nothing; otherwise a
   * grant made meanwhile is released too (released = true). 0 (absent): leave the queue only.
   */
  'abandonedAtIndex'?: (number | string | Long);
}

export interface CancelWaitRequest__Output {
  /**
   * The lock waited on.
   */
  'name': (string);
  /**
   * The waiting lease.
   */
  'leaseId': (number);
  /**
   * For the cleanup of an abandoned waiting Acquire (lockd nodes send it): the log index of that
   * call's last Acquire entry, or an applied index its entries cannot follow. If a later Acquire of
   * the lease for this lock was answered queued or acquired, the cancel changes nothing; otherwise a
   * grant made meanwhile is released too (released = true). 0 (absent): leave the queue only.
   */
  'abandonedAtIndex': (number);
}
