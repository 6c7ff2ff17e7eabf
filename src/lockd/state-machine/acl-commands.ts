// AclGrant and AclRevoke: access rules as log entries, so every replica enforces the same rules and
// snapshots carry them (acl-table.ts; who may apply them: authorize.ts; request ids: request-once.ts).

import type { AclGrantCommand, AclRevokeCommand } from './commands.js';
import type { MachineState } from './state.js';
import type { ResultFor } from './results.js';
import { failure } from './results.js';
import { MAX_ACL_RULES, MAX_ACL_RULES_PER_PRINCIPAL } from './limits.js';

export function applyAclGrant(state: MachineState, cmd: AclGrantCommand): ResultFor<'AclGrant'> {
  const rule = { principal: cmd.subject, prefix: cmd.prefix, verb: cmd.verb };
  if (state.acl.has(rule)) return { type: 'AclGrant', ok: true, created: false };
  if (state.acl.size >= MAX_ACL_RULES) return failure('AclGrant', 'RESOURCE_EXHAUSTED', `${MAX_ACL_RULES} access rules exist (the limit for the cluster); revoke some first`);
  if (state.acl.sizeOf(cmd.subject) >= MAX_ACL_RULES_PER_PRINCIPAL)
    return failure('AclGrant', 'RESOURCE_EXHAUSTED', `${cmd.subject} already has ${MAX_ACL_RULES_PER_PRINCIPAL} access rules (the limit per principal)`);
  state.acl.add(rule);
  return { type: 'AclGrant', ok: true, created: true };
}

export function applyAclRevoke(state: MachineState, cmd: AclRevokeCommand): ResultFor<'AclRevoke'> {
  return { type: 'AclRevoke', ok: true, removed: state.acl.delete({ principal: cmd.subject, prefix: cmd.prefix, verb: cmd.verb }) };
}
