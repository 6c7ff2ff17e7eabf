// Request ids for Revoke, Release, CancelWait, FenceWrite, FenceDelete, SetPermits, AclGrant/AclRevoke and QuotaSet (Grant and Acquire keep
// theirs in their own commands). A call can land after its own retry — bytes held in a network, a
// paused forwarding follower — so the second landing must not apply again: e.g. a Fence.Write retried
// after a timeout, then a later write, then the first attempt arriving would overwrite the later
// write. With a request id the first outcome is recorded and every later attempt is answered from it
// without touching the state. What a replay answers is still true when it is answered:
//  - Release/Revoke: "this request released grant T / ended lease L" (tokens and lease ids are never
//    reused, so it stays true);
//  - CancelWait: removed/released as done by the first attempt; heldToken re-read now;
//  - SetPermits: "this request changed permits from P to N" (a refusal is not recorded);
//  - FenceWrite/FenceDelete: "accepted" or the refusal (the value may have been overwritten since by
//    a later write — that is the point).
// A record forgotten by the FIFO (DEDUP_CAPACITY) makes the attempt a new call.

import type { ApplyContext } from './apply-context.js';
import type {
  AclGrantCommand,
  AclRevokeCommand,
  QuotaSetCommand,
  CancelWaitCommand,
  FenceDeleteCommand,
  FenceWriteCommand,
  ReleaseCommand,
  RevokeCommand,
  SetPermitsCommand,
} from './commands.js';
import type { DedupRecord, FenceRecord } from './dedup.js';
import type { MachineState } from './state.js';
import type { ResultFor } from './results.js';
import { failure } from './results.js';
import { digest64 } from './bytes.js';
import { holderOf } from './lock-transitions.js';
import { dedupCharge, quotaSpec } from './quotas.js';

export type OnceCommand =
  | RevokeCommand
  | ReleaseCommand
  | CancelWaitCommand
  | FenceWriteCommand
  | FenceDeleteCommand
  | SetPermitsCommand
  | AclGrantCommand
  | AclRevokeCommand
  | QuotaSetCommand;

