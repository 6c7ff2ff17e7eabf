// lockd.v1.Session: many lock and lease operations over one bidirectional stream, answered out of
// order by the client's correlation ids (proto/lockd.proto documents the contract).
// Every operation runs the very OpSpec its unary RPC runs (validate, then serve on the leader), so
// semantics are identical; a session only saves the per-call HTTP/2 headers and trailers.
//  - Leader only: on a follower Open ends at once with UNAVAILABLE + lockd-leader (no proxying: a
//    proxied session would pay the follower hop on every operation); when this node stops leading,
//    every session ends the same way and the client reconnects to the new leader.
//  - An operation's failure is its own response (SessionError); only leadership loss, shutdown and
//    a reused in-flight id end the stream.
//  - At most MAX_IN_FLIGHT operations per stream; more are answered RESOURCE_EXHAUSTED. A request
//    message over the node's max-inbound-bytes has each of its operations answered so, none run.
//  - Deadline of an operation: timeout_ms after it arrives, capped by the stream's deadline.
//  - A waiting Acquire whose stream ends is abandoned like a cancelled unary call (lock-waits.ts).
//  - Several requests may come in one message, and answers finished in one event-loop turn go out
//    in one message to a client that asked for it (session-batch.ts).
import type { ClockTimer } from '../node/clock.js';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { NodeContext } from '../node/node-context.js';
import type { SessionHandlers } from '../../proto/gen/lockd/v1/Session.js';
import type { SessionRequest__Output } from '../../proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse } from '../../proto/gen/lockd/v1/SessionResponse.js';
import type { SessionError } from '../../proto/gen/lockd/v1/SessionError.js';
import { noteRefusal } from './call-refusal-log.js';
import { ApiError, asApiError, fromProblem, HIGHEST_TOKEN_TRAILER, LEADER_TRAILER } from './api-error.js';
import type { ElectionOps } from './election-service.js';
import type { FenceOps } from './fence-service.js';
import type { LeaderRouter } from './leader-router.js';
import type { LeaseOps } from './lease-service.js';
import type { LockOps } from './lock-service.js';
import { ServerStream, ServerStreams } from './server-stream.js';
import type { OutboundBudget } from './admission/outbound-budget.js';
import type { InboundBudget } from './admission/inbound-budget.js';
import { principalOf } from '../security/principal.js';
import { AnswerBatcher, BATCH_HEADER } from './session-batch.js';
import { refusedBeforeDecoding } from './session-batch-scan.js';
import { invalidUtf8Field, invalidUtf8Message } from './utf8-requests.js';
import { deadlineOf, type ApiTiming } from './timing.js';
import type { Caller, OpSpec } from './unary.js';

/** Operations in flight on one stream before further requests are refused (RESOURCE_EXHAUSTED). */
export const MAX_IN_FLIGHT = 1024;

type Call = grpc.ServerDuplexStream<SessionRequest__Output, SessionResponse>;
type OpName = NonNullable<SessionRequest__Output['op']>;
/** The session's operations by oneof field name; the response uses the same field name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each entry pairs its own request and response types
type OpTable = { readonly [K in OpName]: OpSpec<NonNullable<SessionRequest__Output[K]>, any> };

interface Op {
  /** The caller-gone callbacks of this operation (a waiting Acquire registers one per wait round). */
  readonly gone: Array<() => void>;
}

interface Session {
  readonly stream: ServerStream<SessionRequest__Output, SessionResponse>;
  /** The stream's own deadline (epoch ms, Infinity if none): every operation's deadline is capped by it. */
  readonly deadline: number;
  /** The stream's principal: every operation on it is the principal's. */
  readonly principal: string;
  readonly inFlight: Map<number, Op>;
  /** Set when the client opened with BATCH_HEADER: its answers are batched per event-loop turn. */
  readonly batcher: AnswerBatcher | undefined;
}

export class SessionStreams {
  private readonly streams: ServerStreams<SessionRequest__Output, SessionResponse>;
  private readonly ops: OpTable;
  private readonly logger: Logger;
  private closed = false;
  /** Set while a stepped-down node waits to learn the new leader before ending its sessions. */
  private stepDown: ClockTimer | undefined;

