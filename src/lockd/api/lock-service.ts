// lockd.v1.Lock: Acquire (acquire.ts), Release, Inspect, CancelWait (unary, on the leader; also
// Session operations) and Observe (served locally, observe-streams.ts).
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd.js';
import type { LockHandlers } from '../../proto/gen/lockd/v1/Lock.js';
import type { AcquireRequest__Output } from '../../proto/gen/lockd/v1/AcquireRequest.js';
import type { AcquireResponse } from '../../proto/gen/lockd/v1/AcquireResponse.js';
import type { ReleaseRequest__Output } from '../../proto/gen/lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse } from '../../proto/gen/lockd/v1/ReleaseResponse.js';
import type { InspectRequest__Output } from '../../proto/gen/lockd/v1/InspectRequest.js';
import type { InspectResponse } from '../../proto/gen/lockd/v1/InspectResponse.js';
import type { CancelWaitRequest__Output } from '../../proto/gen/lockd/v1/CancelWaitRequest.js';
import type { CancelWaitResponse } from '../../proto/gen/lockd/v1/CancelWaitResponse.js';
import type { NodeContext } from '../node/node-context.js';
import { validateAbandonedAtIndex, validateLeaseId, validateLockName, validateRequestId, validateToken } from '../state-machine/index.js';
import type { Acquirer } from './acquire.js';
import type { ObserveStreams } from './observe-streams.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { requireOn, requireOwner } from './access.js';

const LOCK = lockdProto.lockd.v1.Lock.service;

/** The unary operations, shared by the Lock service and the Session stream. */
export interface LockOps {
  readonly Acquire: UnarySpec<AcquireRequest__Output, AcquireResponse>;
  readonly Release: UnarySpec<ReleaseRequest__Output, ReleaseResponse>;
  readonly Inspect: UnarySpec<InspectRequest__Output, InspectResponse>;
  readonly CancelWait: UnarySpec<CancelWaitRequest__Output, CancelWaitResponse>;
}

export function lockOps(ctx: NodeContext, proposer: Proposer, acquirer: Acquirer): LockOps {
  const log: Logger = ctx.logger;
  const sm = ctx.stateMachine;
  const access = ctx.access;
  return {
    Acquire: {
      method: LOCK.Acquire,
      validate: (req) => validateLockName(req.name) ?? validateLeaseId(req.leaseId) ?? validateRequestId(req.requestId),
      waits: (req) => req.wait,
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['lock'], req.name, 'acquire');
        // Ownership before the call joins LockWaits: a waiting call there speaks for its (name, lease)
        // — it keeps an abandoned wait's place, and the cleanup is sent as its principal — so a call
        // with another principal's lease, refused only at apply, would cancel that principal's cleanup
        // and leave an orphan lock. A lease unknown here may be one this new leader has yet to apply:
        // the read barrier settles it (a lease's owner never changes).
        const owner = sm.leaseOwner(req.leaseId) ?? (await proposer.read(deadline, () => sm.leaseOwner(req.leaseId)));
        requireOwner(access, caller.principal, req.leaseId, owner, 'acquire with');
        return acquirer.acquire({
          name: req.name,
          leaseId: req.leaseId,
          wait: req.wait,
          requestId: req.requestId || undefined,
          deadline,
          principal: caller.principal,
          onGone: caller.onGone,
        });
      },
    },

    Release: {
      method: LOCK.Release,
      validate: (req) => validateLockName(req.name) ?? validateToken(req.fencingToken) ?? validateRequestId(req.requestId),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['lock'], req.name, 'release');
        const r = await proposer.write({ type: 'Release', name: req.name, token: req.fencingToken, requestId: req.requestId || undefined, ...access.authority(caller.principal) }, deadline);
        log.debug({ event: r.released ? 'released' : 'stale release', name: req.name, token: req.fencingToken }, r.released ? `${req.name} released` : `stale release of ${req.name}`);
        return { released: r.released };
      },
    },

    Inspect: {
      method: LOCK.Inspect,
      validate: (req) => validateLockName(req.name),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['lock', 'read'], req.name, 'inspect');
        const v = await proposer.read(deadline, () => sm.inspectLock(req.name));
        return { held: v.held, fencingToken: v.token, holderLeaseId: v.holderLeaseId, waitingLeaseIds: [...v.waitingLeaseIds] };
      },
    },

    CancelWait: {
      method: LOCK.CancelWait,
      validate: (req) => validateLockName(req.name) ?? validateLeaseId(req.leaseId) ?? validateAbandonedAtIndex(req.abandonedAtIndex) ?? validateRequestId(req.requestId),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['lock'], req.name, 'cancel waits for');
        const cmd = { type: 'CancelWait', name: req.name, leaseId: req.leaseId, abandonedAtIndex: req.abandonedAtIndex, requestId: req.requestId || undefined, ...access.authority(caller.principal) } as const;
        const r = await proposer.write(cmd, deadline);
        log.debug(
          { event: 'cancel wait', name: req.name, leaseId: req.leaseId, abandonedAt: req.abandonedAtIndex, removed: r.removed, heldToken: r.heldToken, released: r.released },
          `wait of lease ${req.leaseId} for ${req.name} cancelled`,
        );
        return { removed: r.removed, fencingToken: r.heldToken, released: r.released };
      },
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
    Observe: observe.handler,
  };
}
