// AclGrant and AclRevoke: access rules as log entries, so every replica enforces the same rules and
// snapshots carry them (acl-table.ts; who may apply them: authorize.ts; request ids: request-once.ts).
// A rule change with rules enforced also ends the subject's waits it may no longer make (endForbiddenWaits).

import type { AclGrantCommand, AclRevokeCommand } from './commands.js';
import type { MachineState } from './state.js';
import type { ResultFor } from './results.js';
import { failure } from './results.js';
import { MAX_ACL_RULES, MAX_ACL_RULES_PER_PRINCIPAL } from './limits.js';
import type { ApplyContext } from './apply-context.js';
import { aclAllows } from './acl-table.js';
import { removeWaiter } from './lock-transitions.js';
import { check } from './invariant-error.js';
import { sortedNames } from './order.js';

export function applyAclGrant(state: MachineState, ctx: ApplyContext, cmd: AclGrantCommand): ResultFor<'AclGrant'> {
  const rule = { principal: cmd.subject, prefix: cmd.prefix, verb: cmd.verb };
  if (state.acl.has(rule)) return { type: 'AclGrant', ok: true, created: false };
  if (state.acl.size >= MAX_ACL_RULES)
    return failure('AclGrant', 'RESOURCE_EXHAUSTED', `${MAX_ACL_RULES} access rules exist (the limit for the cluster); revoke some first`);
  if (state.acl.sizeOf(cmd.subject) >= MAX_ACL_RULES_PER_PRINCIPAL)
    return failure('AclGrant', 'RESOURCE_EXHAUSTED', `${cmd.subject} already has ${MAX_ACL_RULES_PER_PRINCIPAL} access rules (the limit per principal)`);
  state.acl.add(rule);
  // The longest prefix wins, so a grant can take a verb away: `read` on "shared/secret/" ends `lock` there.
  if (cmd.acl === true) endForbiddenWaits(state, ctx, cmd.subject);
  return { type: 'AclGrant', ok: true, created: true };
}

export function applyAclRevoke(state: MachineState, ctx: ApplyContext, cmd: AclRevokeCommand): ResultFor<'AclRevoke'> {
  const removed = state.acl.delete({ principal: cmd.subject, prefix: cmd.prefix, verb: cmd.verb });
  if (removed && cmd.acl === true) endForbiddenWaits(state, ctx, cmd.subject);
  return { type: 'AclRevoke', ok: true, removed };
}

/**
 * With rules enforced, a rule change (a revoke, or a grant on a longer prefix) ends the subject's
 * waits it may no longer make: a queued Acquire was authorized when it was applied, and would
 * otherwise be granted by a later entry (a release) with no check at all — a write under the old
 * rules landing after the change. The wait ends as WAIT_CANCELLED, so the waiting call re-queues and
 * its Acquire is refused (PERMISSION_DENIED). Locks already held stay held (the holder was allowed
 * to take them); revoke its leases to take them. Worked example: alice waits for shared/x and
 * shared/open/y; revoking `lock` on shared/ ends her wait for shared/x, and her `lock` on
 * shared/open/ keeps the other. Costs a pass over the leases: rule changes are an admin's, and rare.
 */
function endForbiddenWaits(state: MachineState, ctx: ApplyContext, subject: string): void {
  if (state.acl.isAdmin(subject)) return;
  // Leases by id and names sorted: the events come in the same order on every replica.
  const leases = [...state.leases.values()].filter((l) => l.owner === subject && l.waiting.size > 0).sort((a, b) => a.id - b.id);
  for (const lease of leases) {
    for (const name of sortedNames(lease.waiting)) {
      if (aclAllows(state.acl, subject, name, ['lock'])) continue;
      const lock = state.locks.get(name);
      check(lock, 'waits-on-held-locks', () => `lease ${lease.id} waits on ${name}, which is not held`);
      removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED');
    }
  }
}
