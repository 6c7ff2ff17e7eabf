// FenceWrite: the fenced store's only command.

import type { ApplyContext } from './apply-context.js';
import type { FenceWriteCommand } from './commands.js';
import type { MachineState } from './state.js';
import type { ResultFor } from './results.js';
import { failure } from './results.js';
import { MAX_FENCE_KEYS } from './limits.js';

export function applyFenceWrite(state: MachineState, ctx: ApplyContext, cmd: FenceWriteCommand): ResultFor<'FenceWrite'> {
  // Every token ever issued is the index of an earlier entry. A larger one is made up, and accepting it
  // would lock every real holder out of the key for good.
  if (cmd.token >= ctx.index)
    return failure('FenceWrite', 'INVALID_ARGUMENT', `fencing token ${cmd.token} was never issued (log is at ${ctx.index})`);
  if (!state.fence.has(cmd.key) && state.fence.size >= MAX_FENCE_KEYS)
    return failure('FenceWrite', 'RESOURCE_EXHAUSTED', `the fenced store already holds ${MAX_FENCE_KEYS} keys`);
  const r = state.fence.write(cmd.key, cmd.value, cmd.token);
  if (!r.accepted)
    return failure(
      'FenceWrite',
      'FAILED_PRECONDITION',
      `stale fencing token ${cmd.token} for ${cmd.key}: a write with token ${r.highestToken} was already accepted`,
      r.highestToken,
    );
  return { type: 'FenceWrite', ok: true, highestToken: r.highestToken };
}
