// Original file: proto/lockd.proto


export interface FenceReadRequest {
  /**
   * The key to read.
   */
  'key'?: (string);
}

export interface FenceReadRequest__Output {
  /**
   * The key to read.
   */
  'key': (string);
}
