// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface InspectResponse {
  /**
   * True if some lease holds the lock.
   */
  'held'?: (boolean);
  /**
   * The current grant's fencing token (0 if free).
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The holding lease (0 if free).
   */
  'holderLeaseId'?: (number | string | Long);
  /**
   * Leases queued for the lock, first in line first.
   */
  'waitingLeaseIds'?: (number | string | Long)[];
}

export interface InspectResponse__Output {
  /**
   * True if some lease holds the lock.
   */
  'held': (boolean);
  /**
   * The current grant's fencing token (0 if free).
   */
  'fencingToken': (number);
  /**
   * The holding lease (0 if free).
   */
  'holderLeaseId': (number);
  /**
   * Leases queued for the lock, first in line first.
   */
  'waitingLeaseIds': (number)[];
}