  constructor(
    private readonly ctx: NodeContext,
    private readonly router: LeaderRouter,
    private readonly timing: ApiTiming,
    ops: { lock: LockOps; lease: LeaseOps; fence: FenceOps; election: ElectionOps },
    outbound?: OutboundBudget,
    inbound?: InboundBudget,
  ) {
    this.streams = new ServerStreams(outbound, inbound);
    this.logger = ctx.logger;
    this.ops = {
      grant: ops.lease.Grant,
      acquire: ops.lock.Acquire,
      release: ops.lock.Release,
      revoke: ops.lease.Revoke,
      fenceWrite: ops.fence.Write,
      inspect: ops.lock.Inspect,
      fenceRead: ops.fence.Read,
      timeToLive: ops.lease.TimeToLive,
      fenceDelete: ops.fence.Delete,
      setPermits: ops.lock.SetPermits,
      campaign: ops.election.Campaign,
      proclaim: ops.election.Proclaim,
      leader: ops.election.Leader,
      resign: ops.election.Resign,
    };
    ctx.driver.onRoleChange((role, leader) => this.roleChanged(role, leader));
  }

  /**
   * Stepped down: end every session, naming the new leader. A node that steps down before it hears
   * of one (e.g. on its own election timeout) waits up to leaderWaitMs for a name, so the client
   * can go straight there; meanwhile its sessions answer every new operation UNAVAILABLE.
   */
  private roleChanged(role: string, leader: string): void {
    if (role === 'leader' && !this.stepDown) return;
    if (!this.stepDown && this.streams.size === 0) return;
    const end = () => {
      this.stepDown?.clear();
      this.stepDown = undefined;
      this.streams.endAll(
        this.router.unavailable(`${this.router.selfId} stopped leading; reopen the session on the leader and retry what was in flight`, leader || undefined),
      );
    };
    if (leader || role === 'leader') end();
    else this.stepDown ??= this.ctx.clock.after(this.timing.leaderWaitMs, end);
  }

  readonly handlers: SessionHandlers = {
    Open: (call) => void this.open(call),
  };

  /** Sessions served here (status, tests). */
  get count(): number {
    return this.streams.size;
  }

  private async open(call: Call): Promise<void> {
    const deadline = deadlineOf(call);
    try {
      if (this.closed) throw this.router.unavailable(`${this.router.selfId} is shutting down`);
      // Waits a little for an election if no leader is known, like a unary call.
      const route = await this.router.route(call, deadline);
      if (route.kind !== 'local') throw this.router.unavailable(`${this.router.selfId} is not the leader: open the session on the leader`, route.leaderId);
    } catch (e) {
      call.emit('error', asApiError(e).toStatus());
      return;
    }
    if (call.cancelled) return;
    const inFlight = new Map<number, Op>();
    const stream = this.streams.serve(call, {
      onRequest: (req) => this.request(s, req),
      // Over max-inbound-bytes: each of its operations is answered so, none is run.
      onRefused: (req, err) => {
        // A message refused before decoding (session-batch-scan.ts) has no batch: the stream ends.
        if (!Array.isArray(req.batch)) return stream.fail(err);
        const error = sessionError(err);
        for (const r of req.batch.length > 0 ? req.batch : [req]) stream.send({ id: r.id, error });
      },
      // The stream is over: operations still in flight learn their caller went away (a waiting Acquire abandons).
      onClose: () => {
        for (const op of inFlight.values()) for (const cb of op.gone.splice(0)) cb();
        this.logger.debug({ event: 'session closed', inFlight: inFlight.size, sessions: this.streams.size }, 'session closed');
      },
    });
    const batches = call.metadata.get(BATCH_HEADER)[0] === '1';
    const batcher = batches ? new AnswerBatcher((res) => stream.send(res)) : undefined;
    const s: Session = { stream, deadline, principal: principalOf(call.metadata), inFlight, batcher };
    // Tell the client it may batch requests (SessionRequest.batch).
    const headers = new grpc.Metadata();
    headers.set(BATCH_HEADER, '1');
    call.sendMetadata(headers);
    this.logger.debug({ event: 'session opened', sessions: this.streams.size }, 'session opened');
  }

