// Calls from a follower to the leader: one cached gRPC client per peer address, the caller's
// remaining deadline passed on, and the FORWARDED_HEADER set so the leader never forwards again.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ApiError, LEADER_TRAILER } from './api-error.js';
import { FORWARDED_HEADER, type Route } from './leader-router.js';

type Forward = Extract<Route, { kind: 'forward' }>;

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
};

/**
 * Connections to the leader that forwarded calls are spread over, round robin: every call a
 * follower forwards (waiting Acquires and proxied KeepAlives last long) counts against the
 * leader's MAX_STREAMS_PER_CONNECTION, so one connection would cap what all of a follower's
 * clients may have open at once.
 */
const CONNECTIONS_PER_LEADER = 4;

export class Forwarder {
  private readonly clients = new Map<string, grpc.Client[]>();
  private next = 0;
  /** Calls in flight, cancelled on close so a node's shutdown never waits on a forwarded wait. */
  private readonly inFlight = new Set<grpc.ClientUnaryCall>();
  private closed = false;

  constructor(
    private readonly selfId: string,
    private readonly logger: Logger,
  ) {}

  private client(address: string): grpc.Client {
    let pool = this.clients.get(address);
    if (!pool) {
      pool = Array.from({ length: CONNECTIONS_PER_LEADER }, () => new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS));
      this.clients.set(address, pool);
    }
    return pool[this.next++ % pool.length];
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    md.set(FORWARDED_HEADER, this.selfId);
    return md;
  }

  /**
   * Forward one unary call. `answerAt` (epoch ms) is when this node must answer at the latest: if the
   * leader has not answered by then (stopped, partitioned) the call fails UNAVAILABLE; `deadline` is
   * the client's own deadline, reported as DEADLINE_EXCEEDED when it is the one that ran out.
   * `onCancel` lets the caller cancel the forwarded call when its own client goes away.
   */
  unary<Req, Res>(
    to: Forward,
    method: ForwardMethod<Req, Res>,
    request: Req,
    deadline: number,
    answerAt: number,
    onCancel: (cancel: () => void) => void,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new ApiError(grpc.status.UNAVAILABLE, `${this.selfId} is shutting down; retry`));
      const c = this.client(to.address);
      const call: grpc.ClientUnaryCall = c.makeUnaryRequest<Req, Res>(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        this.metadata(),
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

  /** Open a bidi stream to the leader (the KeepAlive proxy). */
  duplex<Req, Res>(to: Forward, method: ForwardMethod<Req, Res>): grpc.ClientDuplexStream<Req, Res> {
    return this.client(to.address).makeBidiStreamRequest<Req, Res>(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      this.metadata(),
      {},
    );
  }

  /** The leader's own answer passes through; a failure to reach it becomes UNAVAILABLE. */
  failure(to: Forward, path: string, err: grpc.ServiceError, deadline = Infinity, answerAt = Infinity): ApiError {
    const trailers: Record<string, string> = {};
    for (const [k, v] of Object.entries(err.metadata?.getMap() ?? {})) if (k.startsWith('lockd-')) trailers[k] = String(v);
    const where = `${to.leaderId} at ${to.address}`;
    if (err.code === grpc.status.DEADLINE_EXCEEDED && answerAt < deadline) {
      this.logger.warn({ event: 'forward failed', path, leader: to.leaderId, address: to.address, reason: 'no answer' }, `forwarding ${path} to ${where}: no answer in time`);
      return new ApiError(grpc.status.UNAVAILABLE, `the leader ${where} did not answer in time (stopped or cut off?); retry`, trailers);
    }
    if (err.code === grpc.status.UNAVAILABLE) {
      if (!trailers[LEADER_TRAILER]) this.logger.warn({ event: 'forward failed', path, leader: to.leaderId, address: to.address, err: err.details }, `forwarding ${path} to ${where} failed: ${err.details}`);
      return new ApiError(err.code, `forwarded to ${where}: ${err.details}`, trailers);
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
