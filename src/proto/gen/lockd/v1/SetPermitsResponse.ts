// Original file: proto/lockd.proto


export interface SetPermitsResponse {
  /**
   * The permits before this call.
   */
  'previous'?: (number);
  /**
   * Waiters this call granted.
   */
  'granted'?: (number);
}

export interface SetPermitsResponse__Output {
  /**
   * The permits before this call.
   */
  'previous': (number);
  /**
   * Waiters this call granted.
   */
  'granted': (number);
}
