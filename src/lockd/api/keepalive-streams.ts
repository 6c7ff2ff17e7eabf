// Lease.KeepAlive, the bidi stream that keeps leases alive.
// On the leader: each request joins the next Tick (LeaseClock proposes one at once, coalesced) and is
// answered once that Tick is applied; every lease renewed on a stream is watched, and when it
// expires or is revoked later the stream is told (ttl_ms = 0) — the holder learns it lost its locks
// (docs/lessons.md 1); also when a snapshot install shows a watched lease gone (its end came with no
// event here). When this node stops leading, its streams end with UNAVAILABLE (+ lockd-leader):
// the client reconnects.
// On a follower: the stream is proxied to the leader, and ends when the leader's stream ends.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd-package.js';
import type { NodeContext } from '../node/node-context.js';
import type { LeaseKeepAliveRequest__Output } from '../../proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output } from '../../proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { validateLeaseId } from '../state-machine/index.js';
import { ApiError, asApiError, fromProblem } from './api-error.js';
import type { AppliedEvents } from './applied-events.js';
import type { ForwardPort } from './forwarder.js';
import type { Proposer } from './proposer.js';
import type { LeaderRouter, Route } from './leader-router.js';
import type { LeaseRenewals } from '../node/lease-clock.js';
import { relay, ServerStream, ServerStreams } from './server-stream.js';
import type { OutboundBudget } from './admission/outbound-budget.js';
import { principalOf } from '../security/principal.js';
import { denied, requireOwner } from './access.js';

type Call = grpc.ServerDuplexStream<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse>;
type Stream = ServerStream<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse>;

const METHOD = lockdProto.lockd.v1.Lease.service.KeepAlive;

/**
 * Keepalives of one stream awaiting their Tick before the stream is read no further (until some are
 * answered): a client cannot queue renewals without bound between two Ticks.
 */
export const MAX_PENDING_KEEPALIVES = 1024;

