// lockd.v1.Membership: the operator's member list and single-server changes (proto/lockd.proto).
// Served by the leader, forwarded by followers like any write. The Raft core decides every change
// (src/raft/README.md); this layer validates the input, refuses what the core would refuse with a
// status a person understands, carries the members' addresses in the change (node/member-context.ts)
// and answers once the change is committed. With client certificates admin-only: requireAdmin() is the one place to check it.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { MembershipHandlers } from '../../proto/gen/lockd/v1/Membership.js';
import type { MemberAddRequest__Output } from '../../proto/gen/lockd/v1/MemberAddRequest.js';
import type { MemberChangeResponse } from '../../proto/gen/lockd/v1/MemberChangeResponse.js';
import type { MemberInfo } from '../../proto/gen/lockd/v1/MemberInfo.js';
import type { MemberListResponse } from '../../proto/gen/lockd/v1/MemberListResponse.js';
import type { MemberPromoteRequest__Output } from '../../proto/gen/lockd/v1/MemberPromoteRequest.js';
import { ConfChangeError, type ConfChange, type ConfChangeRefusal } from '../../raft/index.js';
import { isAddress, NODE_ID_PATTERN } from '../node/config.js';
import { NotLeaderError, ProposalLostError } from '../node/proposal-errors.js';
import { encodeMemberContext } from '../node/member-context.js';
import type { MemberAddresses } from '../node/peer-directory.js';
import type { NodeContext } from '../node/node-context.js';
import { validateRequestId } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import { denied } from './access.js';
import type { AccessControl } from '../security/access-control.js';
import { principalOf } from '../security/principal.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { answerBy, settleBy, TimeoutError } from './timing.js';

const MEMBERSHIP = lockdProto.lockd.v1.Membership.service;

/**
 * THE admin check of every Membership RPC (and TransferLeader): whenever client certificates are
 * verified (--client-cert-auth, with or without --acl) only an administrator (an --admin principal
 * or an `admin` rule) may list or change members; PERMISSION_DENIED otherwise, also when no admin
 * is named at all. It reads the principal the guard of the port the call came in on recorded: the
 * public guard's own, or on the peer port the one a forwarding member carried. Without client
 * certificates every caller is 'anonymous' and it allows all, like the rest of the API (bind the
 * client port privately, or turn TLS and client certificates on).
 */
export function requireAdmin(access: AccessControl, call: { metadata: grpc.Metadata }, what = 'list or change members'): void {
  if (!access.principalsProven) return;
  const why = access.adminDenial(principalOf(call.metadata), what);
  if (why) throw denied(why);
}

/** How each refusal of the core reaches the caller. */
const REFUSAL_CODE: Record<ConfChangeRefusal, grpc.status> = {
  'not-leader': grpc.status.UNAVAILABLE,
  transferring: grpc.status.UNAVAILABLE,
  'no-commit-in-term': grpc.status.UNAVAILABLE,
  'change-pending': grpc.status.UNAVAILABLE,
  'config-index-mismatch': grpc.status.FAILED_PRECONDITION,
  'invalid-op': grpc.status.INVALID_ARGUMENT,
  'invalid-id': grpc.status.INVALID_ARGUMENT,
  'invalid-context': grpc.status.INVALID_ARGUMENT,
  'id-removed': grpc.status.FAILED_PRECONDITION,
  'already-member': grpc.status.ALREADY_EXISTS,
  'not-member': grpc.status.NOT_FOUND,
  'not-learner': grpc.status.FAILED_PRECONDITION,
  'learner-behind': grpc.status.FAILED_PRECONDITION,
  'remove-leader': grpc.status.FAILED_PRECONDITION,
  'too-many-members': grpc.status.RESOURCE_EXHAUSTED,
};

const invalid = (message: string) => ({ error: 'INVALID_ARGUMENT' as const, message });

function validateId(id: string, what = 'id'): ReturnType<typeof invalid> | undefined {
  return NODE_ID_PATTERN.test(id) ? undefined : invalid(`${what} ${JSON.stringify(id.slice(0, 80))} is not a node id (1-64 of A-Z a-z 0-9 . _ -)`);
}

type ChangeRequest = Pick<MemberPromoteRequest__Output, 'id' | 'requestId' | 'expectedConfigIndex' | '_expectedConfigIndex'>;

