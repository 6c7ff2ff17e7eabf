// Original file: proto/lockd.proto


export interface InspectRequest {
  /**
   * The lock's name.
   */
  'name'?: (string);
}

export interface InspectRequest__Output {
  /**
   * The lock's name.
   */
  'name': (string);
}
