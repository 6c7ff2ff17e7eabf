// One message of a server stream written under a bound on the client's progress. gRPC flow control
// stops a stream's writes when its client stops reading, and a stream only ends by the client
// (cancel), its deadline or shutdown: a client that never reads, or one whose deadline is far off,
// would otherwise hold the stream, its buffers and whatever the server keeps for it (a backup slot
// and a copy of the state) for as long as it likes. Here the server gives up on its own.

/** The part of a grpc-js ServerWritableStream this needs (a fake in tests). */
export interface WritableCall {
  readonly cancelled: boolean;
  write(message: unknown): boolean;
  on(event: 'drain' | 'cancelled', listener: () => void): unknown;
  off(event: 'drain' | 'cancelled', listener: () => void): unknown;
}

/** 'sent': written (or buffered within the window); 'gone': cancelled or shut down; 'stalled': no room made within `stallMs`. */
export type WriteOutcome = 'sent' | 'gone' | 'stalled';

/**
 * Write `message`; when the stream is full, wait for 'drain' at most `stallMs` (the client read
 * nothing in that time). `stopped()` says the server is shutting down.
 */
export function writeBounded(call: WritableCall, message: unknown, stallMs: number, stopped: () => boolean): Promise<WriteOutcome> {
  if (!(stallMs > 0)) throw new RangeError(`writeBounded: stallMs must be > 0, got ${stallMs}`);
  if (call.cancelled || stopped()) return Promise.resolve('gone');
  if (call.write(message)) return Promise.resolve('sent');
  return new Promise((resolve) => {
    const done = (o: WriteOutcome) => {
      clearTimeout(timer);
      call.off('drain', onDrain);
      call.off('cancelled', onCancel);
      resolve(o !== 'gone' && stopped() ? 'gone' : o);
    };
    const onDrain = () => done('sent');
    const onCancel = () => done('gone');
    const timer = setTimeout(() => done('stalled'), stallMs);
    call.on('drain', onDrain);
    call.on('cancelled', onCancel);
  });
}
