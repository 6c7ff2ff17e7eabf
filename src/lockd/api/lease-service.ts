// lockd.v1.Lease: Grant, Revoke, TimeToLive, List (unary, on the leader; also Session operations)
// and KeepAlive (a stream, see keepalive-streams.ts).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd-package.js';
import type { LeaseHandlers } from '../../proto/gen/lockd/v1/Lease.js';
import type { LeaseGrantRequest__Output } from '../../proto/gen/lockd/v1/LeaseGrantRequest.js';
import type { LeaseGrantResponse } from '../../proto/gen/lockd/v1/LeaseGrantResponse.js';
import type { LeaseRevokeRequest__Output } from '../../proto/gen/lockd/v1/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse } from '../../proto/gen/lockd/v1/LeaseRevokeResponse.js';
import type { LeaseTimeToLiveRequest__Output } from '../../proto/gen/lockd/v1/LeaseTimeToLiveRequest.js';
import type { LeaseTimeToLiveResponse } from '../../proto/gen/lockd/v1/LeaseTimeToLiveResponse.js';
import type { LeaseListRequest__Output } from '../../proto/gen/lockd/v1/LeaseListRequest.js';
import type { LeaseListResponse } from '../../proto/gen/lockd/v1/LeaseListResponse.js';
import type { NodeContext } from '../node/node-context.js';
import { leaderMargins, validateLeaseId, validateRequestId, validateTtlMs } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import type { KeepAliveStreams } from './keepalive-streams.js';
import type { Proposer } from './proposer.js';
import type { ApiTiming } from './timing.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { denied, requireOwner } from './access.js';
import { decodePageToken, encodePageToken, pageSize, validateListPage } from './list-page.js';

const LEASE = lockdProto.lockd.v1.Lease.service;

/** The unary operations, shared by the Lease service and the Session stream. */
export interface LeaseOps {
  readonly Grant: UnarySpec<LeaseGrantRequest__Output, LeaseGrantResponse>;
  readonly Revoke: UnarySpec<LeaseRevokeRequest__Output, LeaseRevokeResponse>;
  readonly TimeToLive: UnarySpec<LeaseTimeToLiveRequest__Output, LeaseTimeToLiveResponse>;
  readonly List: UnarySpec<LeaseListRequest__Output, LeaseListResponse>;
}

export function leaseOps(ctx: NodeContext, timing: ApiTiming, proposer: Proposer): LeaseOps {
  return {
    Grant: grantOp(ctx, timing, proposer),
    Revoke: revokeOp(ctx, proposer),
    TimeToLive: timeToLiveOp(ctx, proposer),
    List: listOp(ctx, proposer),
  };
}

function grantOp(ctx: NodeContext, timing: ApiTiming, proposer: Proposer): LeaseOps['Grant'] {
  const log: Logger = ctx.logger;
  const access = ctx.access;
  return {
    method: LEASE.Grant,
    validate: (req) => validateTtlMs(req.ttlMs) ?? validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      const why = access.leaseDenial(caller.principal, 'grant leases');
      if (why) throw denied(why);
      const r = await proposer.write(
        // The margins cover time from before this entry that the next Tick may still count, and clock-rate
        // error between leader and client (state-machine/deadline-margin.ts).
        {
          type: 'Grant',
          ttlMs: req.ttlMs,
          ...leaderMargins(timing.maxElapsedMs),
          requestId: req.requestId || undefined,
          ...access.authority(caller.principal),
        },
        deadline,
      );
      if (r.duplicate)
        log.debug({ event: 'lease grant replayed', leaseId: r.leaseId, requestId: req.requestId }, 'retried Grant answered from its first result');
      else
        log.info({ event: 'lease granted', leaseId: r.leaseId, ttlMs: r.ttlMs, principal: caller.principal }, `lease ${r.leaseId} granted (ttl ${r.ttlMs} ms)`);
      return { leaseId: r.leaseId, ttlMs: r.ttlMs };
    },
  };
}

function revokeOp(ctx: NodeContext, proposer: Proposer): LeaseOps['Revoke'] {
  const log: Logger = ctx.logger;
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    method: LEASE.Revoke,
    validate: (req) => validateLeaseId(req.leaseId) ?? validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      // Before proposing, like every other refusal: Revoke needs no rule, so this is the one write a
      // principal without any could otherwise send to the log. A lease unknown here goes on (NOT_FOUND
      // at apply, or a new leader not yet caught up: apply decides ownership then).
      requireOwner(access, caller.principal, req.leaseId, sm.leaseOwner(req.leaseId), 'revoke');
      const r = await proposer.write(
        { type: 'Revoke', leaseId: req.leaseId, requestId: req.requestId || undefined, ...access.authority(caller.principal) },
        deadline,
      );
      log.info({ event: 'lease revoked', leaseId: r.leaseId, releasedLocks: r.releasedLocks, principal: caller.principal }, `lease ${r.leaseId} revoked`);
      return {};
    },
  };
}

function timeToLiveOp(ctx: NodeContext, proposer: Proposer): LeaseOps['TimeToLive'] {
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    method: LEASE.TimeToLive,
    validate: (req) => validateLeaseId(req.leaseId),
    onLeader: async (req, caller, deadline) => {
      const v = await proposer.read(deadline, () => sm.timeToLive(req.leaseId));
      // Another principal's live lease answers exactly as a dead one: a different refusal would
      // tell a stranger which ids are live (an existence oracle to probe for others' leases).
      if (!v || (v.owner !== caller.principal && !access.isAdmin(caller.principal)))
        throw new ApiError(grpc.status.NOT_FOUND, `lease ${req.leaseId} not found (expired, revoked or never granted, or granted by another principal)`);
      return { leaseId: v.leaseId, grantedTtlMs: v.grantedTtlMs, remainingMs: v.remainingMs, locks: [...v.locks], owner: v.owner };
    },
  };
}

function listOp(ctx: NodeContext, proposer: Proposer): LeaseOps['List'] {
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    method: LEASE.List,
    validate: (req) => validateListPage(req),
    // An admin sees every lease; anyone else their own (without client certificates: all, anonymous's).
    // One page per call (list-page.ts): a response stays far below a client's receive limit.
    onLeader: async (req, caller, deadline) => {
      const all = access.isAdmin(caller.principal);
      const after = decodePageToken(req.pageToken)!;
      const page = await proposer.read(deadline, () => sm.listLeasesPage(after, pageSize(req.pageSize), (owner) => all || owner === caller.principal));
      const last = page.leases.at(-1);
      return {
        leases: page.leases.map((v) => ({ leaseId: v.leaseId, grantedTtlMs: v.grantedTtlMs, remainingMs: v.remainingMs, owner: v.owner })),
        nextPageToken: page.more && last ? encodePageToken(last.leaseId) : '',
      };
    },
  };
}

export function leaseHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer, keepAlive: KeepAliveStreams): LeaseHandlers {
  const ops = leaseOps(ctx, deps.timing, proposer);
  return {
    Grant: unary(deps, ops.Grant),
    Revoke: unary(deps, ops.Revoke),
    TimeToLive: unary(deps, ops.TimeToLive),
    List: unary(deps, ops.List),
    KeepAlive: keepAlive.handler,
  };
}
