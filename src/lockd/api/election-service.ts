// lockd.v1.Election, on the Lock state: the leader of an election is the holder of the
// mutex of the same name, its key that grant (name, lease, token), its value stored with the grant.
// Campaign is a waiting Acquire (acquire.ts: NOT_FOUND the moment the lease ends), Resign a Release,
// Proclaim a state-machine command, Leader a linearizable Inspect; Observe is served locally from
// the applied events (like Lock.Observe), reading the leader from the state after each event and
// after a snapshot install.
// Access as for Lock: Campaign, Proclaim and Resign need `lock` on the name, Leader and
// Observe `lock` or `read`; ownership of the lease (Campaign: also before it joins the queue, as for
// Acquire) or of the leadership's grant (Proclaim, Resign) is checked at apply from the command's
// authority (state-machine/authorize.ts). Campaign, Proclaim, Leader and Resign are also Session
// operations (electionOps); Observe is not (a session answers each request once, on the leader).
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { ElectionHandlers } from '../../proto/gen/lockd/v1/Election.js';
import type { CampaignRequest__Output } from '../../proto/gen/lockd/v1/CampaignRequest.js';
import type { CampaignResponse } from '../../proto/gen/lockd/v1/CampaignResponse.js';
import type { ProclaimRequest__Output } from '../../proto/gen/lockd/v1/ProclaimRequest.js';
import type { ProclaimResponse } from '../../proto/gen/lockd/v1/ProclaimResponse.js';
import type { LeaderRequest__Output } from '../../proto/gen/lockd/v1/LeaderRequest.js';
import type { LeaderResponse } from '../../proto/gen/lockd/v1/LeaderResponse.js';
import type { ResignRequest__Output } from '../../proto/gen/lockd/v1/ResignRequest.js';
import type { ResignResponse } from '../../proto/gen/lockd/v1/ResignResponse.js';
import type { LeaderKey__Output } from '../../proto/gen/lockd/v1/LeaderKey.js';
import type { NodeContext } from '../node/node-context.js';
import {
  validateElectionValue,
  validateLeaseId,
  validateLockName,
  validateRequestId,
  validateToken,
  type LockView,
  type Problem,
} from '../state-machine/index.js';
import { ApiError, fromProblem } from './api-error.js';
import type { Acquirer } from './acquire.js';
import type { AppliedEvents } from './applied-events.js';
import { MAX_OBSERVE_BACKLOG } from './observe-streams.js';
import type { Proposer } from './proposer.js';
import { ServerStreams } from './server-stream.js';
import type { OutboundBudget } from './admission/outbound-budget.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { checkedAcquire } from './lock-service.js';
import { denied, requireOn } from './access.js';
import { principalOf } from '../security/principal.js';

const ELECTION = lockdProto.lockd.v1.Election.service;

function validateKey(k: LeaderKey__Output | null): Problem | undefined {
  if (!k) return { error: 'INVALID_ARGUMENT', message: 'leader (the leadership key) is required' };
  return validateLockName(k.name) ?? validateLeaseId(k.leaseId) ?? validateToken(k.fencingToken);
}

/** The leader as LeaderResponse: the election's one holder (a lock made by Lock.Acquire has none). */
function leaderOf(name: string, v: LockView): LeaderResponse {
  const h = v.election ? v.holders[0] : undefined;
  return h ? { hasLeader: true, leader: { name, leaseId: h.leaseId, fencingToken: h.token }, value: h.value } : { hasLeader: false, leader: null, value: '' };
}

export function electionHandlers(
  ctx: NodeContext,
  deps: UnaryDeps,
  proposer: Proposer,
  acquirer: Acquirer,
  events: AppliedEvents,
  outbound?: OutboundBudget,
): { handlers: ElectionHandlers; close(err: ApiError): void } {
  const sm = ctx.stateMachine;
  const access = ctx.access;
  const streams = new ServerStreams<LeaderRequest__Output, LeaderResponse>(outbound);

  const Observe: grpc.handleServerStreamingCall<LeaderRequest__Output, LeaderResponse> = (call) => {
    const { name } = call.request;
    const problem = validateLockName(name);
    if (problem) {
      call.emit('error', fromProblem(problem).toStatus());
      return;
    }
    // Against this replica's rules (served locally, like Lock.Observe).
    const why = access.denial(principalOf(call.metadata), ['lock', 'read'], name, 'observe the election');
    if (why) {
      call.emit('error', denied(why).toStatus());
      return;
    }
    if (call.cancelled) return;
    const s = streams.serve(
      call,
      { onClose: () => unsubscribe() },
      { backlog: { messages: MAX_OBSERVE_BACKLOG, what: `the election observer of ${JSON.stringify(name)}` } },
    );
    // Listeners run right after each entry applies, so the state read here is that entry's.
    let last = '';
    const send = () => {
      const now = leaderOf(name, sm.inspectLock(name));
      const sig = JSON.stringify(now);
      if (sig === last) return;
      last = sig;
      s.send(now);
    };
    // Any change of the name may change its leadership (send() drops what does not).
    const unevents = events.onName(name, () => send());
    // A snapshot install has no events for what it covers: the state it holds is the news.
    const unresync = events.onReplaced(send);
    const unsubscribe = () => {
      unevents();
      unresync();
    };
    call.sendMetadata(new grpc.Metadata());
    // The current leadership first; "nobody leads" is not news to a new observer.
    const first = leaderOf(name, sm.inspectLock(name));
    if (first.hasLeader) send();
    else last = JSON.stringify(first);
  };

  const ops = electionOps(ctx, proposer, acquirer);
  const handlers: ElectionHandlers = {
    Campaign: unary(deps, ops.Campaign),
    Proclaim: unary(deps, ops.Proclaim),
    Leader: unary(deps, ops.Leader),
    Resign: unary(deps, ops.Resign),
    Observe,
  };
  return { handlers, close: (err) => streams.endAll(err) };
}

