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
  /**
   * Makes a retried CancelWait apply once (see "Request ids" at the top): a late attempt then cannot
   * take the lease out of a queue it joined again after the first one. A replay answers removed and
   * released as the first attempt did, and fencing_token as the lease's token now (unless the first
   * attempt released it). The same id with other fields is INVALID_ARGUMENT.
   */
  'requestId'?: (string);
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
  /**
   * Makes a retried CancelWait apply once (see "Request ids" at the top): a late attempt then cannot
   * take the lease out of a queue it joined again after the first one. A replay answers removed and
   * released as the first attempt did, and fencing_token as the lease's token now (unless the first
   * attempt released it). The same id with other fields is INVALID_ARGUMENT.
   */
  'requestId': (string);
}