  private request(s: Session, req: SessionRequest__Output): void {
    // Too many batch elements (at most MAX_BATCH in all), batches nested too deep, or bytes that do
    // not decode: refused by Open's deserializer before decoding (session-batch-scan.ts).
    const refused = refusedBeforeDecoding(req);
    if (refused) return s.stream.fail(new ApiError(grpc.status.INVALID_ARGUMENT, refused));
    // A string that is not UTF-8 is its operation's refusal (run()); a message the check could not read ends the stream, as one that does not decode.
    if (invalidUtf8Field(req) === '') return s.stream.fail(new ApiError(grpc.status.INVALID_ARGUMENT, invalidUtf8Message('')));
    if (req.batch.length === 0) return this.one(s, req);
    if (req.op || req.id !== 0 || req.timeoutMs !== 0)
      return s.stream.fail(
        new ApiError(grpc.status.INVALID_ARGUMENT, 'a session request with a batch must carry nothing else (id 0, no operation, no timeout_ms)'),
      );
    for (const r of req.batch) {
      if (!s.stream.open) return; // a reused id in the batch ended the stream
      this.one(s, r);
    }
  }

  /** One operation (alone, or an element of a batch: a nested batch is answered INVALID_ARGUMENT by run()). */
  private one(s: Session, req: SessionRequest__Output): void {
    const id = req.id;
    if (s.inFlight.has(id)) return s.stream.fail(new ApiError(grpc.status.INVALID_ARGUMENT, `session request id ${id} is already in flight on this stream`));
    if (s.inFlight.size >= MAX_IN_FLIGHT) {
      s.stream.send({
        id,
        error: sessionError(new ApiError(grpc.status.RESOURCE_EXHAUSTED, `${MAX_IN_FLIGHT} operations are in flight on this session; wait for answers`)),
      });
      return;
    }
    const op: Op = { gone: [] };
    s.inFlight.set(id, op);
    const settle = s.stream.begin();
    const caller: Caller = { principal: s.principal, onGone: (cb) => (s.stream.open ? op.gone.push(cb) : cb()) };
    void this.run(s, req, caller).then((res) => {
      s.inFlight.delete(id);
      if (s.batcher) return s.batcher.add(res, settle); // settles once sent
      s.stream.send(res);
      settle();
    });
  }

  /** One operation, as its unary RPC would serve it on the leader: its response (the field, or the error). Never rejects. */
  private async run(s: Session, req: SessionRequest__Output, caller: Caller): Promise<SessionResponse> {
    try {
      if (req.batch.length > 0) throw new ApiError(grpc.status.INVALID_ARGUMENT, 'a batched session request may not hold a batch itself');
      // Marked by Open's deserializer (utf8-requests.ts), relative to this operation: e.g. "acquire.name".
      const notUtf8 = invalidUtf8Field(req);
      if (notUtf8 !== undefined) throw new ApiError(grpc.status.INVALID_ARGUMENT, invalidUtf8Message(notUtf8));
      const name = req.op;
      if (!name) throw new ApiError(grpc.status.INVALID_ARGUMENT, 'session request without an operation');
      const body = req[name];
      if (!body) throw new ApiError(grpc.status.INVALID_ARGUMENT, `session request ${name} without its message`);
      if (!(req.timeoutMs >= 0)) throw new ApiError(grpc.status.INVALID_ARGUMENT, `timeout_ms must not be negative, got ${req.timeoutMs}`);
      const spec = this.ops[name] as OpSpec<typeof body, unknown>;
      const problem = spec.validate(body);
      if (problem) throw fromProblem(problem);
      // A session lives only on the leader; this guards the moment between losing leadership and the stream's end.
      if (!this.ctx.driver.isLeader()) throw this.router.unavailable(`${this.router.selfId} is no longer the leader`);
      const deadline = Math.min(s.deadline, req.timeoutMs > 0 ? this.ctx.clock.wallMs() + req.timeoutMs : Infinity);
      return { id: req.id, [name]: await spec.onLeader(body, caller, deadline) };
    } catch (e) {
      const err = asApiError(e);
      noteRefusal(this.ctx.refusals, `Session.${req.op || 'none'}`, caller.principal, err);
      return { id: req.id, error: sessionError(err) };
    }
  }

  close(): void {
    this.closed = true;
    this.stepDown?.clear();
    this.streams.endAll(this.router.unavailable(`${this.router.selfId} is shutting down`));
  }
}

/** An operation's failure as the session reports it: the unary call's status and trailers. */
export function sessionError(e: ApiError): SessionError {
  const highest = e.trailers[HIGHEST_TOKEN_TRAILER];
  return { code: e.code, message: e.message, leader: e.trailers[LEADER_TRAILER] ?? '', highestToken: highest ? Number(highest) : 0 };
}
