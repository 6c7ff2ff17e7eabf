// Observe a lock: an async iterator of its events (ACQUIRED, RELEASED, EXPIRED, QUEUED, ...) from
// the moment the stream opens, in log order. A broken stream is reopened (following a leader hint
// at once, else after a backoff); because events may have been missed meanwhile, the iterator
// then yields a client-made { type: 'RESYNC' } event — re-read the lock (inspect) if it matters.
// Aborting opts.signal, or leaving the loop, ends the iteration quietly.
import { status as Status, type StatusObject } from '@grpc/grpc-js';
import type { LockEvent__Output } from '../proto/gen/lockd/v1/LockEvent.js';
import { AsyncQueue } from './async-queue.js';
import { codeName, LockdError } from './errors.js';
import type { Router } from './router.js';
import { Backoff, monoNow, sleep } from './timing.js';

/** A lock event as the server sends it, or the client's RESYNC marker (all numbers 0). */
export interface LockEvent {
  readonly name: string;
  /** ACQUIRED | RELEASED | EXPIRED | QUEUED | WAITER_REMOVED | WAIT_CANCELLED | ... | RESYNC (client-made). */
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

type Item = { event: LockEvent } | { end: StatusObject; address: string };

export async function* observeLock(router: Router, name: string, opts: ObserveOptions = {}): AsyncGenerator<LockEvent, void, undefined> {
  const backoff = new Backoff(50, 1000);
  const { signal } = opts;
  let opened = 0;
  while (!signal?.aborted && !router.closed) {
    const ep = await router.pick(monoNow() + 1000);
    const queue = new AsyncQueue<Item>();
    const stream = ep.lock.Observe({ name });
    stream.on('data', (ev: LockEvent__Output) => queue.push({ event: ev }));
    stream.on('error', () => {}); // handled once, on 'status'
    stream.on('status', (st: StatusObject) => queue.push({ end: st, address: ep.address }));
    const onAbort = (): void => stream.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const n = opened;
    stream.once('metadata', () => opts.onOpen?.(n));
    let end: { st: StatusObject; address: string } | undefined;
    try {
      if (opened++ > 0) yield { name, type: 'RESYNC', fencingToken: 0, leaseId: 0, index: 0 };
      for (;;) {
        const { value } = await queue.next();
        if (!value) break;
        if ('event' in value) {
          backoff.reset();
          yield value.event;
        } else {
          end = { st: value.end, address: value.address };
          break;
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stream.cancel();
    }
    if (signal?.aborted || router.closed || !end) return;
    const { st, address } = end;
    const { retry, redirected } = router.onFailure(address, st, false);
    if (!retry && st.code !== Status.OK) throw new LockdError(codeName(st.code), st.code, st.details, undefined);
    if (!redirected) {
      try {
        await sleep(backoff.next(), signal);
      } catch {
        return; // aborted while waiting to reconnect
      }
    }
  }
}
