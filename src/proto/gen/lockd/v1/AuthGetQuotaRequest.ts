// Original file: proto/lockd.proto


export interface AuthGetQuotaRequest {
  /**
   * A principal, or "*".
   */
  'principal'?: (string);
}

export interface AuthGetQuotaRequest__Output {
  /**
   * A principal, or "*".
   */
  'principal': (string);
}