export class KeepAliveStreams {
  private readonly local: ServerStreams<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse>;
  /** Leases renewed on each local stream and still live: told when they end. */
  private readonly leasesOf = new Map<Stream, Set<number>>();
  private readonly byLease = new Map<number, Set<Stream>>();
  private readonly proxies = new Set<(err: ApiError | undefined | null) => void>();
  private readonly logger: Logger;
  private closed = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly clock: LeaseRenewals,
    events: AppliedEvents,
    private readonly router: LeaderRouter,
    private readonly forwarder: ForwardPort,
    private readonly proposer: Proposer,
    outbound?: OutboundBudget,
  ) {
    // Not charged to the inbound budget: a renewal is a few bytes, MAX_PENDING_KEEPALIVES bounds a
    // stream's, and other clients' bytes must never end the streams that keep leases alive.
    this.local = new ServerStreams(outbound);
    this.logger = ctx.logger;
    events.onAny((ev) => {
      if (ev.type === 'LEASE_EXPIRED' || ev.type === 'LEASE_REVOKED') this.leaseGone(ev.leaseId);
    });
    events.onReplaced(() => {
      for (const id of [...this.byLease.keys()]) if (!ctx.stateMachine.hasLease(id)) this.leaseGone(id);
    });
    ctx.driver.onRoleChange((role, leader) => {
      if (role !== 'leader' && this.local.size > 0)
        this.local.endAll(this.router.unavailable(`${this.router.selfId} stopped leading; reconnect and resend keepalives`, leader));
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
    const principal = principalOf(call.metadata);
    let route: Route;
    try {
      if (this.closed) throw this.router.unavailable(`${this.router.selfId} is shutting down`);
      route = await this.router.route(call, Infinity);
    } catch (e) {
      call.emit('error', asApiError(e).toStatus());
      return;
    }
    if (call.cancelled) return;
    if (route.kind === 'local') this.serve(call, principal);
    else this.proxy(call, route, principal);
  }

  private serve(call: Call, principal: string): void {
    const leases = new Set<number>();
    const s = this.local.serve(
      call,
      {
        onRequest: (req) => this.request(s, req.leaseId, principal),
        onClose: () => {
          for (const id of [...leases]) this.unwatch(s, id);
          this.leasesOf.delete(s);
        },
      },
      { maxPending: MAX_PENDING_KEEPALIVES },
    );
    this.leasesOf.set(s, leases);
  }

  /**
   * A Tick renews leases of many principals, so ownership (and `lock` somewhere) is checked here,
   * before the renewal joins one. A lease this node has not applied has no owner to check against
   * (a leader just elected, not yet caught up; an id guessed before its Grant is applied): a read
   * barrier first, then the check (only for ids beyond the applied log: see below). Still unknown
   * after the barrier, the lease does not exist as of
   * a linearizable read: it is answered gone (ttl_ms 0) without joining a Tick, so no later Grant of
   * that id is renewed by someone else's request. The barrier is bounded (UNAVAILABLE past it) and
   * holds only this request: the stream counts it pending, other streams go on.
   */
  private request(s: Stream, leaseId: number, principal: string): void {
    const problem = validateLeaseId(leaseId);
    if (problem) return s.fail(fromProblem(problem));
    if (this.ctx.stateMachine.leaseOwner(leaseId) !== undefined) return this.renew(s, leaseId, principal);
    // A lease id is its Grant's index: at or below the applied index, an absent lease has ended (or
    // never was) and no later entry can grant it, so that is the answer now, with or without a quorum.
    if (leaseId <= this.ctx.stateMachine.appliedIndex) return this.gone(s, leaseId);
    const settle = s.begin();
    this.proposer
      .read(Infinity, () => this.ctx.stateMachine.leaseOwner(leaseId))
      .then(
        (owner) => {
          if (!s.open) return settle();
          if (owner !== undefined) this.renew(s, leaseId, principal);
          else this.gone(s, leaseId);
          settle();
        },
        (e: unknown) => {
          s.fail(asApiError(e));
          settle();
        },
      );
  }

  /** The lease does not exist as of what this node applied: answered gone, never renewed. */
  private gone(s: Stream, leaseId: number): void {
    this.unwatch(s, leaseId);
    s.send({ leaseId, ttlMs: 0 });
  }

  /** The lease is applied here: check its owner, then join the next Tick. */
  private renew(s: Stream, leaseId: number, principal: string): void {
    try {
      requireOwner(this.ctx.access, principal, leaseId, this.ctx.stateMachine.leaseOwner(leaseId), 'keep alive');
      // Checked here, not at apply (a Tick is every principal's): a revoke racing this request lets one more renewal through.
      const why = this.ctx.access.leaseDenial(principal, 'keep leases alive');
      if (why) throw denied(why);
    } catch (e) {
      return s.fail(asApiError(e));
    }
    const settle = s.begin();
    const queued = this.clock.renew(leaseId, (ttlMs) => {
      if (s.open) {
        if (ttlMs > 0) this.watch(s, leaseId);
        else this.unwatch(s, leaseId);
        s.send({ leaseId, ttlMs });
        this.logger.trace({ event: 'keepalive', leaseId, ttlMs }, 'keepalive answered');
      }
      settle();
    });
    if (!queued) s.fail(this.router.unavailable(`${this.router.selfId} is not the leader; reconnect`));
  }

  private watch(s: Stream, leaseId: number): void {
    this.leasesOf.get(s)?.add(leaseId);
    let set = this.byLease.get(leaseId);
    if (!set) this.byLease.set(leaseId, (set = new Set()));
    set.add(s);
  }

  private unwatch(s: Stream, leaseId: number): void {
    this.leasesOf.get(s)?.delete(leaseId);
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
      this.leasesOf.get(s)?.delete(leaseId);
      s.send({ leaseId, ttlMs: 0 });
      this.logger.debug({ event: 'lease loss sent', leaseId }, 'told a keepalive stream its lease is gone');
    }
  }

  private proxy(call: Call, to: Extract<Route, { kind: 'forward' }>, principal: string): void {
    const up = this.forwarder.duplex<LeaseKeepAliveRequest__Output, LeaseKeepAliveResponse__Output>(to, principal, METHOD);
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
    // Each side is read only as fast as the other drains (server-stream.ts).
    relay<LeaseKeepAliveRequest__Output>(call, up, () => !done);
    relay<LeaseKeepAliveResponse__Output>(up, call, () => !done);
    call.on('end', () => up.end());
    call.on('cancelled', () => finish(null));
    up.on('error', (err: grpc.ServiceError) => finish(this.forwarder.failure(to, METHOD.path, err)));
    up.on('status', (st: grpc.StatusObject) => {
      if (st.code === grpc.status.OK) finish(undefined); // a failure arrives as 'error'
    });
  }

  close(): void {
    this.closed = true;
    const err = this.router.unavailable(`${this.router.selfId} is shutting down`);
    this.local.endAll(err);
    for (const finish of [...this.proxies]) finish(err);
  }
}
