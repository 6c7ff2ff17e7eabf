// Observe a lock: an async iterator of its events (ACQUIRED, RELEASED, EXPIRED, QUEUED, ...) from
// the moment the stream opens, in log order. A broken stream is reopened (following a leader hint
// at once, else after a backoff); because events may have been missed meanwhile, the iterator
// then yields a client-made { type: 'RESYNC' } event — re-read the lock (inspect) if it matters.
// Aborting opts.signal, or leaving the loop, ends the iteration quietly.
import type { LockEvent__Output } from '../proto/gen/lockd/v1/LockEvent.js';
import { followStream } from './followed-stream.js';
import type { Router } from './router.js';

/** A lock event as the server sends it, or the client's RESYNC marker (all numbers 0). */
export interface LockEvent {
  readonly name: string;
  /** ACQUIRED | RELEASED | EXPIRED | QUEUED | WAITER_REMOVED | WAIT_CANCELLED | PROCLAIMED | DOWNGRADED
   *  (the grant became shared) | PERMITS_CHANGED (lease and token 0: inspect for the permits) | RESYNC (client-made). */
  readonly type: string;
  readonly fencingToken: number;
  readonly leaseId: number;
  /** Log index of the entry that made the change. */
  readonly index: number;
}

export interface ObserveOptions {
  readonly signal?: AbortSignal;
  /** Called each time a stream's subscription is active (the server sends the response headers
   *  then): first open 0, then reconnects 1, 2, ... */
  readonly onOpen?: (opened: number) => void;
}

export function observeLock(router: Router, name: string, opts: ObserveOptions = {}): AsyncGenerator<LockEvent, void, undefined> {
  return followStream<LockEvent__Output, LockEvent>(router, (ep) => ep.lock.Observe({ name }), (ev) => ev, {
    ...opts,
    onReopen: () => ({ name, type: 'RESYNC', fencingToken: 0, leaseId: 0, index: 0 }),
  });
}
