// Observe a lock: an async iterator of its events (ACQUIRED, RELEASED, EXPIRED, QUEUED, ...) from
// the moment the stream opens, in log order. Two things say "events may be missing, here is the
// truth": a RESYNC event from the server, carrying the lock's whole state (`state`), when the node
// serving the stream caught up by snapshot; and a RESYNC the client makes itself (no `state`) when
// a broken stream is reopened (following a leader hint at once, else after a backoff) — re-read
// the lock (inspect) then if it matters. Types this client does not know are passed through as
// they come. Aborting opts.signal, or leaving the loop, ends the iteration quietly.
import type { LockEvent__Output } from '../proto/gen/lockd/v1/LockEvent.js';
import { followStream } from './followed-stream.js';
import { toLockInfo } from './lock-info.js';
import type { Router } from './router.js';
import type { LockInfo } from './result-types.js';

/** A lock event as the server sends it, or the client's RESYNC marker (all numbers 0). */
export interface LockEvent {
  readonly name: string;
  /** ACQUIRED | RELEASED | EXPIRED | QUEUED | WAITER_REMOVED | WAIT_CANCELLED | PROCLAIMED | DOWNGRADED
   *  (the grant became shared) | PERMITS_CHANGED (lease and token 0: inspect for the permits) | RESYNC (a reconnect, client-made; or a snapshot install, server-made with `state`). */
  readonly type: string;
  readonly fencingToken: number;
  readonly leaseId: number;
  /** Log index of the entry that made the change (a server RESYNC: the snapshot's index). */
  readonly index: number;
  /** A server RESYNC: the lock's state at `index`, to take as the truth. Absent on the client's own RESYNC. */
  readonly state?: LockInfo;
}

export interface ObserveOptions {
  readonly signal?: AbortSignal;
  /** Called each time a stream's subscription is active (the server sends the response headers
   *  then): first open 0, then reconnects 1, 2, ... */
  readonly onOpen?: (opened: number) => void;
}

export function toLockEvent(name: string, ev: LockEvent__Output): LockEvent {
  const base = { name: ev.name, type: ev.type, fencingToken: ev.fencingToken, leaseId: ev.leaseId, index: ev.index };
  return ev.state ? { ...base, state: toLockInfo(name, ev.state) } : base;
}

export function observeLock(router: Router, name: string, opts: ObserveOptions = {}): AsyncGenerator<LockEvent, void, undefined> {
  return followStream<LockEvent__Output, LockEvent>(
    router,
    (ep) => ep.lock.Observe({ name }),
    (ev) => toLockEvent(name, ev),
    {
      ...opts,
      onReopen: () => ({ name, type: 'RESYNC', fencingToken: 0, leaseId: 0, index: 0 }),
    },
  );
}
