// lockd.v1.Fence: the fenced store. Write refuses a token lower than the highest accepted for the
// key (FAILED_PRECONDITION naming that token, also in the lockd-highest-token trailer); Read is
// linearizable and answers an unknown key with an empty value and token 0 (not NOT_FOUND).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { lockdProto } from '../proto.js';
import type { FenceHandlers } from '../gen/lockd/v1/Fence.js';
import type { FenceWriteRequest__Output } from '../gen/lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse } from '../gen/lockd/v1/FenceWriteResponse.js';
import type { FenceReadRequest__Output } from '../gen/lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse } from '../gen/lockd/v1/FenceReadResponse.js';
import type { NodeContext } from '../node/lockd-node.js';
import { validateFenceKey, validateFenceValue, validateToken } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps } from './unary.js';

const FENCE = lockdProto.lockd.v1.Fence.service;

export function fenceHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer): FenceHandlers {
  const log: Logger = ctx.logger;
  const sm = ctx.stateMachine;
  return {
    Write: unary<FenceWriteRequest__Output, FenceWriteResponse>(deps, {
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
    }),

    Read: unary<FenceReadRequest__Output, FenceReadResponse>(deps, {
      method: FENCE.Read,
      validate: (req) => validateFenceKey(req.key),
      local: async (req, _call, deadline) => {
        const v = await proposer.read(deadline, () => sm.fenceRead(req.key));
        return { value: Buffer.from(v.value), fencingToken: v.token };
      },
    }),
  };
}
