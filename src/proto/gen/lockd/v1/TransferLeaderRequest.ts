// Original file: proto/lockd.proto


export interface TransferLeaderRequest {
  /**
   * The voter to hand leadership to; "" for the most caught-up one.
   */
  'targetId'?: (string);
}

export interface TransferLeaderRequest__Output {
  /**
   * The voter to hand leadership to; "" for the most caught-up one.
   */
  'targetId': (string);
}
