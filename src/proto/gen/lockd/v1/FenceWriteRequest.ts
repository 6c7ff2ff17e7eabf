// Original file: proto/lockd.proto

import type { Long } from '@grpc/proto-loader';

export interface FenceWriteRequest {
  /**
   * The key to write.
   */
  'key'?: (string);
  /**
   * The value to store.
   */
  'value'?: (Buffer | Uint8Array | string);
  /**
   * The writer's fencing token.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * Makes a retried or late attempt apply once (see "Request ids" at the top): without it, an
   * attempt that lands after a later write overwrites that write. The same id with another key,
   * token, lock or value is INVALID_ARGUMENT.
   */
  'requestId'?: (string);
  /**
   * The lock whose grant fencing_token must be (Chubby's sequencer check). Set: the write is
   * accepted only while fencing_token is the current token of that lock's live holder, so a holder
   * that lost the lock (its lease expired while it was paused) is refused even before the next holder
   * has written anything: FAILED_PRECONDITION naming the lock, the token and the holder's current
   * token (or "not held"). The per-key rule still applies while the key or its tombstone is
   * remembered (see Fence.Delete for the one exception). Empty: only the per-key rule.
   */
  'lock'?: (string);
}

export interface FenceWriteRequest__Output {
  /**
   * The key to write.
   */
  'key': (string);
  /**
   * The value to store.
   */
  'value': (Buffer);
  /**
   * The writer's fencing token.
   */
  'fencingToken': (number);
  /**
   * Makes a retried or late attempt apply once (see "Request ids" at the top): without it, an
   * attempt that lands after a later write overwrites that write. The same id with another key,
   * token, lock or value is INVALID_ARGUMENT.
   */
  'requestId': (string);
  /**
   * The lock whose grant fencing_token must be (Chubby's sequencer check). Set: the write is
   * accepted only while fencing_token is the current token of that lock's live holder, so a holder
   * that lost the lock (its lease expired while it was paused) is refused even before the next holder
   * has written anything: FAILED_PRECONDITION naming the lock, the token and the holder's current
   * token (or "not held"). The per-key rule still applies while the key or its tombstone is
   * remembered (see Fence.Delete for the one exception). Empty: only the per-key rule.
   */
  'lock': (string);
}
