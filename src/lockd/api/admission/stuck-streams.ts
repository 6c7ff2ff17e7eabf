// A stream ended for its bytes (outbound-budget.ts) has a reader that does not read, so its status
// cannot reach it: HTTP/2 sends trailers only after the DATA before them, and flow control holds
// that DATA (and grpc-js the few messages it was handed, server-stream.ts CALL_WRITES) until the
// client reads. grpc-js has no way to reset one server stream, so a stream whose status has not
// gone out within STUCK_GRACE_MS has its connection closed: everything the node held for it is
// freed, and the client sees the connection drop (gRPC UNAVAILABLE on its calls there).
import { loopActivity } from '../../observe/loop-activity.js';

/** How long an ended stream's reader has to take what precedes its status. */
export const STUCK_GRACE_MS = 1000;

/** The part of a grpc-js server call this needs. */
export interface EndedCall {
  getPeer(): string;
  once(event: 'finish' | 'cancelled' | 'close', listener: () => void): unknown;
}

/** After `call` was ended with a status: close its connection unless the status is out within `graceMs`. */
export function closeIfStuck(call: EndedCall, closeConnection: (peer: string) => boolean, graceMs = STUCK_GRACE_MS): void {
  let over = false;
  const done = () => {
    over = true;
    clearTimeout(timer);
  };
  call.once('finish', done); // its status went out (grpc-js sends it once every message is flushed)
  call.once('cancelled', done);
  call.once('close', done);
  const timer = setTimeout(() => {
    if (!over) loopActivity.run('stuck stream', () => closeConnection(call.getPeer()));
  }, graceMs);
  timer.unref();
}