/** Hints a person can act on, after the core's own message. */
const REFUSAL_HINT: Partial<Record<ConfChangeRefusal, string>> = {
  'remove-leader': ' (lockctl leader transfer)',
  'id-removed': '; start the machine with a wiped data dir and add it under a new id',
  'learner-behind': '; wait until it has caught up (lockctl member list shows its lag) and retry',
  'change-pending': '; retry shortly, with the same request_id',
  'no-commit-in-term': '; retry shortly, with the same request_id',
};

export function membershipHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer): MembershipHandlers {
  const { peers, membership } = ctx;
  const change = (cc: ConfChange, requestId: string, deadline: number, added?: MemberAddresses) =>
    proposeChange(ctx, deps, proposer, cc, requestId, deadline, added);

  const ops = {
    MemberList: {
      method: MEMBERSHIP.MemberList,
      validate: () => undefined,
      // The member list is the leader's (match indexes): a barrier first, so a deposed leader does not answer.
      onLeader: async (_req: unknown, _caller: unknown, deadline: number) => proposer.read(deadline, () => memberList(ctx)),
    } satisfies UnarySpec<object, MemberListResponse>,

    MemberAdd: {
      method: MEMBERSHIP.MemberAdd,
      validate: (req: MemberAddRequest__Output) =>
        validateId(req.id) ??
        (isAddress(req.peerUrl) ? undefined : invalid(`peer_url ${JSON.stringify(req.peerUrl.slice(0, 80))} is not HOST:PORT`)) ??
        (req.clientUrl === '' || isAddress(req.clientUrl) ? undefined : invalid(`client_url ${JSON.stringify(req.clientUrl.slice(0, 80))} is not HOST:PORT`)) ??
        validateRequestId(req.requestId),
      onLeader: async (req: MemberAddRequest__Output, _caller: unknown, deadline: number) => {
        const owner = peers.ownerOf(req.peerUrl);
        if (owner !== undefined && owner !== req.id && !membership.committedRequest(req.requestId))
          throw new ApiError(grpc.status.ALREADY_EXISTS, `peer_url ${req.peerUrl} is ${owner}'s peer address`);
        const added: MemberAddresses = req.clientUrl ? { peer: req.peerUrl, client: req.clientUrl } : { peer: req.peerUrl };
        return change({ op: req.learner ? 'addLearner' : 'addVoter', node: req.id, ...cas(req) }, req.requestId, deadline, added);
      },
    } satisfies UnarySpec<MemberAddRequest__Output, MemberChangeResponse>,

    MemberPromote: {
      method: MEMBERSHIP.MemberPromote,
      validate: (req: ChangeRequest) => validateId(req.id) ?? validateRequestId(req.requestId),
      onLeader: (req: ChangeRequest, _caller: unknown, deadline: number) => change({ op: 'promote', node: req.id, ...cas(req) }, req.requestId, deadline),
    } satisfies UnarySpec<ChangeRequest, MemberChangeResponse>,

    MemberRemove: {
      method: MEMBERSHIP.MemberRemove,
      validate: (req: ChangeRequest) => validateId(req.id) ?? validateRequestId(req.requestId),
      onLeader: (req: ChangeRequest, _caller: unknown, deadline: number) => change({ op: 'remove', node: req.id, ...cas(req) }, req.requestId, deadline),
    } satisfies UnarySpec<ChangeRequest, MemberChangeResponse>,
  };

  return {
    MemberList: adminOnly(ctx, deps, ops.MemberList),
    MemberAdd: adminOnly(ctx, deps, ops.MemberAdd),
    MemberPromote: adminOnly(ctx, deps, ops.MemberPromote),
    MemberRemove: adminOnly(ctx, deps, ops.MemberRemove),
  };
}

/** MemberList's answer: the members as the directory knows them, their logs as this leader sees them. */
function memberList(ctx: NodeContext): MemberListResponse {
  const { driver, peers } = ctx;
  const st = driver.status();
  const members: MemberInfo[] = peers.members().map((id) => {
    const match = id === st.id ? st.lastIndex : (st.progress.get(id)?.match ?? 0);
    return {
      id,
      peerAddress: peers.peerAddress(id),
      clientAddress: peers.clientAddress(id),
      role: peers.role(id) ?? 'voter',
      matchIndex: match,
      lag: Math.max(0, st.commit - match),
      leader: id === st.leader,
    };
  });
  return {
    leaderId: st.leader,
    commitIndex: st.commit,
    configIndex: st.configIndex,
    members,
    removedIds: [...st.removed],
    promoteMaxLag: ctx.config.promoteMaxLag,
  };
}

