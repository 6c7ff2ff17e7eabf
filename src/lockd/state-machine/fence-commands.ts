// FenceWrite and FenceDelete: the fenced store's commands (request ids: request-once.ts).
// Checks, in order (the first that fails answers; a refusal changes nothing):
//  1. the token was issued (by an entry below this one: token.ts)  INVALID_ARGUMENT
//  2. with `lock`: the token is a live exclusive grant of that lock FAILED_PRECONDITION (sequencer)
//  3. the token is >= the key's highest (value or tombstone)       FAILED_PRECONDITION (stale)
//  4. a write creating a key: floor (no lock), then quotas (cluster, lease, the caller's fence_keys)  FAILED_PRECONDITION / RESOURCE_EXHAUSTED

import { leaseIsLive } from './lease-live.js';
import type { ApplyContext } from './apply-context.js';
import type { FenceDeleteCommand, FenceWriteCommand } from './commands.js';
import type { MachineState } from './state.js';
import type { Failure, ResultFor } from './results.js';
import { failure } from './results.js';
import { MAX_FENCE_KEYS, MAX_FENCE_KEYS_PER_LEASE, MAX_FENCE_KEYS_UNOWNED } from './limits.js';
import { firstTokenOf, tokenIndex } from './token.js';
import { chargedPrincipal, fenceKeyQuotaFailure, quotasApply } from './quotas.js';

export function applyFenceWrite(state: MachineState, ctx: ApplyContext, cmd: FenceWriteCommand): ResultFor<'FenceWrite'> {
  const refused = checkToken(state, ctx, cmd);
  if (refused) return refused;
  const store = state.fence;
  let owner = 0;
  if (!store.has(cmd.key)) {
    const lock = cmd.lock || undefined;
    // A tombstone fences the key itself (checked above); with it forgotten, the floor stands in for
    // it. A lock-bound write needs neither: the lock check already refuses every ended grant.
    if (lock === undefined && !store.isTombstoned(cmd.key) && cmd.token < store.floor)
      return failure(
        'FenceWrite',
        'FAILED_PRECONDITION',
        `fencing token ${cmd.token} may not create ${cmd.key}: deleted keys up to token ${store.floor} were forgotten, so a write without a lock must carry a token >= ${store.floor} to create a key (or name its lock)`,
        store.floor,
      );
    if (store.size >= MAX_FENCE_KEYS)
      return failure(
        'FenceWrite',
        'RESOURCE_EXHAUSTED',
        `the fenced store already holds ${MAX_FENCE_KEYS} keys (the limit for the whole cluster); delete some first`,
      );
    owner = grantLease(state, cmd.token, lock);
    if (owner !== 0 && store.keysOf(owner) >= MAX_FENCE_KEYS_PER_LEASE)
      return failure(
        'FenceWrite',
        'RESOURCE_EXHAUSTED',
        `lease ${owner} already created ${MAX_FENCE_KEYS_PER_LEASE} fenced keys (the limit per lease); delete some first`,
      );
    if (owner === 0 && store.keysOf(0) >= MAX_FENCE_KEYS_UNOWNED)
      return failure(
        'FenceWrite',
        'RESOURCE_EXHAUSTED',
        `fencing token ${cmd.token} is no live grant's token, and writes with such tokens already created ${MAX_FENCE_KEYS_UNOWNED} keys (their shared limit)`,
      );
    const over = fenceKeyQuotaFailure(state, cmd);
    if (over) return over;
    if (quotasApply(cmd)) state.fenceCharges.charge(cmd.key, chargedPrincipal(cmd));
  }
  store.put(cmd.key, cmd.value, cmd.token, owner);
  return { type: 'FenceWrite', ok: true, highestToken: cmd.token };
}

