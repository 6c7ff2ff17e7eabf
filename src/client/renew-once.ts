// One keepalive round trip on a stream of its own, retried across endpoints like a unary call.
// attachLease starts from it: an acknowledged renewal sent at S with ttl T proves the lease alive
// (ids are never reused, an ended lease never returns) and trusted until S + T — no guess from a
// remaining time that carries the cluster's margin.
import { status as Status, type StatusObject } from '@grpc/grpc-js';
import type { LeaseKeepAliveResponse__Output } from '../proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { clientError, codeName, LockdError } from './errors.js';
import type { Router } from './router.js';
import { abortError, Backoff, monoNow, sleep } from './deadlines.js';

export async function renewOnce(router: Router, leaseId: number, deadline: number, signal?: AbortSignal): Promise<{ sentAt: number; ttlMs: number }> {
  const backoff = new Backoff(50, 1000);
  for (;;) {
    if (signal?.aborted) throw abortError(signal);
    if (monoNow() >= deadline) throw clientError(Status.DEADLINE_EXCEEDED, `no keepalive answer for lease ${leaseId} in time`);
    const ep = await router.pick(deadline);
    const sentAt = monoNow();
    const outcome = await new Promise<{ ttlMs: number } | { st: StatusObject }>((resolve) => {
      const stream = ep.lease.KeepAlive();
      const finish = (r: { ttlMs: number } | { st: StatusObject }): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        stream.cancel();
        resolve(r);
      };
      const onAbort = (): void => finish({ st: { code: Status.CANCELLED, details: 'aborted', metadata: undefined as never } });
      const timer = setTimeout(
        () => finish({ st: { code: Status.DEADLINE_EXCEEDED, details: 'no answer', metadata: undefined as never } }),
        Math.max(0, Math.min(deadline - monoNow(), 2000)),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (res: LeaseKeepAliveResponse__Output) => {
        if (res.leaseId === leaseId) finish({ ttlMs: res.ttlMs });
      });
      stream.on('error', () => {});
      stream.on('status', (st: StatusObject) => finish({ st }));
      stream.write({ leaseId });
    });
    if ('ttlMs' in outcome) {
      if (outcome.ttlMs <= 0) throw new LockdError('NOT_FOUND', Status.NOT_FOUND, `lease ${leaseId} is gone (expired, revoked or never granted)`);
      return { sentAt, ttlMs: outcome.ttlMs };
    }
    const { st } = outcome;
    if (signal?.aborted) throw abortError(signal);
    const { retry, redirected } = router.onFailure(ep.address, st, st.code === Status.DEADLINE_EXCEEDED);
    if (!retry) throw new LockdError(codeName(st.code), st.code, st.details);
    if (!redirected) await sleep(backoff.next(), signal);
  }
}
