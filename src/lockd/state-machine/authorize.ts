// Who may apply a client's command, decided at apply from the command's Authority and
// the replicated state, so every replica agrees. Runs after validation and before anything else
// (dedup included): a refusal changes nothing and answers PERMISSION_DENIED.
//  - Ownership, always: a lease is its granting principal's. Revoke, Acquire (a downgrade and a
//    Campaign included), CancelWait with a lease, Release (Resign) and Proclaim of a grant held under
//    the token given, and FenceWrite/FenceDelete with a live grant's token must come from that
//    principal or an admin. A name may have several holders (a semaphore, shared readers), and one
//    entry may grant several of them under one token: Release picks its holder by lease_id as
//    applyRelease does, and without one is allowed only if one of the candidates is the caller's. Without client certificates
//    everybody is 'anonymous' and owns every lease, so nothing changes.
//  - Rules, when the command says the leader enforces them (acl): Acquire/Release/CancelWait/Proclaim
//    need `lock` on the name, FenceWrite/FenceDelete `fence` on the key (and, naming a lock, `lock`
//    or `read` on it, as Inspect would), Grant `lock` on some prefix
//    (a lease has no name). Revoke needs ownership only (ending one's own lease only gives up).
//  - AclGrant/AclRevoke/QuotaSet: admins only, whether rules are enforced or not. SetPermits (it changes a
//    name for all its holders): admins only when rules are enforced, like Membership.
// Admin = the command says the leader's --admin names the principal, or an admin rule does.

import { leaseIsLive, liveLease } from './lease-live.js';
import type { Command } from './commands.js';
import type { Holder, MachineState } from './state.js';
import { ANONYMOUS, aclAllows, type AclVerb } from './acl-table.js';
import { failure, type Failure } from './results.js';

export function authorize(state: MachineState, cmd: Command): Failure | undefined {
  if (cmd.type === 'Tick') return undefined;
  const who = cmd.principal ?? ANONYMOUS;
  if (cmd.admin === true || state.acl.isAdmin(who)) return undefined;
  const deny = (message: string) => failure(cmd.type, 'PERMISSION_DENIED', message);
  const needs = (anyOf: readonly AclVerb[], name: string, what: string) =>
    cmd.acl === true && !aclAllows(state.acl, who, name, anyOf)
      ? deny(
          `${who} may not ${what} ${JSON.stringify(name)}: it needs ${anyOf.map((v) => `\`${v}\``).join(' or ')} on a prefix of that name, and the rules of its longest matching prefix grant no such verb`,
        )
      : undefined;
  const notOwner = (leaseId: number, what: string) => {
    const owner = liveLease(state, leaseId)?.owner; // a lease past its deadline: NOT_FOUND at apply
    return owner !== undefined && owner !== who ? deny(`${who} may not ${what} lease ${leaseId}: it was granted by another principal`) : undefined;
  };
  switch (cmd.type) {
    case 'Grant':
      return cmd.acl === true && !state.acl.holdsAnywhere(who, 'lock') ? deny(`${who} may not grant leases: it has \`lock\` on no prefix`) : undefined;
    case 'Revoke':
      return notOwner(cmd.leaseId, 'revoke');
    case 'Acquire':
      return needs(['lock'], cmd.name, 'acquire') ?? notOwner(cmd.leaseId, 'acquire with');
    case 'CancelWait':
      return needs(['lock'], cmd.name, 'cancel waits for') ?? notOwner(cmd.leaseId, 'cancel the waits of');
    case 'Release': {
      const byLease = cmd.leaseId || undefined;
      const candidates =
        state.locks
          .get(cmd.name)
          ?.holders.filter((h) => h.token === cmd.token && (byLease === undefined || h.leaseId === byLease) && leaseIsLive(state, h.leaseId)) ?? [];
      return (
        needs(['lock'], cmd.name, 'release') ??
        noneOwned(state, candidates, who, () =>
          deny(`${who} may not release a lock of lease ${candidates.map((h) => h.leaseId).join(', ')}: it was granted by another principal`),
        )
      );
    }
    case 'Proclaim': {
      const byLease = cmd.leaseId || undefined;
      const candidates =
        state.locks
          .get(cmd.name)
          ?.holders.filter((h) => h.token === cmd.token && (byLease === undefined || h.leaseId === byLease) && leaseIsLive(state, h.leaseId)) ?? [];
      return (
        needs(['lock'], cmd.name, 'proclaim on') ??
        noneOwned(state, candidates, who, () =>
          deny(`${who} may not proclaim for lease ${candidates.map((h) => h.leaseId).join(', ')}: it was granted by another principal`),
        )
      );
    }
    case 'SetPermits':
      return cmd.acl === true ? deny(`${who} may not set the permits of ${JSON.stringify(cmd.name)}: that needs \`admin\``) : undefined;
    case 'FenceWrite':
    case 'FenceDelete':
      return (
        needs(['fence'], cmd.key, cmd.type === 'FenceWrite' ? 'write fenced key' : 'delete fenced key') ??
        // Naming a lock is inspecting it: the answer says whether and under which token it is held.
        (cmd.lock ? needs(['lock', 'read'], cmd.lock, 'bind a fenced write to lock') : undefined) ??
        tokenNotOwned(state, cmd.token, cmd.lock || undefined, who, deny)
      );
    case 'AclGrant':
    case 'AclRevoke':
      return deny(`${who} may not change access rules: that needs \`admin\``);
    case 'QuotaSet':
      return deny(`${who} may not change quotas: that needs \`admin\``);
  }
}

/**
 * A fencing token names one grant (token.ts): a token held by live grants may be used only by the owner
 * of one of them (with `lock` named: of that lock's grant). A token no live grant holds (stale, or
 * made up) belongs to nobody; the fence rules decide (fence-commands.ts).
 */
function tokenNotOwned(state: MachineState, token: number, lock: string | undefined, who: string, deny: (m: string) => Failure): Failure | undefined {
  const names = lock !== undefined ? [lock] : state.grants.names(token);
  let held = false;
  for (const name of names) {
    for (const h of state.locks.get(name)?.holders ?? []) {
      if (h.token !== token || !leaseIsLive(state, h.leaseId)) continue;
      held = true;
      if (state.leases.get(h.leaseId)?.owner === who) return undefined;
    }
  }
  return held ? deny(`${who} may not write with fencing token ${token}: it is a grant of another principal's lease`) : undefined;
}

/** Refused unless no grant is among `candidates` or one of them is `who`'s lease. */
function noneOwned(state: MachineState, candidates: readonly Holder[], who: string, refuse: () => Failure): Failure | undefined {
  if (candidates.length === 0 || candidates.some((h) => state.leases.get(h.leaseId)?.owner === who)) return undefined;
  return refuse();
}
