// Leader-side work with a bound: writes are proposals that answer once applied here; reads wait
// for a ReadIndex barrier, then query the state machine (linearizable). Neither waits past the
// call's answer time: a leader without a quorum answers UNAVAILABLE instead of hanging.
import * as grpc from '@grpc/grpc-js';
import type { NodeContext } from '../node/node-context.js';
import { NotLeaderError, ProposalLostError } from '../node/proposal-errors.js';
import { encodeCommand, validateCommand, type ApplyOutput, type Command, type Success } from '../state-machine/index.js';
import { ApiError, fromProblem } from './api-error.js';
import type { LeaderRouter } from './leader-router.js';
import { answerBy, settleBy, TimeoutError, type ApiTiming } from './timing.js';

/** A write whose outcome is unknown to this node: it may yet be applied (or may already have been). */
export class UncertainWriteError extends ApiError {
  /** The entry's index once it is applied here as proposed; undefined if it lost its place or this node cannot tell. */
  landed: Promise<number | undefined> = Promise.resolve(undefined);
}

export type SuccessFor<T extends Command['type']> = Extract<Success, { type: T }>;

export class Proposer {
  constructor(
    private readonly ctx: NodeContext,
    private readonly timing: ApiTiming,
    private readonly router: LeaderRouter,
  ) {}

  /** Propose `cmd` and return its result; a refused command throws its status (nothing changed). */
  async write<C extends Command>(cmd: C, deadline: number): Promise<SuccessFor<C['type']>> {
    return (await this.writeWithIndex(cmd, deadline)).result;
  }

  /** write(), also answering the index of the entry that applied it (a waiting Acquire names it in its cleanup). */
  async writeWithIndex<C extends Command>(cmd: C, deadline: number): Promise<{ index: number; result: SuccessFor<C['type']> }> {
    const problem = validateCommand(cmd);
    if (problem) throw fromProblem(problem);
    // Request ids are one namespace: a membership change's id (remembered by Membership, not the
    // state machine: the change is the Raft core's) is another request's too.
    const change = 'requestId' in cmd && cmd.requestId ? this.ctx.membership.committedRequest(cmd.requestId) : undefined;
    if (change)
      throw new ApiError(
        grpc.status.INVALID_ARGUMENT,
        `request_id was already used for a different request (the membership change ${change.op} ${change.node} at ${change.index})`,
      );
    let out: ApplyOutput;
    const proposal = this.ctx.driver.propose(encodeCommand(cmd));
    try {
      ({ result: out } = await settleBy(proposal, answerBy(deadline, this.timing.writeBoundMs, this.ctx.clock.wallMs()), `${cmd.type}`, this.ctx.clock));
    } catch (e) {
      const err = this.driverFailure(e, cmd.type);
      // Timed out: the proposal is still pending here and may yet be applied at its index.
      if (e instanceof TimeoutError && err instanceof UncertainWriteError)
        err.landed = proposal.then(
          (o) => o.index,
          () => undefined,
        );
      throw err;
    }
    const r = out.result;
    if (!r || r.type !== cmd.type) throw new ApiError(grpc.status.INTERNAL, `entry ${out.index} answered ${r?.type ?? 'nothing'} to a ${cmd.type}`);
    if (!r.ok) throw fromProblem(r);
    return { index: out.index, result: r as SuccessFor<C['type']> };
  }

  /** Run `query` on state at least as new as every write committed before this call. */
  async read<T>(deadline: number, query: () => T): Promise<T> {
    try {
      await settleBy(this.ctx.driver.readBarrier(), answerBy(deadline, this.timing.writeBoundMs, this.ctx.clock.wallMs()), 'read barrier', this.ctx.clock);
    } catch (e) {
      throw this.driverFailure(e, 'read');
    }
    return query();
  }

  private driverFailure(e: unknown, what: string): ApiError {
    if (e instanceof ApiError) return e;
    if (e instanceof NotLeaderError) return this.router.unavailable(`${this.router.selfId} is no longer the leader`, e.leader);
    if (e instanceof ProposalLostError) {
      if (e.outcomeUnknown) return new UncertainWriteError(grpc.status.UNAVAILABLE, `${what}: ${e.message}; retry (with the same request_id)`);
      return this.router.unavailable(`${what} was not applied: leadership changed before it committed; retry`);
    }
    if (e instanceof TimeoutError) {
      const reason = `${what} not committed in time: ${e.message} (no quorum?)`;
      const err = this.router.unavailable(what === 'read' ? reason : `${reason}; it may still be applied, retry with the same request_id`);
      return what === 'read' ? err : new UncertainWriteError(err.code, err.message, err.trailers);
    }
    return this.router.unavailable(`${what} failed: ${(e as Error)?.message ?? String(e)}`);
  }
}
