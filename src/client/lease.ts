// A lease handle that keeps itself alive. It renews at ttl/3 over a KeepAlive stream, and its
// `signal` aborts — with a LeaseLostError as the reason — at the moment the holder must stop
// trusting it: the local deadline of LeaseDeadline, or at once when the cluster says the lease is
// gone (ttl_ms = 0 or NOT_FOUND). The signal fires from a timer, which runs late after the event
// loop was blocked; `lost` (and Lock.held) also read the clock, so they are right at once.
// Keepalives stop on close(), revoke(), loss, or the abort of the caller's own signal, so the
// lease never outlives the code that wanted it.
//
// Nothing here throws into the caller's code: stream failures are retried (reported as
// 'retrying' events) until the deadline makes the lease lost. There is deliberately no 'error'
// event — an unheard 'error' would crash the process.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { status as Status, type ClientDuplexStream, type StatusObject } from '@grpc/grpc-js';
import type { LeaseKeepAliveRequest } from '../proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { LeaseDeadline } from './lease-deadline.js';
import { codeName, LeaseLostError, LockdError, toLockdError } from './errors.js';
import type { Router } from './router.js';
import { Backoff, deadlineAfter, monoNow } from './deadlines.js';

export interface LeaseEvents {
  /** A keepalive was acknowledged: the lease is trusted until `deadline` (performance.now() time). */
  renewed: [{ ttlMs: number; deadline: number }];
  /** The keepalive stream failed and is being reopened (the lease is still trusted until its deadline). */
  retrying: [LockdError];
  /** The lease is lost; the same error is `signal.reason`. Emitted once. */
  lost: [LeaseLostError];
}

export interface LeaseOptions {
  /** Tie the lease to the caller's liveness: when this aborts, keepalives stop and the lease is lost. */
  readonly signal?: AbortSignal;
  /** Keepalive period (ms); default ttl/3. */
  readonly keepAliveIntervalMs?: number;
  /** Send the first keepalive at once instead of after one period. */
  readonly renewNow?: boolean;
}

/** How long a keepalive may stay unanswered before its stream is taken as stuck and replaced. */
const STUCK_FLOOR_MS = 500;

type KeepAliveStream = ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output>;