/** The unary operations, shared by the Election service and the Session stream. */
export interface ElectionOps {
  readonly Campaign: UnarySpec<CampaignRequest__Output, CampaignResponse>;
  readonly Proclaim: UnarySpec<ProclaimRequest__Output, ProclaimResponse>;
  readonly Leader: UnarySpec<LeaderRequest__Output, LeaderResponse>;
  readonly Resign: UnarySpec<ResignRequest__Output, ResignResponse>;
}

export function electionOps(ctx: NodeContext, proposer: Proposer, acquirer: Acquirer): ElectionOps {
  return {
    Campaign: campaignOp(ctx, proposer, acquirer),
    Proclaim: proclaimOp(ctx, proposer),
    Leader: leaderOp(ctx, proposer),
    Resign: resignOp(ctx, proposer),
  };
}

function campaignOp(ctx: NodeContext, proposer: Proposer, acquirer: Acquirer): ElectionOps['Campaign'] {
  return {
    method: ELECTION.Campaign,
    validate: (req) => validateLockName(req.name) ?? validateLeaseId(req.leaseId) ?? validateElectionValue(req.value) ?? validateRequestId(req.requestId),
    waits: () => true,
    onLeader: async (req, caller, deadline) => {
      const r = await checkedAcquire(ctx, proposer, acquirer, caller, deadline, 'campaign', {
        name: req.name,
        leaseId: req.leaseId,
        wait: true,
        permits: 0,
        shared: false,
        lockDelayMs: 0,
        value: req.value,
        election: true,
        requestId: req.requestId || undefined,
      });
      if (!r.acquired)
        throw new ApiError(
          grpc.status.ABORTED,
          `the leadership of ${req.name} this request won (token ${r.endedFencingToken}) has ended since; campaign again with a new request_id`,
        );
      return { leader: { name: req.name, leaseId: req.leaseId, fencingToken: r.fencingToken } };
    },
  };
}

function proclaimOp(ctx: NodeContext, proposer: Proposer): ElectionOps['Proclaim'] {
  const access = ctx.access;
  return {
    method: ELECTION.Proclaim,
    validate: (req) => validateKey(req.leader) ?? validateElectionValue(req.value),
    onLeader: async (req, caller, deadline) => {
      const k = req.leader!;
      requireOn(access, caller.principal, ['lock'], k.name, 'proclaim in');
      await proposer.write(
        { type: 'Proclaim', name: k.name, token: k.fencingToken, leaseId: k.leaseId, value: req.value, ...access.authority(caller.principal) },
        deadline,
      );
      return {};
    },
  };
}

function leaderOp(ctx: NodeContext, proposer: Proposer): ElectionOps['Leader'] {
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    method: ELECTION.Leader,
    validate: (req) => validateLockName(req.name),
    onLeader: async (req, caller, deadline) => {
      requireOn(access, caller.principal, ['lock', 'read'], req.name, 'read the leader of');
      const r = leaderOf(req.name, await proposer.read(deadline, () => sm.inspectLock(req.name)));
      if (!r.hasLeader) throw new ApiError(grpc.status.NOT_FOUND, `nobody leads ${req.name}`);
      return r;
    },
  };
}

function resignOp(ctx: NodeContext, proposer: Proposer): ElectionOps['Resign'] {
  const access = ctx.access;
  return {
    method: ELECTION.Resign,
    validate: (req) => validateKey(req.leader) ?? validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      const k = req.leader!;
      requireOn(access, caller.principal, ['lock'], k.name, 'resign from');
      try {
        const cmd = {
          type: 'Release',
          name: k.name,
          token: k.fencingToken,
          leaseId: k.leaseId,
          requestId: req.requestId || undefined,
          ...access.authority(caller.principal),
        } as const;
        const r = await proposer.write(cmd, deadline);
        return { resigned: r.released };
      } catch (e) {
        // Nobody leads any more: the leadership is over either way.
        if (e instanceof ApiError && e.code === grpc.status.NOT_FOUND) return { resigned: false };
        throw e;
      }
    },
  };
}
