// lockd.v1.Lock: Acquire (acquire.ts), Release, Inspect, CancelWait, SetPermits (unary, on the
// leader; also Session operations) and Observe (served locally, observe-streams.ts).
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd-package.js';
import type { LockHandlers } from '../../proto/gen/lockd/v1/Lock.js';
import type { AcquireRequest__Output } from '../../proto/gen/lockd/v1/AcquireRequest.js';
import type { AcquireResponse } from '../../proto/gen/lockd/v1/AcquireResponse.js';
import type { ReleaseRequest__Output } from '../../proto/gen/lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse } from '../../proto/gen/lockd/v1/ReleaseResponse.js';
import type { InspectRequest__Output } from '../../proto/gen/lockd/v1/InspectRequest.js';
import type { InspectResponse } from '../../proto/gen/lockd/v1/InspectResponse.js';
import type { CancelWaitRequest__Output } from '../../proto/gen/lockd/v1/CancelWaitRequest.js';
import type { CancelWaitResponse } from '../../proto/gen/lockd/v1/CancelWaitResponse.js';
import type { SetPermitsRequest__Output } from '../../proto/gen/lockd/v1/SetPermitsRequest.js';
import type { SetPermitsResponse } from '../../proto/gen/lockd/v1/SetPermitsResponse.js';
import type { NodeContext } from '../node/node-context.js';
import {
  validateAbandonedAtIndex,
  validateCleanupRequestId,
  validateAcquireRecipe,
  validateCommand,
  validateLeaseId,
  validateLockName,
  validateRequestId,
  validateToken,
} from '../state-machine/index.js';
import type { Acquirer, AcquireArgs } from './acquire.js';
import type { ObserveStreams } from './observe-streams.js';
import type { Proposer } from './proposer.js';
import { unary, type Caller, type UnaryDeps, type UnarySpec } from './unary.js';
import { denied, requireOn, requireOwner } from './access.js';
import { inspectResponse } from './inspect-response.js';

const LOCK = lockdProto.lockd.v1.Lock.service;

/** The unary operations, shared by the Lock service and the Session stream. */
export interface LockOps {
  readonly Acquire: UnarySpec<AcquireRequest__Output, AcquireResponse>;
  readonly Release: UnarySpec<ReleaseRequest__Output, ReleaseResponse>;
  readonly Inspect: UnarySpec<InspectRequest__Output, InspectResponse>;
  readonly CancelWait: UnarySpec<CancelWaitRequest__Output, CancelWaitResponse>;
  readonly SetPermits: UnarySpec<SetPermitsRequest__Output, SetPermitsResponse>;
}

/**
 * Lock.Acquire's access checks, then the acquire (Election.Campaign, a waiting Acquire carrying a
 * value, runs the same). `what` names the operation in a refusal ("alice may not campaign in ...").
 */
export async function checkedAcquire(
  ctx: NodeContext,
  proposer: Proposer,
  acquirer: Acquirer,
  caller: Caller,
  deadline: number,
  what: 'acquire' | 'campaign',
  a: Omit<AcquireArgs, 'deadline' | 'principal' | 'onGone'>,
): Promise<AcquireResponse> {
  const sm = ctx.stateMachine;
  requireOn(ctx.access, caller.principal, ['lock'], a.name, what === 'campaign' ? 'campaign in' : what);
  // Ownership before the call joins LockWaits: a waiting call there speaks for its (name, lease)
  // — it keeps an abandoned wait's place, and the cleanup is sent as its principal — so a call
  // with another principal's lease, refused only at apply, would cancel that principal's cleanup
  // and leave an orphan lock. A lease unknown here may be one this new leader has yet to apply:
  // the read barrier settles it (a lease's owner never changes).
  const owner = sm.leaseOwner(a.leaseId) ?? (await proposer.read(deadline, () => sm.leaseOwner(a.leaseId)));
  requireOwner(ctx.access, caller.principal, a.leaseId, owner, `${what} with`);
  return acquirer.acquire({ ...a, deadline, principal: caller.principal, onGone: caller.onGone });
}

export function lockOps(ctx: NodeContext, proposer: Proposer, acquirer: Acquirer): LockOps {
  return {
    Acquire: acquireOp(ctx, proposer, acquirer),
    Release: releaseOp(ctx, proposer),
    Inspect: inspectOp(ctx, proposer),
    CancelWait: cancelWaitOp(ctx, proposer),
    SetPermits: setPermitsOp(ctx, proposer),
  };
}

function acquireOp(ctx: NodeContext, proposer: Proposer, acquirer: Acquirer): LockOps['Acquire'] {
  return {
    method: LOCK.Acquire,
    validate: (req) =>
      validateLockName(req.name) ??
      validateLeaseId(req.leaseId) ??
      validateAcquireRecipe(req.permits, req.shared, req.lockDelayMs) ??
      validateRequestId(req.requestId),
    waits: (req) => req.wait,
    onLeader: (req, caller, deadline) =>
      checkedAcquire(ctx, proposer, acquirer, caller, deadline, 'acquire', {
        name: req.name,
        leaseId: req.leaseId,
        wait: req.wait,
        permits: req.permits,
        shared: req.shared,
        lockDelayMs: req.lockDelayMs,
        requestId: req.requestId || undefined,
      }),
  };
}

