// Original file: proto/raft.proto

import type { Long } from '@grpc/proto-loader';

/**
 * The receiver's answer when the sender closes its stream.
 */
export interface StreamSummary {
  /**
   * Envelopes the receiver read on this stream (whole messages plus snapshot chunks).
   */
  'envelopes'?: (number | string | Long);
}

/**
 * The receiver's answer when the sender closes its stream.
 */
export interface StreamSummary__Output {
  /**
   * Envelopes the receiver read on this stream (whole messages plus snapshot chunks).
   */
  'envelopes': (number);
}
