// Original file: proto/lockd.proto


/**
 * List is paged, ascending by lease id: a response carries at most page_size leases and, when more
 * may follow, a next_page_token to pass back for the next page. A request with neither field (as
 * every client before paging sent) gets the first page of the default size. Each page is a
 * linearizable read of its own: leases granted or ended between pages may appear or vanish, but no
 * lease that stays live throughout is skipped or listed twice.
 */
export interface LeaseListRequest {
  /**
   * Leases per page: 0 = the default (1,000); above the maximum (10,000) it is taken as the maximum.
   */
  'pageSize'?: (number);
  /**
   * "" for the first page; otherwise a next_page_token from an earlier response, as it was (a token
   * is opaque: anything else is INVALID_ARGUMENT naming page_token). A token does not expire.
   */
  'pageToken'?: (string);
}

/**
 * List is paged, ascending by lease id: a response carries at most page_size leases and, when more
 * may follow, a next_page_token to pass back for the next page. A request with neither field (as
 * every client before paging sent) gets the first page of the default size. Each page is a
 * linearizable read of its own: leases granted or ended between pages may appear or vanish, but no
 * lease that stays live throughout is skipped or listed twice.
 */
export interface LeaseListRequest__Output {
  /**
   * Leases per page: 0 = the default (1,000); above the maximum (10,000) it is taken as the maximum.
   */
  'pageSize': (number);
  /**
   * "" for the first page; otherwise a next_page_token from an earlier response, as it was (a token
   * is opaque: anything else is INVALID_ARGUMENT naming page_token). A token does not expire.
   */
  'pageToken': (string);
}