/** Apply `cmd` at most once per request id: `apply` runs only for a new id (or none). */
export function applyOnce<C extends OnceCommand>(
  state: MachineState,
  ctx: ApplyContext,
  cmd: C,
  apply: (state: MachineState, ctx: ApplyContext, cmd: C) => ResultFor<C['type']>,
): ResultFor<C['type']> {
  const rid = cmd.requestId || undefined;
  if (rid === undefined) return apply(state, ctx, cmd);
  const rec = state.dedup.get(rid);
  if (rec) {
    const answer = replay(state, cmd, rec);
    return (answer ?? failure(cmd.type, 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`)) as ResultFor<C['type']>;
  }
  const r = apply(state, ctx, cmd);
  const next = record(cmd, r);
  if (next) state.dedup.add(rid, next, dedupCharge(state, cmd));
  return r;
}

/** The record of a first outcome worth remembering, or undefined (not recorded: a retry re-applies). */
function record(cmd: OnceCommand, r: ResultFor<OnceCommand['type']>): DedupRecord | undefined {
  switch (cmd.type) {
    case 'Revoke':
      // A refusal (NOT_FOUND) is not recorded: the lease stays gone, a retry answers the same.
      return r.ok ? { type: 'Revoke', leaseId: cmd.leaseId } : undefined;
    case 'Release':
      return r.ok && r.type === 'Release' ? { type: 'Release', name: cmd.name, token: cmd.token, leaseId: cmd.leaseId ?? 0, released: r.released } : undefined;
    case 'SetPermits':
      return r.ok && r.type === 'SetPermits'
        ? { type: 'SetPermits', name: cmd.name, permits: cmd.permits, previous: r.previous, granted: r.granted }
        : undefined;
    case 'CancelWait':
      return r.ok && r.type === 'CancelWait'
        ? {
            type: 'CancelWait',
            name: cmd.name,
            leaseId: cmd.leaseId,
            abandonedAtIndex: cmd.abandonedAtIndex ?? 0,
            removed: r.removed,
            released: r.released,
            heldToken: r.heldToken,
          }
        : undefined;
    case 'FenceWrite':
    case 'FenceDelete': {
      const base = { type: cmd.type, ...fenceShape(cmd) };
      if (!r.ok) return { ...base, error: r.error, message: r.message, highestToken: r.highestToken ?? 0, deleted: false };
      return { ...base, message: '', highestToken: 'highestToken' in r ? r.highestToken : 0, deleted: r.type === 'FenceDelete' && r.deleted };
    }
    case 'AclGrant':
    case 'AclRevoke':
      // A refusal (quota) is not recorded: a retry tries again.
      if (!r.ok) return undefined;
      return {
        type: cmd.type,
        subject: cmd.subject,
        prefix: cmd.prefix,
        verb: cmd.verb,
        changed: r.type === 'AclGrant' ? r.created : r.type === 'AclRevoke' && r.removed,
      };
    case 'QuotaSet':
      // A refusal (too many principals with quotas) is not recorded: a retry tries again.
      return r.ok ? { type: 'QuotaSet', subject: cmd.subject, spec: quotaSpec(cmd) } : undefined;
  }
}

/** The answer to a repeated id, or undefined when the id was used for a different request. */
function replay(state: MachineState, cmd: OnceCommand, rec: DedupRecord): ResultFor<OnceCommand['type']> | undefined {
  switch (cmd.type) {
    case 'Revoke':
      if (rec.type !== 'Revoke' || rec.leaseId !== cmd.leaseId) return undefined;
      // This entry released nothing: the first attempt did.
      return { type: 'Revoke', ok: true, leaseId: cmd.leaseId, releasedLocks: [] };
    case 'Release':
      if (rec.type !== 'Release' || rec.name !== cmd.name || rec.token !== cmd.token || rec.leaseId !== (cmd.leaseId ?? 0)) return undefined;
      return { type: 'Release', ok: true, released: rec.released };
    case 'SetPermits':
      if (rec.type !== 'SetPermits' || rec.name !== cmd.name || rec.permits !== cmd.permits) return undefined;
      return { type: 'SetPermits', ok: true, previous: rec.previous, permits: rec.permits, granted: rec.granted };
    case 'CancelWait': {
      if (rec.type !== 'CancelWait' || rec.name !== cmd.name || rec.leaseId !== cmd.leaseId || rec.abandonedAtIndex !== (cmd.abandonedAtIndex ?? 0))
        return undefined;
      // heldToken answers "does the lease hold the lock", so it is read now (a cleanup reports 0
      // unless it released the grant itself, as applyCancelWait does).
      const held = holderOf(state.locks.get(cmd.name), cmd.leaseId);
      const heldToken = rec.released ? rec.heldToken : rec.abandonedAtIndex === 0 && held ? held.token : 0;
      return { type: 'CancelWait', ok: true, removed: rec.removed, heldToken, released: rec.released };
    }
    case 'FenceWrite':
    case 'FenceDelete': {
      if (rec.type !== cmd.type || !sameFence(rec, fenceShape(cmd))) return undefined;
      if (rec.error !== undefined)
        return failure(cmd.type, rec.error, `${rec.message} (the answer to this request_id's first attempt)`, rec.highestToken || undefined);
      return cmd.type === 'FenceWrite'
        ? { type: 'FenceWrite', ok: true, highestToken: rec.highestToken }
        : { type: 'FenceDelete', ok: true, deleted: rec.deleted, highestToken: rec.highestToken };
    }
    case 'AclGrant':
    case 'AclRevoke':
      if (rec.type !== cmd.type || rec.subject !== cmd.subject || rec.prefix !== cmd.prefix || rec.verb !== cmd.verb) return undefined;
      return cmd.type === 'AclGrant' ? { type: 'AclGrant', ok: true, created: rec.changed } : { type: 'AclRevoke', ok: true, removed: rec.changed };
    case 'QuotaSet':
      if (rec.type !== 'QuotaSet' || rec.subject !== cmd.subject || rec.spec !== quotaSpec(cmd)) return undefined;
      // What is in force now (a later change may have replaced what this request set: that is the point).
      return { type: 'QuotaSet', ok: true, quotas: state.quotas.of(cmd.subject) };
  }
}

function fenceShape(cmd: FenceWriteCommand | FenceDeleteCommand): Pick<FenceRecord, 'key' | 'token' | 'lock' | 'digest'> {
  const digest = cmd.type === 'FenceWrite' ? `${cmd.value.byteLength}:${digest64(cmd.value)}` : '';
  return { key: cmd.key, token: cmd.token, lock: cmd.lock ?? '', digest };
}

function sameFence(a: Pick<FenceRecord, 'key' | 'token' | 'lock' | 'digest'>, b: Pick<FenceRecord, 'key' | 'token' | 'lock' | 'digest'>): boolean {
  return a.key === b.key && a.token === b.token && a.lock === b.lock && a.digest === b.digest;
}