function releaseOp(ctx: NodeContext, proposer: Proposer): LockOps['Release'] {
  const log: Logger = ctx.logger;
  const access = ctx.access;
  return {
    method: LOCK.Release,
    validate: (req) =>
      validateLockName(req.name) ??
      validateToken(req.fencingToken) ??
      (req.leaseId === 0 ? undefined : validateLeaseId(req.leaseId)) ??
      validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      requireOn(access, caller.principal, ['lock'], req.name, 'release');
      const cmd = {
        type: 'Release',
        name: req.name,
        token: req.fencingToken,
        leaseId: req.leaseId || undefined,
        requestId: req.requestId || undefined,
        ...access.authority(caller.principal),
      } as const;
      const r = await proposer.write(cmd, deadline);
      log.debug(
        { event: r.released ? 'released' : 'stale release', name: req.name, token: req.fencingToken },
        r.released ? `${req.name} released` : `stale release of ${req.name}`,
      );
      return { released: r.released };
    },
  };
}

function inspectOp(ctx: NodeContext, proposer: Proposer): LockOps['Inspect'] {
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    method: LOCK.Inspect,
    validate: (req) => validateLockName(req.name),
    onLeader: async (req, caller, deadline) => {
      requireOn(access, caller.principal, ['lock', 'read'], req.name, 'inspect');
      return inspectResponse(await proposer.read(deadline, () => sm.inspectLock(req.name)));
    },
  };
}

function cancelWaitOp(ctx: NodeContext, proposer: Proposer): LockOps['CancelWait'] {
  const log: Logger = ctx.logger;
  const access = ctx.access;
  return {
    method: LOCK.CancelWait,
    validate: (req) =>
      validateLockName(req.name) ??
      validateLeaseId(req.leaseId) ??
      validateAbandonedAtIndex(req.abandonedAtIndex) ??
      validateRequestId(req.requestId) ??
      validateCleanupRequestId(req.abandonedAtIndex, req.acquireRequestId),
    onLeader: async (req, caller, deadline) => {
      requireOn(access, caller.principal, ['lock'], req.name, 'cancel waits for');
      const cmd = {
        type: 'CancelWait',
        name: req.name,
        leaseId: req.leaseId,
        abandonedAtIndex: req.abandonedAtIndex,
        requestId: req.requestId || undefined,
        acquireRequestId: req.acquireRequestId || undefined,
        ...access.authority(caller.principal),
      } as const;
      const r = await proposer.write(cmd, deadline);
      log.debug(
        {
          event: 'cancel wait',
          name: req.name,
          leaseId: req.leaseId,
          abandonedAt: req.abandonedAtIndex,
          removed: r.removed,
          heldToken: r.heldToken,
          released: r.released,
        },
        `wait of lease ${req.leaseId} for ${req.name} cancelled`,
      );
      return { removed: r.removed, fencingToken: r.heldToken, released: r.released };
    },
  };
}

function setPermitsOp(ctx: NodeContext, proposer: Proposer): LockOps['SetPermits'] {
  const log: Logger = ctx.logger;
  const access = ctx.access;
  return {
    method: LOCK.SetPermits,
    validate: (req) => validateCommand({ type: 'SetPermits', name: req.name, permits: req.permits, requestId: req.requestId || undefined }),
    onLeader: async (req, caller, deadline) => {
      // Admin-only with --acl, like Membership (it changes a name for all its holders); without
      // --acl open to every caller like the rest of the API. authorize.ts checks it again at apply.
      if (access.enforced && !access.isAdmin(caller.principal))
        throw denied(`${caller.principal} may not set the permits of ${JSON.stringify(req.name)}: that needs \`admin\``);
      const cmd = {
        type: 'SetPermits',
        name: req.name,
        permits: req.permits,
        requestId: req.requestId || undefined,
        ...access.authority(caller.principal),
      } as const;
      const r = await proposer.write(cmd, deadline);
      log.info(
        { event: 'permits set', name: req.name, previous: r.previous, permits: r.permits, granted: r.granted },
        `${req.name}: permits ${r.previous} -> ${r.permits}`,
      );
      return { previous: r.previous, granted: r.granted };
    },
  };
}

export function lockHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer, acquirer: Acquirer, observe: ObserveStreams): LockHandlers {
  const ops = lockOps(ctx, proposer, acquirer);
  return {
    Acquire: unary(deps, ops.Acquire),
    Release: unary(deps, ops.Release),
    Inspect: unary(deps, ops.Inspect),
    CancelWait: unary(deps, ops.CancelWait),
    SetPermits: unary(deps, ops.SetPermits),
    Observe: observe.handler,
  };
}
