// lockd.v1.Fence: the fenced store. Write and Delete refuse a token lower than the highest accepted
// for the key (FAILED_PRECONDITION naming that token, also in the lockd-highest-token trailer) and,
// with `lock` set, a token that is not that lock's live holder's; request_id makes them apply once.
// Read is linearizable and answers an unknown key with an empty value and token 0 (not NOT_FOUND).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd-package.js';
import type { FenceHandlers } from '../../proto/gen/lockd/v1/Fence.js';
import type { FenceWriteRequest__Output } from '../../proto/gen/lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse } from '../../proto/gen/lockd/v1/FenceWriteResponse.js';
import type { FenceDeleteRequest__Output } from '../../proto/gen/lockd/v1/FenceDeleteRequest.js';
import type { FenceDeleteResponse } from '../../proto/gen/lockd/v1/FenceDeleteResponse.js';
import type { FenceReadRequest__Output } from '../../proto/gen/lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse } from '../../proto/gen/lockd/v1/FenceReadResponse.js';
import type { NodeContext } from '../node/node-context.js';
import { validateFenceKey, validateFenceLock, validateFenceValue, validateRequestId, validateToken } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { requireOn } from './access.js';

const FENCE = lockdProto.lockd.v1.Fence.service;

/** The operations, shared by the Fence service and the Session stream. */
export interface FenceOps {
  readonly Write: UnarySpec<FenceWriteRequest__Output, FenceWriteResponse>;
  readonly Delete: UnarySpec<FenceDeleteRequest__Output, FenceDeleteResponse>;
  readonly Read: UnarySpec<FenceReadRequest__Output, FenceReadResponse>;
}

export function fenceOps(ctx: NodeContext, proposer: Proposer): FenceOps {
  const log: Logger = ctx.logger;
  const sm = ctx.stateMachine;
  const access = ctx.access;
  const refused = (e: unknown, what: string, req: { key: string; fencingToken: number; lock: string }): never => {
    if (e instanceof ApiError && e.code === grpc.status.FAILED_PRECONDITION)
      ctx.refusals.note(
        `stale fenced ${what}s`,
        'info',
        { event: `stale fence ${what}`, key: req.key, token: req.fencingToken, lock: req.lock || undefined },
        `fenced ${what} of ${req.key} refused: ${e.message}`,
      );
    throw e;
  };
  return {
    Write: {
      method: FENCE.Write,
      validate: (req) =>
        validateFenceKey(req.key) ??
        validateToken(req.fencingToken) ??
        validateFenceValue(req.value) ??
        validateFenceLock(req.lock) ??
        validateRequestId(req.requestId),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['fence'], req.key, 'write fenced key');
        if (req.lock) requireOn(access, caller.principal, ['lock', 'read'], req.lock, 'bind a fenced write to lock');
        const cmd = {
          type: 'FenceWrite',
          key: req.key,
          value: req.value,
          token: req.fencingToken,
          lock: req.lock || undefined,
          requestId: req.requestId || undefined,
          ...access.authority(caller.principal),
        } as const;
        const r = await proposer.write(cmd, deadline).catch((e: unknown) => refused(e, 'write', req));
        return { highestToken: r.highestToken };
      },
    },

    Delete: {
      method: FENCE.Delete,
      validate: (req) => validateFenceKey(req.key) ?? validateToken(req.fencingToken) ?? validateFenceLock(req.lock) ?? validateRequestId(req.requestId),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['fence'], req.key, 'delete fenced key');
        if (req.lock) requireOn(access, caller.principal, ['lock', 'read'], req.lock, 'bind a fenced write to lock');
        const cmd = {
          type: 'FenceDelete',
          key: req.key,
          token: req.fencingToken,
          lock: req.lock || undefined,
          requestId: req.requestId || undefined,
          ...access.authority(caller.principal),
        } as const;
        const r = await proposer.write(cmd, deadline).catch((e: unknown) => refused(e, 'delete', req));
        log.debug(
          { event: 'fence delete', key: req.key, token: req.fencingToken, deleted: r.deleted },
          `fenced key ${req.key} ${r.deleted ? 'deleted' : 'had no value'}`,
        );
        return { deleted: r.deleted, highestToken: r.highestToken };
      },
    },

    Read: {
      method: FENCE.Read,
      validate: (req) => validateFenceKey(req.key),
      onLeader: async (req, caller, deadline) => {
        requireOn(access, caller.principal, ['fence', 'read'], req.key, 'read fenced key');
        const v = await proposer.read(deadline, () => sm.fenceReadView(req.key));
        // A view of the stored bytes, not a copy (fenceReadView): the answer is only serialized.
        return { value: Buffer.from(v.value.buffer, v.value.byteOffset, v.value.byteLength), fencingToken: v.token };
      },
    },
  };
}

export function fenceHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer): FenceHandlers {
  const ops = fenceOps(ctx, proposer);
  return { Write: unary(deps, ops.Write), Delete: unary(deps, ops.Delete), Read: unary(deps, ops.Read) };
}
