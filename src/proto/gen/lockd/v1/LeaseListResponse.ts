// Original file: proto/lockd.proto

import type { LeaseInfo as _lockd_v1_LeaseInfo, LeaseInfo__Output as _lockd_v1_LeaseInfo__Output } from '../../lockd/v1/LeaseInfo.js';

export interface LeaseListResponse {
  /**
   * The live leases of this page (those the caller may see: an admin every lease, anyone else
   * its own), ascending by id.
   */
  'leases'?: (_lockd_v1_LeaseInfo)[];
  /**
   * Pass this as page_token for the next page; "" when this page is the last.
   */
  'nextPageToken'?: (string);
}

export interface LeaseListResponse__Output {
  /**
   * The live leases of this page (those the caller may see: an admin every lease, anyone else
   * its own), ascending by id.
   */
  'leases': (_lockd_v1_LeaseInfo__Output)[];
  /**
   * Pass this as page_token for the next page; "" when this page is the last.
   */
  'nextPageToken': (string);
}
