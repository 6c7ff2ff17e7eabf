// Calls from a follower to the leader's PEER listener (node/listeners.ts): the same method under
// lockd.forwarded.v1, over a channel that proves both ends are members (with TLS), a few cached
// connections per leader, the caller's remaining deadline passed on, and the forwarding headers set so
// the leader never forwards again. Messages for clients name the leader's CLIENT address only.
import * as grpc from '@grpc/grpc-js';
import { forwardedPath, forwardingMetadata } from '../node/listeners.js';
import { DNS_RERESOLVE_MS } from '../transport/index.js';
import type { NodeContext } from '../node/node-context.js';
import { ApiError, LEADER_TRAILER } from './api-error.js';
import type { Forward } from './leader-router.js';

/** What forwarding needs of an RPC (a proto-loader MethodDefinition fits). */
export interface ForwardMethod<Req, Res> {
  readonly path: string;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => Res;
}

/** Like the peer transport: a stopped or partitioned leader is noticed within ~2 s even on a quiet stream. */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 1000,
  'grpc.keepalive_timeout_ms': 1000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 50,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.enable_retries': 0,
  'grpc.use_local_subchannel_pool': 1, // each client its own connection (see CONNECTIONS_PER_LEADER)
  'grpc.dns_min_time_between_resolutions_ms': DNS_RERESOLVE_MS, // a leader named by DNS, moved to a new IP, is found again
};

/**
 * Connections to the leader that forwarded calls are spread over, round robin: every call a
 * follower forwards (waiting Acquires and proxied KeepAlives last long) counts against the
 * leader's MAX_STREAMS_PER_CONNECTION, so one connection would cap what all of a follower's
 * clients may have open at once.
 */
const CONNECTIONS_PER_LEADER = 4;

/**
 * What the API uses of forwarding: the Forwarder below over gRPC, or the simulator's over its own
 * network (test/sim/node). lock-api.ts takes a factory of it (lockApiRegistrar).
 */
export type ForwardPort = Pick<Forwarder, 'unary' | 'duplex' | 'failure' | 'close'>;

export class Forwarder {
  private readonly clients = new Map<string, grpc.Client[]>();
  private next = 0;
  /** Calls in flight, cancelled on close so a node's shutdown never waits on a forwarded wait. */
  private readonly inFlight = new Set<grpc.ClientUnaryCall>();
  private closed = false;

  constructor(private readonly ctx: Pick<NodeContext, 'config' | 'logger' | 'security'> & Partial<Pick<NodeContext, 'refusals'>>) {}

  private get selfId(): string {
    return this.ctx.config.id;
  }

  private get logger(): NodeContext['logger'] {
    return this.ctx.logger;
  }

  /** A transport error, rate-limited when the node has a limiter (a dead leader fails every call until the next election). */
  private warn(kind: string, fields: Record<string, unknown>, msg: string): void {
    if (this.ctx.refusals) this.ctx.refusals.note(kind, 'warn', fields, msg);
    else this.logger.warn(fields, msg);
  }

  private client(to: Forward): grpc.Client {
    const key = `${to.leaderId}@${to.peerAddress}`;
    let pool = this.clients.get(key);
    if (!pool) {
      const channel = this.ctx.security.peerChannel(to.leaderId);
      pool = Array.from(
        { length: CONNECTIONS_PER_LEADER },
        () => new grpc.Client(to.peerAddress, channel.credentials, { ...CHANNEL_OPTIONS, ...channel.options }),
      );
      this.clients.set(key, pool);
    }
    return pool[this.next++ % pool.length];
  }

  private metadata(principal: string): grpc.Metadata {
    return forwardingMetadata(this.ctx.config, principal);
  }

  /**
   * Forward one unary call. `answerAt` (epoch ms) is when this node must answer at the latest: if the
   * leader has not answered by then (stopped, partitioned) the call fails UNAVAILABLE; `deadline` is
   * the client's own deadline, reported as DEADLINE_EXCEEDED when it is the one that ran out.
   * `onCancel` lets the caller cancel the forwarded call when its own client goes away. The leader
   * serves it for `principal` (the caller's, as this node's public port established it).
   */
  unary<Req, Res>(
    to: Forward,
    principal: string,
    method: ForwardMethod<Req, Res>,
    request: Req,
    deadline: number,
    answerAt: number,
    onCancel: (cancel: () => void) => void,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new ApiError(grpc.status.UNAVAILABLE, `${this.selfId} is shutting down; retry`));
      const c = this.client(to);
      const call: grpc.ClientUnaryCall = c.makeUnaryRequest<Req, Res>(
        forwardedPath(method.path),
        method.requestSerialize,
        method.responseDeserialize,
        request,
        this.metadata(principal),
        { deadline: Number.isFinite(answerAt) ? answerAt : Infinity },
        (err, res) => {
          this.inFlight.delete(call);
          if (!err) resolve(res!);
          else if (this.closed) reject(new ApiError(grpc.status.UNAVAILABLE, `${this.selfId} is shutting down; retry`));
          else reject(this.failure(to, method.path, err, deadline, answerAt));
        },
      );
      this.inFlight.add(call);
      onCancel(() => call.cancel());
    });
  }

  /** Open a bidi stream to the leader for `principal` (the KeepAlive proxy). */
  duplex<Req, Res>(to: Forward, principal: string, method: ForwardMethod<Req, Res>): grpc.ClientDuplexStream<Req, Res> {
    return this.client(to).makeBidiStreamRequest<Req, Res>(
      forwardedPath(method.path),
      method.requestSerialize,
      method.responseDeserialize,
      this.metadata(principal),
      {},
    );
  }

  /** The leader's own answer passes through; a failure to reach it becomes UNAVAILABLE. */
  failure(to: Forward, path: string, err: grpc.ServiceError, deadline = Infinity, answerAt = Infinity): ApiError {
    const trailers: Record<string, string> = {};
    for (const [k, v] of Object.entries(err.metadata?.getMap() ?? {})) if (k.startsWith('lockd-')) trailers[k] = String(v);
    // For the client: the leader's client address (never its peer address), when known.
    const where = to.clientAddress ? `${to.leaderId} at ${to.clientAddress}` : to.leaderId;
    const logged = { path, leader: to.leaderId, peerAddress: to.peerAddress };
    if (err.code === grpc.status.DEADLINE_EXCEEDED && answerAt < deadline) {
      this.warn(
        `forwards to ${to.leaderId} unanswered`,
        { event: 'forward failed', ...logged, reason: 'no answer' },
        `forwarding ${path} to ${to.leaderId} at ${to.peerAddress}: no answer in time`,
      );
      return new ApiError(grpc.status.UNAVAILABLE, `the leader ${where} did not answer in time (stopped or cut off?); retry`, trailers);
    }
    if (err.code === grpc.status.UNAVAILABLE) {
      if (!trailers[LEADER_TRAILER])
        this.warn(
          `forwards to ${to.leaderId} failed`,
          { event: 'forward failed', ...logged, err: err.details },
          `forwarding ${path} to ${to.leaderId} at ${to.peerAddress} failed: ${err.details}`,
        );
      return new ApiError(err.code, `forwarded to the leader ${where}, which could not be reached; retry`, trailers);
    }
    return new ApiError(err.code, err.details, trailers);
  }

  close(): void {
    this.closed = true;
    for (const call of [...this.inFlight]) call.cancel();
    for (const pool of this.clients.values()) for (const c of pool) c.close();
    this.clients.clear();
  }
}
