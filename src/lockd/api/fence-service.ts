// lockd.v1.Fence: the fenced store. Write refuses a token lower than the highest accepted for the
// key (FAILED_PRECONDITION naming that token, also in the lockd-highest-token trailer); Read is
// linearizable and answers an unknown key with an empty value and token 0 (not NOT_FOUND).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../../proto/lockd.js';
import type { FenceHandlers } from '../../proto/gen/lockd/v1/Fence.js';
import type { FenceWriteRequest__Output } from '../../proto/gen/lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse } from '../../proto/gen/lockd/v1/FenceWriteResponse.js';
import type { FenceReadRequest__Output } from '../../proto/gen/lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse } from '../../proto/gen/lockd/v1/FenceReadResponse.js';
import type { NodeContext } from '../node/node-context.js';
import { validateFenceKey, validateFenceValue, validateToken } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';

const FENCE = lockdProto.lockd.v1.Fence.service;

/** The operations, shared by the Fence service and the Session stream. */
export interface FenceOps {
  readonly Write: UnarySpec<FenceWriteRequest__Output, FenceWriteResponse>;
  readonly Read: UnarySpec<FenceReadRequest__Output, FenceReadResponse>;
}

export function fenceOps(ctx: NodeContext, proposer: Proposer): FenceOps {
  const log: Logger = ctx.logger;
  const sm = ctx.stateMachine;
  return {
    Write: {
      method: FENCE.Write,
      validate: (req) => validateFenceKey(req.key) ?? validateToken(req.fencingToken) ?? validateFenceValue(req.value),
      local: async (req, _call, deadline) => {
        try {
          const r = await proposer.write({ type: 'FenceWrite', key: req.key, value: req.value, token: req.fencingToken }, deadline);
          return { highestToken: r.highestToken };
        } catch (e) {
          if (e instanceof ApiError && e.code === grpc.status.FAILED_PRECONDITION)
            log.info({ event: 'stale fence write', key: req.key, token: req.fencingToken }, `fenced write to ${req.key} refused: ${e.message}`);
          throw e;
        }
      },
    },

    Read: {
      method: FENCE.Read,
      validate: (req) => validateFenceKey(req.key),
      local: async (req, _call, deadline) => {
        const v = await proposer.read(deadline, () => sm.fenceRead(req.key));
        return { value: Buffer.from(v.value), fencingToken: v.token };
      },
    },
  };
}

export function fenceHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer): FenceHandlers {
  const ops = fenceOps(ctx, proposer);
  // Fence.Delete is served once the state machine has it (next commits on this branch).
  const notYet: grpc.handleUnaryCall<unknown, never> = (_call, cb) => cb({ code: grpc.status.UNIMPLEMENTED, details: 'Fence.Delete is not implemented yet' }, null);
  return { Write: unary(deps, ops.Write), Read: unary(deps, ops.Read), Delete: notYet };
}
