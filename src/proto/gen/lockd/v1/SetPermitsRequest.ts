// Original file: proto/lockd.proto


export interface SetPermitsRequest {
  /**
   * The semaphore's name.
   */
  'name'?: (string);
  /**
   * The new permits, 1 to 1024 (else INVALID_ARGUMENT).
   */
  'permits'?: (number);
  /**
   * Makes a retried SetPermits apply once (see "Request ids" at the top): a late attempt cannot undo
   * a later change. The same id with another name or value is INVALID_ARGUMENT.
   */
  'requestId'?: (string);
}

export interface SetPermitsRequest__Output {
  /**
   * The semaphore's name.
   */
  'name': (string);
  /**
   * The new permits, 1 to 1024 (else INVALID_ARGUMENT).
   */
  'permits': (number);
  /**
   * Makes a retried SetPermits apply once (see "Request ids" at the top): a late attempt cannot undo
   * a later change. The same id with another name or value is INVALID_ARGUMENT.
   */
  'requestId': (string);
}
