// lockd.v1.Auth SetQuota and GetQuota: per-principal quotas (state-machine/quotas.ts) as log
// entries. SetQuota is an admin's (checked here before proposing, and at apply from the command's
// authority), proposed only once every member applies quotas alike (the cluster version); GetQuota
// answers an admin, or a principal about itself, from a linearizable read on the leader.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { AuthSetQuotaRequest__Output } from '../../proto/gen/lockd/v1/AuthSetQuotaRequest.js';
import type { AuthGetQuotaRequest__Output } from '../../proto/gen/lockd/v1/AuthGetQuotaRequest.js';
import type { AuthQuotaResponse } from '../../proto/gen/lockd/v1/AuthQuotaResponse.js';
import type { NodeContext } from '../node/node-context.js';
import {
  QUOTA_KEYS,
  QUOTA_NAMES,
  validatePrincipal,
  validateQuotaValue,
  validateRequestId,
  type Problem,
  type QuotaKey,
  type QuotaOverrides,
  type Quotas,
} from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import { denied } from './access.js';
import type { Proposer } from './proposer.js';
import type { UnarySpec } from './unary.js';

const AUTH = lockdProto.lockd.v1.Auth.service;
const BY_NAME = new Map<string, QuotaKey>(QUOTA_KEYS.map((k) => [QUOTA_NAMES[k], k]));
const invalid = (message: string): Problem => ({ error: 'INVALID_ARGUMENT', message });

function setProblem(req: AuthSetQuotaRequest__Output): Problem | undefined {
  const p = validatePrincipal(req.principal);
  if (p) return p;
  if (req.set.length === 0 && !req.reset) return invalid('name at least one quota to set (leases, locks, dedup_ids, election_bytes, fence_keys), or reset');
  const seen = new Set<string>();
  for (const v of req.set) {
    if (!BY_NAME.has(v.name))
      return invalid(`unknown quota ${JSON.stringify(v.name.slice(0, 64))}: the quotas are ${QUOTA_KEYS.map((k) => QUOTA_NAMES[k]).join(', ')}`);
    if (seen.has(v.name)) return invalid(`quota ${v.name} is named twice`);
    seen.add(v.name);
    const q = validateQuotaValue(v.name, v.value);
    if (q) return q;
  }
  return validateRequestId(req.requestId);
}

function answer(principal: string, limits: Quotas, used: Quotas, overrides: QuotaOverrides): AuthQuotaResponse {
  return { principal, quotas: QUOTA_KEYS.map((k) => ({ name: QUOTA_NAMES[k], limit: limits[k], used: used[k], isDefault: overrides[k] === undefined })) };
}

export function quotaOps(
  ctx: NodeContext,
  proposer: Proposer,
): { SetQuota: UnarySpec<AuthSetQuotaRequest__Output, AuthQuotaResponse>; GetQuota: UnarySpec<AuthGetQuotaRequest__Output, AuthQuotaResponse> } {
  const access = ctx.access;
  const sm = ctx.stateMachine;
  const state = (principal: string) =>
    answer(principal, sm.quotaOf(principal), sm.quotaUsage(principal), sm.quotaOverrides().find(([p]) => p === principal)?.[1] ?? {});
  return {
    SetQuota: {
      method: AUTH.SetQuota,
      validate: setProblem,
      onLeader: async (req, caller, deadline) => {
        const why = access.adminDenial(caller.principal, 'change quotas');
        if (why) throw denied(why);
        if (!access.quotasOn())
          throw new ApiError(
            grpc.status.FAILED_PRECONDITION,
            'quotas are not in use yet: a member runs a lockd without them, or has not been heard from (lockctl status: CLUSTER version)',
          );
        const values: Partial<Record<QuotaKey, number>> = {};
        for (const v of req.set) values[BY_NAME.get(v.name)!] = v.value;
        const cmd = {
          type: 'QuotaSet',
          subject: req.principal,
          ...values,
          ...(req.reset ? { reset: true } : {}),
          requestId: req.requestId || undefined,
          ...access.authority(caller.principal),
        } as const;
        await proposer.write(cmd, deadline);
        ctx.logger.info(
          { event: 'quota set', subject: req.principal, set: values, reset: req.reset, by: caller.principal },
          `${caller.principal}: quotas of ${req.principal}${req.reset ? ' reset' : ''} ${JSON.stringify(values)}`,
        );
        return proposer.read(deadline, () => state(req.principal));
      },
    },
    GetQuota: {
      method: AUTH.GetQuota,
      validate: (req) => validatePrincipal(req.principal),
      onLeader: async (req, caller, deadline) => {
        if (req.principal !== caller.principal) {
          const why = access.adminDenial(caller.principal, `read the quotas of ${req.principal.slice(0, 64)}`);
          if (why) throw denied(why);
        }
        return proposer.read(deadline, () => state(req.principal));
      },
    },
  };
}
