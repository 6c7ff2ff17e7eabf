// Original file: proto/lockd.proto


export interface ReleaseResponse {
  /**
   * False (or FAILED_PRECONDITION) when the token is stale: the lock was not released.
   */
  'released'?: (boolean);
}

export interface ReleaseResponse__Output {
  /**
   * False (or FAILED_PRECONDITION) when the token is stale: the lock was not released.
   */
  'released': (boolean);
}
