// Original file: proto/lockd.proto


export interface ObserveRequest {
  /**
   * The lock to watch.
   */
  'name'?: (string);
}

export interface ObserveRequest__Output {
  /**
   * The lock to watch.
   */
  'name': (string);
}
