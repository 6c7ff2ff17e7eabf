// Keeps one lease alive over a Lease.KeepAlive stream, one renewal in flight at a time, and records
// each renewal as an operation. The lease is trusted until sendTime(last acknowledged renewal or the
// grant) + TTL, on the history clock — what lockd promises the cluster will not expire it before.
// A stream that fails or goes quiet is reopened on the next endpoint; ttl_ms = 0 (an answer or an
// unsolicited notice) means the lease is gone.
import type * as grpc from '@grpc/grpc-js';
import type { Connections } from '../../src/client/connections.js';
import type { LeaseKeepAliveRequest } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import type { LeaseGrantRequest } from '../../src/proto/gen/lockd/v1/LeaseGrantRequest.js';
import type { LeaseGrantResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseGrantResponse.js';
import type { HistoryWriter } from './history.js';
import { failureRecord, retryCall, unaryCall, type RetryOptions } from './lockd-calls.js';

/** What a client process grants its leases with (workload-client.ts, recipe-client.ts). */
export interface GrantContext {
  readonly hist: HistoryWriter;
  readonly conns: Connections;
  readonly endpoints: readonly string[];
  readonly ttlMs: number;
  readonly now: () => number;
}

/**
 * A recorded Lease.Grant, every attempt with one request id, retried across nodes as `retry` says; on
 * success a LeaseKeeper keeping it alive. `endpoint`: where the last attempt went (the lease's, on
 * success), where the client's next call starts.
 */
export async function grantKeptLease(
  c: GrantContext,
  requestId: string,
  retry: RetryOptions<LeaseGrantResponse__Output>,
): Promise<{ lease: LeaseKeeper | undefined; endpoint: number }> {
  const { id, time } = c.hist.invoke('grant', { ttlMs: c.ttlMs });
  const req: LeaseGrantRequest = { ttlMs: c.ttlMs, requestId };
  const r = await retryCall(
    (i, t) => unaryCall<LeaseGrantRequest, LeaseGrantResponse__Output>((q, o, cb) => c.conns.get(c.endpoints[i]).lease.Grant(q, o, cb), req, t),
    retry,
  );
  if (r.last.kind !== 'ok') {
    c.hist.complete(id, r.uncertain || r.last.kind === 'unknown' ? 'unknown' : 'fail', r.last.kind === 'unknown' ? undefined : failureRecord(r.last));
    return { lease: undefined, endpoint: r.endpoint };
  }
  c.hist.complete(id, 'ok', { leaseId: r.last.value.leaseId });
  return { lease: new LeaseKeeper(r.last.value.leaseId, c.ttlMs, time, c.hist, c.conns, c.endpoints, r.endpoint, c.now), endpoint: r.endpoint };
}

export class LeaseKeeper {
  trustedUntil: number;
  lost = false;
  private stream: grpc.ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output> | undefined;
  private pending: { id: string; invoke: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private streamEndpoint: number;

  constructor(
    readonly leaseId: number,
    readonly ttlMs: number,
    grantInvoke: number,
    private readonly hist: HistoryWriter,
    private readonly conns: Connections,
    private readonly endpoints: readonly string[],
    /** Where the lease was granted: a sticky client sends its Acquire/Release there. */
    readonly endpoint: number,
    private readonly now: () => number,
  ) {
    this.trustedUntil = grantInvoke + ttlMs;
    this.streamEndpoint = endpoint;
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.floor(ttlMs / 5)));
    this.tick();
  }

  get trusted(): boolean {
    return !this.lost && this.now() < this.trustedUntil;
  }

  private tick(): void {
    if (this.stopped || this.lost) return;
    // No answer within a third of the TTL: give up on this stream (the renewal's outcome is unknown).
    if (this.pending && this.now() - this.pending.invoke > this.ttlMs / 3) this.resetStream();
    if (this.pending) return;
    if (!this.stream) this.open();
    const { id, time } = this.hist.invoke('keepalive', { leaseId: this.leaseId, ttlMs: this.ttlMs });
    this.pending = { id, invoke: time };
    this.stream!.write({ leaseId: this.leaseId });
  }

  private open(): void {
    const address = this.endpoints[this.streamEndpoint % this.endpoints.length];
    const s = this.conns.get(address).lease.KeepAlive();
    this.stream = s;
    s.on('data', (res: LeaseKeepAliveResponse__Output) => {
      if (s !== this.stream || res.leaseId !== this.leaseId) return;
      this.answer(res.ttlMs);
    });
    s.on('error', () => s === this.stream && this.resetStream());
    s.on('end', () => s === this.stream && this.resetStream());
  }

  private answer(ttlMs: number): void {
    const p = this.pending;
    this.pending = undefined;
    if (ttlMs > 0) {
      if (!p) return; // an answer to a renewal already given up on
      this.hist.complete(p.id, 'ok', { ttlMs });
      this.trustedUntil = Math.max(this.trustedUntil, p.invoke + this.ttlMs);
      return;
    }
    if (p) this.hist.complete(p.id, 'ok', { ttlMs: 0 });
    else {
      // An unsolicited notice: the lease was gone before it arrived.
      const { id } = this.hist.invoke('keepalive', { leaseId: this.leaseId, ttlMs: this.ttlMs });
      this.hist.complete(id, 'ok', { ttlMs: 0 });
    }
    this.lost = true;
    this.stop();
  }

  /** Drop the stream; a pending renewal's outcome is unknown; the next tick opens one on another endpoint. */
  private resetStream(): void {
    if (this.pending) this.hist.complete(this.pending.id, 'unknown');
    this.pending = undefined;
    const s = this.stream;
    this.stream = undefined;
    this.streamEndpoint++;
    s?.cancel();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.resetStream();
  }
}