export function applyFenceDelete(state: MachineState, ctx: ApplyContext, cmd: FenceDeleteCommand): ResultFor<'FenceDelete'> {
  const refused = checkToken(state, ctx, cmd);
  if (refused) return refused;
  const store = state.fence;
  if (!store.has(cmd.key)) return { type: 'FenceDelete', ok: true, deleted: false, highestToken: store.highest(cmd.key) ?? 0 };
  store.delete(cmd.key, cmd.token);
  state.fenceCharges.release(cmd.key);
  return { type: 'FenceDelete', ok: true, deleted: true, highestToken: cmd.token };
}

/** Checks 1–3, shared by writes and deletes. */
function checkToken(state: MachineState, ctx: ApplyContext, cmd: FenceWriteCommand | FenceDeleteCommand): Failure | undefined {
  // Every token ever issued was minted by an earlier entry, so it is below this entry's first token. A
  // larger one is made up, and accepting it would lock every real holder out of the key for good.
  if (cmd.token >= firstTokenOf(ctx.index))
    return failure(
      cmd.type,
      'INVALID_ARGUMENT',
      `fencing token ${cmd.token} was never issued (it would be granted by entry ${tokenIndex(cmd.token)}; the log is at ${ctx.index})`,
    );
  const name = cmd.lock || undefined;
  if (name !== undefined) {
    // A lock's holders are live leases, so a token among them is a live grant — exactly one: every
    // grant has a token of its own (token.ts), so a stale holder's token never matches a live one's.
    // A shared (read) grant does not write through the lock: only an exclusive holder (a mutex's, or
    // a semaphore's) does.
    const lock = state.locks.get(name);
    const mine = lock?.holders.filter((x) => x.token === cmd.token) ?? [];
    // Only grants restored from before tokens were per grant can share one: whose write this is is unknown.
    if (mine.length > 1)
      return failure(
        cmd.type,
        'FAILED_PRECONDITION',
        `fencing token ${cmd.token} of lock ${name} is held by leases ${mine.map((x) => x.leaseId).join(', ')} (granted before tokens were per grant): re-acquire the lock for a token of its own`,
      );
    const h = mine[0];
    if (!h)
      return failure(
        cmd.type,
        'FAILED_PRECONDITION',
        `fencing token ${cmd.token} is not the current grant of lock ${name}: ${lock?.holders.length ? `it is held under token ${lock.holders.map((x) => x.token).join(', ')}` : 'it is not held'}`,
      );
    if (h.shared)
      return failure(
        cmd.type,
        'FAILED_PRECONDITION',
        `fencing token ${cmd.token} is a shared (read) grant of lock ${name}: only its exclusive holder may write through it`,
      );
  }
  const highest = state.fence.highest(cmd.key);
  if (highest !== undefined && cmd.token < highest) {
    const by = state.fence.has(cmd.key) ? 'a write' : 'a delete';
    return failure(
      cmd.type,
      'FAILED_PRECONDITION',
      `stale fencing token ${cmd.token} for ${cmd.key}: ${by} with token ${highest} was already accepted`,
      highest,
    );
  }
  return undefined;
}

/**
 * The live lease whose grant holds `token`, or 0. With the lock named (and checked) it is that lock's
 * holder under `token`. Otherwise the grants held under `token` (state.grants, not a scan of the lock
 * table: this runs in the apply loop). A token is unique per lock, but one entry can hand several
 * locks on (a lease's end) with the same ordinal, so grants of different locks may share a token: the lowest lease id among them is charged,
 * whatever order they are kept in (a replica restored from a snapshot rebuilds them in another).
 * Tokens are not credentials: whoever presents one spends that lease's quota, as they could write
 * over its keys (with --client-cert-auth only the owner's principal may).
 */
function grantLease(state: MachineState, token: number, lock: string | undefined): number {
  let owner = 0;
  for (const name of lock !== undefined ? [lock] : state.grants.names(token))
    for (const h of state.locks.get(name)?.holders ?? [])
      if (h.token === token && leaseIsLive(state, h.leaseId) && (owner === 0 || h.leaseId < owner)) owner = h.leaseId;
  return owner;
}
