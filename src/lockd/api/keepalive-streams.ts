// Lease.KeepAlive, the bidi stream that keeps leases alive.
// On the leader: each request joins the next Tick (LeaseClock) and is answered once that Tick is
// applied; every lease renewed on a stream is watched, and when it expires or is revoked later the
// stream is told (ttl_ms = 0) — the holder learns it lost its locks (LESSONS 1). When this node
// stops leading, its streams end with UNAVAILABLE (+ lockd-leader): the client reconnects.
// On a follower: the stream is proxied to the leader, and ends when the leader's stream ends.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd.js';
import type { NodeContext } from '../node/node-context.js';
import type { LeaseKeepAliveRequest__Output } from '../../proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output } from '../../proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { validateLeaseId } from '../state-machine/index.js';
import { ApiError, asApiError, fromProblem } from './api-error.js';
import type { AppliedEvents } from './applied-events.js';
import type { Forwarder } from './forwarder.js';
import type { LeaderRouter, Route } from './leader-router.js';
import type { LeaseClock } from '../lease/lease-clock.js';

type Call = grpc.ServerDuplexStream<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse>;

interface LocalStream {
  readonly call: Call;
  /** Leases renewed on this stream and still live: told when they end. */
  readonly leases: Set<number>;
  /** Requests not yet answered. */
  pending: number;
  halfClosed: boolean;
  open: boolean;
}

const METHOD = lockdProto.lockd.v1.Lease.service.KeepAlive;

export class KeepAliveStreams {
  private readonly local = new Set<LocalStream>();
  private readonly byLease = new Map<number, Set<LocalStream>>();
  private readonly proxies = new Set<(err: ApiError | undefined | null) => void>();
  private readonly logger: Logger;
  private closed = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly clock: LeaseClock,
    events: AppliedEvents,
    private readonly router: LeaderRouter,
    private readonly forwarder: Forwarder,
  ) {
    this.logger = ctx.logger;
    events.onAny((ev) => {
      if (ev.type === 'LEASE_EXPIRED' || ev.type === 'LEASE_REVOKED') this.leaseGone(ev.leaseId);
    });
    ctx.driver.onRoleChange((role, leader) => {
      if (role !== 'leader' && this.local.size > 0) this.endAll(this.router.unavailable(`${this.router.selfId} stopped leading; reconnect and resend keepalives`, leader));
    });
  }

  readonly handler: grpc.handleBidiStreamingCall<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse> = (call) => {
    void this.open(call);
  };

  /** Streams served here / proxied from here (status, tests). */
  get counts(): { local: number; proxied: number } {
    return { local: this.local.size, proxied: this.proxies.size };
  }

  private async open(call: Call): Promise<void> {
    let route: Route;
    try {
      if (this.closed) throw this.router.unavailable(`${this.router.selfId} is shutting down`);
      route = await this.router.route(call, Infinity);
    } catch (e) {
      call.emit('error', asApiError(e).toStatus());
      return;
    }
    if (call.cancelled) return;
    if (route.kind === 'local') this.serve(call);
    else this.proxy(call, route);
  }

  private serve(call: Call): void {
    const s: LocalStream = { call, leases: new Set(), pending: 0, halfClosed: false, open: true };
    this.local.add(s);
    call.on('data', (req: LeaseKeepAliveRequest__Output) => this.request(s, req.leaseId));
    call.on('end', () => {
      s.halfClosed = true;
      this.maybeFinish(s);
    });
    call.on('cancelled', () => this.drop(s));
    call.on('error', () => this.drop(s));
  }

  private request(s: LocalStream, leaseId: number): void {
    if (!s.open) return;
    const problem = validateLeaseId(leaseId);
    if (problem) return this.fail(s, fromProblem(problem));
    s.pending++;
    const queued = this.clock.renew(leaseId, (ttlMs) => {
      s.pending--;
      if (!s.open) return;
      if (ttlMs > 0) this.watch(s, leaseId);
      else this.unwatch(s, leaseId);
      s.call.write({ leaseId, ttlMs });
      this.logger.trace({ event: 'keepalive', leaseId, ttlMs }, 'keepalive answered');
      this.maybeFinish(s);
    });
    if (!queued) this.fail(s, this.router.unavailable(`${this.router.selfId} is not the leader; reconnect`));
  }

  private watch(s: LocalStream, leaseId: number): void {
    s.leases.add(leaseId);
    let set = this.byLease.get(leaseId);
    if (!set) this.byLease.set(leaseId, (set = new Set()));
    set.add(s);
  }

  private unwatch(s: LocalStream, leaseId: number): void {
    s.leases.delete(leaseId);
    const set = this.byLease.get(leaseId);
    set?.delete(s);
    if (set?.size === 0) this.byLease.delete(leaseId);
  }

  /** A lease expired or was revoked: every stream that kept it alive hears ttl_ms = 0. */
  private leaseGone(leaseId: number): void {
    const set = this.byLease.get(leaseId);
    if (!set) return;
    this.byLease.delete(leaseId);
    for (const s of set) {
      s.leases.delete(leaseId);
      if (!s.open) continue;
      s.call.write({ leaseId, ttlMs: 0 });
      this.logger.debug({ event: 'lease loss sent', leaseId }, 'told a keepalive stream its lease is gone');
    }
  }

  private maybeFinish(s: LocalStream): void {
    if (!s.open || !s.halfClosed || s.pending > 0) return;
    this.drop(s);
    s.call.end();
  }

  private fail(s: LocalStream, err: ApiError): void {
    if (!s.open) return;
    this.drop(s);
    s.call.emit('error', err.toStatus());
  }

  private drop(s: LocalStream): void {
    s.open = false;
    this.local.delete(s);
    for (const id of [...s.leases]) this.unwatch(s, id);
  }

  private endAll(err: ApiError): void {
    for (const s of [...this.local]) this.fail(s, err);
  }

  private proxy(call: Call, to: Extract<Route, { kind: 'forward' }>): void {
    const up = this.forwarder.duplex<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse__Output>(to, METHOD);
    let done = false;
    /** Ends both sides once: err undefined = the leader ended the stream OK, null = the client went away. */
    const finish = (err: ApiError | undefined | null) => {
      if (done) return;
      done = true;
      this.proxies.delete(finish);
      if (err === null) {
        up.cancel();
        return;
      }
      if (err) {
        up.cancel();
        call.emit('error', err.toStatus());
      } else call.end();
    };
    this.proxies.add(finish);
    call.on('data', (req: LeaseKeepAliveRequest__Output) => up.write(req));
    call.on('end', () => up.end());
    call.on('cancelled', () => finish(null));
    up.on('data', (res: LeaseKeepAliveResponse__Output) => {
      if (!done) call.write(res);
    });
    up.on('error', (err: grpc.ServiceError) => finish(this.forwarder.failure(to, METHOD.path, err)));
    up.on('status', (st: grpc.StatusObject) => {
      if (st.code === grpc.status.OK) finish(undefined); // a failure arrives as 'error'
    });
  }

  close(): void {
    this.closed = true;
    const err = this.router.unavailable(`${this.router.selfId} is shutting down`);
    this.endAll(err);
    for (const finish of [...this.proxies]) finish(err);
  }
}
