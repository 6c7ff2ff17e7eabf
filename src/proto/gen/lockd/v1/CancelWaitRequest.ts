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
   * call's last Acquire entry. It must name exactly the waiting Acquire (wait = true) that the
   * lease's wait or grant for this lock answers last: the one that queued it, or a later one
   * answered queued or acquired (a retry, another call). Then the lease leaves the queue, or a grant
   * made meanwhile (handed to no call) is released in the same entry (released = true). Any other
   * index changes nothing (all false/0): a later call owns the wait or grant, or the index is no
   * such entry (a try-lock's, one past every Acquire). An index not below the CancelWait's own log
   * index is INVALID_ARGUMENT. 0 (absent): leave the queue only.
   */
  'abandonedAtIndex'?: (number | string | Long);
  /**
   * Makes a retried CancelWait apply once (see "Request ids" at the top): a late attempt then cannot
   * take the lease out of a queue it joined again after the first one. A replay answers removed and
   * released as the first attempt did, and fencing_token as the lease's token now (unless the first
   * attempt released it). The same id with other fields is INVALID_ARGUMENT.
   */
  'requestId'?: (string);
  /**
   * With abandoned_at_index: the request_id of that abandoned Acquire (the server gives every
   * waiting Acquire one if its caller did not), which must match too, else nothing changes. An index
   * can be read by anyone (Inspect, a QUEUED event); the request id only the waiting call knows, so
   * no third party can release a grant handed to a waiter. Set without abandoned_at_index:
   * INVALID_ARGUMENT. Not compared by the request_id replay above.
   */
  'acquireRequestId'?: (string);
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
   * call's last Acquire entry. It must name exactly the waiting Acquire (wait = true) that the
   * lease's wait or grant for this lock answers last: the one that queued it, or a later one
   * answered queued or acquired (a retry, another call). Then the lease leaves the queue, or a grant
   * made meanwhile (handed to no call) is released in the same entry (released = true). Any other
   * index changes nothing (all false/0): a later call owns the wait or grant, or the index is no
   * such entry (a try-lock's, one past every Acquire). An index not below the CancelWait's own log
   * index is INVALID_ARGUMENT. 0 (absent): leave the queue only.
   */
  'abandonedAtIndex': (number);
  /**
   * Makes a retried CancelWait apply once (see "Request ids" at the top): a late attempt then cannot
   * take the lease out of a queue it joined again after the first one. A replay answers removed and
   * released as the first attempt did, and fencing_token as the lease's token now (unless the first
   * attempt released it). The same id with other fields is INVALID_ARGUMENT.
   */
  'requestId': (string);
  /**
   * With abandoned_at_index: the request_id of that abandoned Acquire (the server gives every
   * waiting Acquire one if its caller did not), which must match too, else nothing changes. An index
   * can be read by anyone (Inspect, a QUEUED event); the request id only the waiting call knows, so
   * no third party can release a grant handed to a waiter. Set without abandoned_at_index:
   * INVALID_ARGUMENT. Not compared by the request_id replay above.
   */
  'acquireRequestId': (string);
}
