// Original file: proto/lockd.proto


export interface AuthListRequest {
  /**
   * Only this principal's rules ("" = every rule).
   */
  'principal'?: (string);
}

export interface AuthListRequest__Output {
  /**
   * Only this principal's rules ("" = every rule).
   */
  'principal': (string);
}