export class Lease extends EventEmitter<LeaseEvents> {
  /** Aborts when the lease can no longer be trusted; the reason is a LeaseLostError. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly clock: LeaseDeadline;
  private readonly interval: NodeJS.Timeout;
  private readonly intervalMs: number;
  private readonly backoff = new Backoff(50, 1000);
  private stream: KeepAliveStream | undefined;
  private streamAddress = '';
  private opening = false;
  private reopenTimer: NodeJS.Timeout | undefined;
  private done = false;
  private readonly unlinkCaller: () => void;

  constructor(
    private readonly router: Router,
    /** The lease id. */
    readonly id: number,
    /** The TTL the cluster granted (ms). */
    readonly ttlMs: number,
    /** Monotonic time the lease is trusted until before any keepalive is acknowledged. */
    initialDeadline: number,
    opts: LeaseOptions = {},
  ) {
    super();
    if (!(Number.isSafeInteger(id) && id > 0)) throw new Error(`bad lease id ${id}`);
    if (!(ttlMs > 0)) throw new Error(`bad lease ttl ${ttlMs}`);
    this.signal = this.controller.signal;
    this.clock = new LeaseDeadline(initialDeadline, () => this.lose('expired', 'no keepalive was acknowledged in time'));
    this.intervalMs = Math.max(1, opts.keepAliveIntervalMs ?? Math.floor(ttlMs / 3));
    this.interval = setInterval(() => this.keepAlive(), this.intervalMs);
    const caller = opts.signal;
    const onCallerAbort = (): void => this.lose('aborted', `the caller's signal aborted: ${String(caller?.reason)}`);
    if (caller?.aborted) queueMicrotask(onCallerAbort);
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    this.unlinkCaller = () => caller?.removeEventListener('abort', onCallerAbort);
    if (opts.renewNow) this.keepAlive();
  }

  /** Monotonic time (performance.now()) until which the lease is trusted. */
  get deadline(): number {
    return this.clock.deadline;
  }

  /** Milliseconds the lease is still trusted for on this client's clock (0 once lost). */
  get remainingMs(): number {
    return this.lost ? 0 : Math.max(0, this.clock.deadline - monoNow());
  }

  /**
   * True once the lease can no longer be trusted. Unlike `signal.aborted`, this also reads the
   * clock: after the event loop was blocked past the deadline (the expiry timer not yet run), it
   * is already true — and the lease is made lost (signal aborted, 'lost' emitted) there and then.
   */
  get lost(): boolean {
    if (!this.done) this.clock.expireIfPassed();
    return this.signal.aborted;
  }

  /** Stop keepalives and end the lease on the cluster now (releasing its locks). Already gone: fine. */
  async revoke(timeoutMs = 10_000): Promise<void> {
    // The lease stops being trusted before the request leaves: the revoke may apply even if the call fails.
    this.lose('revoked');
    try {
      const req = { leaseId: this.id, requestId: randomUUID() }; // one id for every attempt
      await this.router.unary<unknown>('Lease.Revoke', (ep, o, cb) => ep.lease.Revoke(req, o, cb), { deadline: deadlineAfter(timeoutMs) });
    } catch (e) {
      const err = toLockdError(e);
      if (err instanceof LockdError && err.codeName === 'NOT_FOUND') return;
      throw err;
    }
  }

  /** Stop keepalives; the lease is no longer trusted here and expires on the cluster after its TTL. */
  close(): void {
    this.lose('closed');
  }

  private keepAlive(): void {
    if (this.done) return;
    const age = this.clock.oldestUnansweredAge();
    // Stuck once a keepalive is still unanswered at the next one (half an interval, to absorb
    // timer jitter): with renewals every ttl/3 that is 2/3 of the TTL after the last answer,
    // leaving a third for finding the new leader. A node cut off without a reset (a partition)
    // never ends the stream; waiting two intervals meant switching only at the TTL, too late.
    if (this.stream && age !== undefined && age > Math.max(this.intervalMs / 2, STUCK_FLOOR_MS)) {
      // No answer for too long: the node may be hung (paused, partitioned). Try another.
      this.router.demote(this.streamAddress);
      this.emitRetrying(
        new LockdError(
          'DEADLINE_EXCEEDED',
          Status.DEADLINE_EXCEEDED,
          `keepalive unanswered for ${Math.round(age)} ms on ${this.streamAddress}; switching endpoint`,
        ),
      );
      this.dropStream();
    }
    if (!this.stream) {
      void this.open();
      return;
    }
    this.send();
  }

  private send(): void {
    if (!this.stream || this.done) return;
    this.clock.sent(monoNow());
    this.stream.write({ leaseId: this.id });
  }

  /** Open a stream to the leader (or whichever endpoint the router picks) and renew at once. */
  private async open(): Promise<void> {
    if (this.opening || this.stream || this.done) return;
    this.opening = true;
    try {
      const ep = await this.router.pick(Math.min(this.clock.deadline, monoNow() + 1000));
      if (this.done) return;
      const stream = ep.lease.KeepAlive();
      this.stream = stream;
      this.streamAddress = ep.address;
      this.clock.forgetUnanswered();
      stream.on('data', (res: LeaseKeepAliveResponse__Output) => this.onAnswer(stream, res));
      stream.on('error', () => {}); // the outcome is handled once, on 'status'
      stream.on('status', (st: StatusObject) => this.onStreamEnd(stream, ep.address, st));
      this.send();
    } catch (e) {
      // The client was closed under us (connections gone): nothing left to keep alive.
      this.lose('closed', (e as Error).message);
    } finally {
      this.opening = false;
    }
  }

  private onAnswer(stream: KeepAliveStream, res: LeaseKeepAliveResponse__Output): void {
    if (stream !== this.stream || this.done) return;
    if (res.leaseId !== this.id) return; // not ours (a shared stream would carry others)
    if (res.ttlMs <= 0) return this.lose('gone', 'the cluster reports the lease gone (ttl 0)');
    if (this.clock.acknowledged(res.ttlMs)) {
      this.backoff.reset();
      this.emit('renewed', { ttlMs: res.ttlMs, deadline: this.clock.deadline });
    } else if (this.clock.passed()) {
      this.lose('expired', 'a keepalive was acknowledged only after the local deadline');
    }
  }

  private onStreamEnd(stream: KeepAliveStream, address: string, st: StatusObject): void {
    if (stream !== this.stream || this.done) return;
    this.stream = undefined;
    this.clock.forgetUnanswered();
    if (st.code === Status.NOT_FOUND) return this.lose('gone', st.details);
    const { redirected } = this.router.onFailure(address, st, false);
    if (st.code !== Status.UNAVAILABLE && !redirected) this.router.demote(address);
    this.emitRetrying(new LockdError(codeName(st.code), st.code, `keepalive stream on ${address} ended: ${st.details || 'closed by the server'}`));
    const pause = redirected ? 0 : this.backoff.next();
    this.reopenTimer = setTimeout(() => {
      this.reopenTimer = undefined;
      void this.open();
    }, pause);
  }

  private emitRetrying(err: LockdError): void {
    this.emit('retrying', err);
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = undefined;
    this.clock.forgetUnanswered();
    s?.cancel();
  }

  private lose(why: LeaseLostError['why'], detail?: string): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.interval);
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    this.clock.stop();
    this.unlinkCaller();
    this.dropStream();
    const reason = new LeaseLostError(this.id, why, detail);
    this.controller.abort(reason);
    this.emit('lost', reason);
  }
}
