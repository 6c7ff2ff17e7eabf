// QuotaSet: an admin changes a principal's quotas (quotas.ts), as a log entry so every replica
// enforces the same ones and snapshots carry them (who may: authorize.ts; request ids: request-once.ts).
// A lowered quota takes nothing away: what the principal holds stays, new leases, locks and ids are
// refused until it is under the quota again (a dedup window shrinks at the principal's next id).

import type { QuotaSetCommand } from './commands.js';
import type { MachineState } from './state.js';
import type { ApplyContext } from './apply-context.js';
import type { ResultFor } from './results.js';
import { failure } from './results.js';
import { MAX_QUOTA_PRINCIPALS } from './limits.js';
import { QUOTA_KEYS, type QuotaKey } from './quotas.js';

export function applyQuotaSet(state: MachineState, _ctx: ApplyContext, cmd: QuotaSetCommand): ResultFor<'QuotaSet'> {
  const next: Partial<Record<QuotaKey, number>> = cmd.reset === true ? {} : { ...state.quotas.overridesOf(cmd.subject) };
  for (const k of QUOTA_KEYS) if (cmd[k] !== undefined) next[k] = cmd[k];
  if (!state.quotas.has(cmd.subject) && Object.keys(next).length > 0 && state.quotas.size >= MAX_QUOTA_PRINCIPALS)
    return failure('QuotaSet', 'RESOURCE_EXHAUSTED', `${MAX_QUOTA_PRINCIPALS} principals have quotas set (the limit for the cluster); reset some first`);
  state.quotas.set(cmd.subject, next);
  return { type: 'QuotaSet', ok: true, quotas: state.quotas.of(cmd.subject) };
}
