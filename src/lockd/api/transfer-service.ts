// lockd.v1.Cluster.TransferLeader: validate, route to the leader (forwarded from a follower), run
// the node's bounded transfer (node/leader-transfer.ts) and turn its outcome into a status. With
// client certificates verified, admins only (like membership changes).
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { TransferLeaderRequest__Output } from '../../proto/gen/lockd/v1/TransferLeaderRequest.js';
import type { TransferLeaderResponse } from '../../proto/gen/lockd/v1/TransferLeaderResponse.js';
import { NODE_ID_PATTERN } from '../node/config.js';
import { transferBoundMs, type TransferOutcome } from '../node/leader-transfer.js';
import type { NodeContext } from '../node/node-context.js';
import { ApiError, asApiError, unavailable } from './api-error.js';
import type { Forwarder } from './forwarder.js';
import type { LeaderRouter } from './leader-router.js';
import { requireAdmin } from './membership-service.js';
import { principalOf } from '../security/principal.js';
import { answerBy, deadlineOf } from './timing.js';

const METHOD = lockdProto.lockd.v1.Cluster.service.TransferLeader;
/** A forwarding follower waits this much longer than the leader's own bound, to hear its answer. */
const FORWARD_MARGIN_MS = 1000;

type Handler = grpc.handleUnaryCall<TransferLeaderRequest__Output, TransferLeaderResponse>;

export function transferLeaderHandler(ctx: NodeContext, router: LeaderRouter, forwarder: Forwarder): Handler {
  const boundMs = transferBoundMs(ctx.config);
  const self = ctx.config.id;

  const onLeader = async (target: string, deadline: number): Promise<TransferLeaderResponse> => {
    const now = ctx.clock.wallMs();
    const until = answerBy(deadline, boundMs, now);
    const outcome = await ctx.driver.transferLeadership(target || undefined, Math.max(0, until - now));
    return answer(outcome, until < now + boundMs);
  };

  const answer = (o: TransferOutcome, clientDeadlineFirst: boolean): TransferLeaderResponse => {
    switch (o.kind) {
      case 'done':
        return { leaderId: o.leader, leaderAddress: ctx.peers.clientAddress(o.leader), term: o.term, previousLeaderId: o.previous, transferred: o.transferred };
      case 'not-leader':
        throw router.unavailable(`${self} stopped leading before the transfer began`, o.leader);
      case 'not-voter':
        if (o.learner) throw new ApiError(grpc.status.FAILED_PRECONDITION, `${o.target} is a learner and cannot lead: promote it first`);
        throw new ApiError(grpc.status.NOT_FOUND, `no voter "${o.target}" in this cluster (voters: ${o.voters.join(', ')})`);
      case 'no-target':
        throw new ApiError(grpc.status.FAILED_PRECONDITION, `${self} is the only voter: there is no other node to hand leadership to`);
      case 'timed-out':
        if (clientDeadlineFirst)
          throw new ApiError(
            grpc.status.DEADLINE_EXCEEDED,
            `the transfer of leadership to ${o.target} did not finish before the call's deadline (${o.waitedMs} ms); it may still complete: see Cluster.Status`,
          );
        if (o.stillLeader)
          throw unavailable(
            `the transfer of leadership to ${o.target} did not finish within ${o.waitedMs} ms (is ${o.target} running, reachable and caught up?); ${self} still leads and serves`,
            { id: self, address: ctx.config.advertiseClient },
          );
        throw unavailable(
          `${self} handed leadership to ${o.target}, but no new leader was known within ${o.waitedMs} ms (an election is running); see Cluster.Status`,
        );
    }
  };

  return (call, callback) => {
    const deadline = deadlineOf(call);
    const serve = async (): Promise<TransferLeaderResponse> => {
      const target = call.request.targetId;
      if (target !== '' && !NODE_ID_PATTERN.test(target))
        throw new ApiError(
          grpc.status.INVALID_ARGUMENT,
          `target_id ${JSON.stringify(target.slice(0, 80))} is not a node id (1-64 letters, digits, '.', '_' or '-'), or "" for the most caught-up voter`,
        );
      requireAdmin(ctx.access, call, 'transfer leadership');
      const route = await router.route(call, deadline);
      if (route.kind === 'local') return onLeader(target, deadline);
      // Up to the client's own deadline when that is the shorter (the leader then answers
      // DEADLINE_EXCEEDED itself, just before it), else the leader's bound plus a margin.
      const answerAt = Math.min(deadline, ctx.clock.wallMs() + boundMs + FORWARD_MARGIN_MS);
      return forwarder.unary(route, principalOf(call.metadata), METHOD, call.request, deadline, answerAt, (cancel) => call.once('cancelled', cancel));
    };
    serve().then(
      (res) => callback(null, res),
      (e: unknown) => callback(asApiError(e).toStatus(), null),
    );
  };
}
