// A server stream the client keeps following across failures: each message is mapped and yielded;
// when the stream ends it is reopened (following a leader hint at once, else after a backoff),
// unless the failure is final (then the iteration throws LockdError) or `signal` aborted (then it
// ends quietly). Lock.Observe and Election.Observe both ride on it.
import { status as Status, type ClientReadableStream, type StatusObject } from '@grpc/grpc-js';
import { AsyncQueue } from './async-queue.js';
import type { Endpoint } from './connections.js';
import { codeName, LockdError } from './errors.js';
import type { Router } from './router.js';
import { Backoff, monoNow, sleep } from './deadlines.js';

export interface FollowOptions<Out> {
  readonly signal?: AbortSignal;
  /** Called each time a stream's subscription is active (the server sends its headers then): 0 for the first open, then 1, 2, ... */
  readonly onOpen?: (opened: number) => void;
  /** What to yield first on every reopen (messages may have been missed meanwhile); undefined: nothing. */
  readonly onReopen?: () => Out | undefined;
}

type Item<Raw> = { message: Raw } | { end: StatusObject; address: string };

export async function* followStream<Raw, Out>(
  router: Router,
  open: (ep: Endpoint) => ClientReadableStream<Raw>,
  map: (raw: Raw) => Out,
  opts: FollowOptions<Out> = {},
): AsyncGenerator<Out, void, undefined> {
  const backoff = new Backoff(50, 1000);
  const { signal } = opts;
  let opened = 0;
  while (!signal?.aborted && !router.closed) {
    const ep = await router.pick(monoNow() + 1000);
    const queue = new AsyncQueue<Item<Raw>>();
    const stream = open(ep);
    stream.on('data', (m: Raw) => queue.push({ message: m }));
    stream.on('error', () => {}); // handled once, on 'status'
    stream.on('status', (st: StatusObject) => queue.push({ end: st, address: ep.address }));
    const onAbort = (): void => stream.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const n = opened;
    stream.once('metadata', () => opts.onOpen?.(n));
    let end: { st: StatusObject; address: string } | undefined;
    try {
      if (opened++ > 0) {
        const marker = opts.onReopen?.();
        if (marker !== undefined) yield marker;
      }
      for (;;) {
        const { value } = await queue.next();
        if (!value) break;
        if ('message' in value) {
          backoff.reset();
          yield map(value.message);
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