/**
 * Propose `cc` (with every member's addresses, `added`'s too) and answer once it is committed; a
 * retry (same request id) of a committed change answers as the first attempt did.
 */
async function proposeChange(
  ctx: NodeContext,
  deps: UnaryDeps,
  proposer: Proposer,
  cc: ConfChange,
  requestId: string,
  deadline: number,
  added?: MemberAddresses,
): Promise<MemberChangeResponse> {
  const { driver, peers, membership } = ctx;
  const done = membership.committedRequest(requestId);
  if (done) {
    if (done.op !== cc.op || done.node !== cc.node)
      throw new ApiError(grpc.status.INVALID_ARGUMENT, `request_id was used for another change (${done.op} ${done.node} at ${done.index})`);
    return changeAnswer(ctx, done.index);
  }
  // One namespace with every other request: an id the state machine remembers (after a barrier,
  // so one answered by an earlier leader counts) is not this change's.
  const used = await proposer.read(deadline, () => ctx.stateMachine.requestKind(requestId));
  if (used !== undefined) throw new ApiError(grpc.status.INVALID_ARGUMENT, `request_id was already used for a different request (a ${used})`);
  const addresses = peers.book();
  if (cc.op === 'remove') delete addresses[cc.node];
  if (added) addresses[cc.node] = added;
  const context = encodeMemberContext({ addresses, requestId });
  try {
    const { index } = await settleBy(
      driver.proposeConfChange({ ...cc, context }),
      answerBy(deadline, deps.timing.writeBoundMs, ctx.clock.wallMs()),
      `${cc.op} ${cc.node}`,
      ctx.clock,
    );
    ctx.logger.info({ event: 'membership change', op: cc.op, member: cc.node, index }, `membership change at ${index}: ${cc.op} ${cc.node}`);
    return changeAnswer(ctx, index);
  } catch (e) {
    if (e instanceof ConfChangeError) throw refusal(ctx, deps, e);
    if (e instanceof TimeoutError)
      throw deps.router.unavailable(
        `${cc.op} ${cc.node} not committed in time (no quorum?); it may still take effect: check with MemberList, retry with the same request_id`,
      );
    if (e instanceof NotLeaderError) throw deps.router.unavailable(`${ctx.config.id} is no longer the leader`, e.leader);
    if (e instanceof ProposalLostError) {
      throw e.outcomeUnknown
        ? deps.router.unavailable(`${cc.op} ${cc.node}: ${e.message}; check with MemberList, retry with the same request_id`)
        : deps.router.unavailable(`${cc.op} ${cc.node} was not applied: leadership changed before it committed; retry`);
    }
    throw e;
  }
}

function changeAnswer(ctx: NodeContext, index: number): MemberChangeResponse {
  const c = ctx.driver.configurationAt(Infinity);
  return { configIndex: index, voters: [...c.voters], learners: [...(c.learners ?? [])] };
}

function refusal(ctx: NodeContext, deps: UnaryDeps, e: ConfChangeError): ApiError {
  if (e.reason === 'not-leader') return deps.router.unavailable(`${ctx.config.id} is no longer the leader`);
  return new ApiError(REFUSAL_CODE[e.reason], e.message + (REFUSAL_HINT[e.reason] ?? ''));
}

function cas(req: ChangeRequest): Pick<ConfChange, 'expectConfigIndex'> {
  return req._expectedConfigIndex === 'expectedConfigIndex' ? { expectConfigIndex: req.expectedConfigIndex ?? 0 } : {};
}

/** The unary handler of `spec`, behind requireAdmin. */
function adminOnly<Req, Res>(ctx: NodeContext, deps: UnaryDeps, spec: UnarySpec<Req, Res>): grpc.handleUnaryCall<Req, Res> {
  const inner = unary(deps, spec);
  return (call, callback) => {
    try {
      requireAdmin(ctx.access, call);
    } catch (e) {
      return callback(e instanceof ApiError ? e.toStatus() : { code: grpc.status.PERMISSION_DENIED, details: String(e) }, null);
    }
    inner(call, callback);
  };
}
