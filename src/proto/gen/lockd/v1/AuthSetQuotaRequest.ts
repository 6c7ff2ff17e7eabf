// Original file: proto/lockd.proto

import type { QuotaValue as _lockd_v1_QuotaValue, QuotaValue__Output as _lockd_v1_QuotaValue__Output } from '../../lockd/v1/QuotaValue.js';

export interface AuthSetQuotaRequest {
  /**
   * A principal, or "*" (every caller when rules are not enforced).
   */
  'principal'?: (string);
  /**
   * The quotas to change; those not named keep their value.
   */
  'set'?: (_lockd_v1_QuotaValue)[];
  /**
   * First drop every quota set for the principal (back to the defaults), then apply `set`.
   */
  'reset'?: (boolean);
  /**
   * As on every mutating request.
   */
  'requestId'?: (string);
}

export interface AuthSetQuotaRequest__Output {
  /**
   * A principal, or "*" (every caller when rules are not enforced).
   */
  'principal': (string);
  /**
   * The quotas to change; those not named keep their value.
   */
  'set': (_lockd_v1_QuotaValue__Output)[];
  /**
   * First drop every quota set for the principal (back to the defaults), then apply `set`.
   */
  'reset': (boolean);
  /**
   * As on every mutating request.
   */
  'requestId': (string);
}
