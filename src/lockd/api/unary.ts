// The shape every unary lock-API call shares: validate (bad input never reaches the log, and is
// refused on the node called, forwarded or not), route to the leader, serve or forward, and turn
// whatever went wrong into a gRPC status. The per-operation part (OpSpec: validate + serve on the
// leader) is shared with the Session stream (session-service.ts), so both have the same semantics.
import type * as grpc from '@grpc/grpc-js';
import type { Problem } from '../state-machine/index.js';
import { principalOf } from '../security/principal.js';
import { asApiError, fromProblem } from './api-error.js';
import type { Clock } from '../node/clock.js';
import type { ForwardMethod, ForwardPort } from './forwarder.js';
import type { LeaderRouter } from './leader-router.js';
import type { RefusalLog } from '../observe/log-limiter.js';
import { noteRefusal } from './call-refusal-log.js';
import { answerBy, deadlineOf, type ApiTiming } from './timing.js';

export interface UnaryDeps {
  readonly router: LeaderRouter;
  readonly forwarder: ForwardPort;
  readonly timing: ApiTiming;
  /** The node's clock (NodeContext.clock). */
  readonly clock: Clock;
  /** Refusals to log, rate-limited (NodeContext.refusals); none: not logged. */
  readonly refusals?: RefusalLog;
}

/** What an operation may know of its caller: who it is, and that it went away (a unary call cancelled, a session stream ended). */
export interface Caller {
  /** The caller's principal (security/principal.ts), as the guard of the port it came in on established it. */
  readonly principal: string;
  /** Run `cb` when the caller goes away (at once if it already has). */
  onGone(cb: () => void): void;
}

/** One lock-API operation, whichever way it arrives (unary call or session stream). */
export interface OpSpec<Req, Res> {
  /** Stateless checks with the state machine's validate* helpers. */
  validate(req: Req): Problem | undefined;
  /** Serve on the leader; `deadline` is the client's (epoch ms, Infinity if none). */
  onLeader(req: Req, caller: Caller, deadline: number): Promise<Res>;
  /** A call that may legitimately run until the client's deadline (a waiting Acquire). */
  waits?(req: Req): boolean;
}

export interface UnarySpec<Req, Res> extends OpSpec<Req, Res> {
  /** The RPC, for forwarding. */
  readonly method: ForwardMethod<Req, Res>;
}

export function unary<Req, Res>(deps: UnaryDeps, spec: UnarySpec<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const deadline = deadlineOf(call);
    let forwarded = false; // the leader logs a refusal of a forwarded call, not this node too
    const serve = async (): Promise<Res> => {
      const problem = spec.validate(call.request);
      if (problem) throw fromProblem(problem);
      const principal = principalOf(call.metadata);
      const route = await deps.router.route(call, deadline);
      if (route.kind === 'local')
        return spec.onLeader(call.request, { principal, onGone: (cb) => (call.cancelled ? cb() : call.once('cancelled', cb)) }, deadline);
      forwarded = true;
      const answerAt = spec.waits?.(call.request) ? deadline : answerBy(deadline, deps.timing.writeBoundMs, deps.clock.wallMs());
      return deps.forwarder.unary(route, principal, spec.method, call.request, deadline, answerAt, (cancel) => call.once('cancelled', cancel));
    };
    serve().then(
      (res) => callback(null, res),
      (e: unknown) => {
        const err = asApiError(e);
        if (!forwarded) noteRefusal(deps.refusals, spec.method.path, principalOf(call.metadata), err);
        callback(err.toStatus(), null);
      },
    );
  };
}
