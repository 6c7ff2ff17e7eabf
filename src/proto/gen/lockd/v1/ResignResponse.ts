// Original file: proto/lockd.proto


export interface ResignResponse {
  /**
   * True if this call ended the leadership.
   */
  'resigned'?: (boolean);
}

export interface ResignResponse__Output {
  /**
   * True if this call ended the leadership.
   */
  'resigned': (boolean);
}
