// Acquire, Release, CancelWait and SetPermits: create-if-absent with fencing
// tokens (one per grant: token.ts), compare-and-delete, and a FIFO wait queue granted by the entry that makes room — for
// mutexes, semaphores (permits) and read-write locks (shared) alike (lock-transitions.ts `fits`).

import { liveLease } from './lease-live.js';
import type { ApplyContext } from './apply-context.js';
import type { AcquireCommand, CancelWaitCommand, ProclaimCommand, ReleaseCommand, SetPermitsCommand } from './commands.js';
import type { AcquireRecord } from './dedup.js';
import type { Ask, Holder, LeaseRecord, LockRecord, MachineState, Waiter } from './state.js';
import type { AcquireResult, Failure, ResultFor } from './results.js';
import { failure } from './results.js';
import { createLock, firstHolder, fits, grantNow, grantWaiters, holderOf, releaseHolder, removeWaiter, takeBackGrant } from './lock-transitions.js';
import { check } from './invariant-error.js';
import { MAX_LOCKS, MAX_LOCKS_PER_LEASE, MAX_WAITERS_PER_LOCK } from './limits.js';
import { dedupCharge, electionBytesFailure, lockQuotaFailure } from './quotas.js';
import { utf8ByteLength } from './bytes.js';

type Outcome = Omit<AcquireResult, 'type' | 'ok' | 'duplicate' | 'delayRemainingMs'>;

export function applyAcquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand): ResultFor<'Acquire'> {
  const rid = cmd.requestId || undefined;
  if (rid !== undefined) {
    const rec = state.dedup.get(rid);
    if (rec) {
      if (rec.type !== 'Acquire' || rec.name !== cmd.name || rec.leaseId !== cmd.leaseId || rec.wait !== cmd.wait || !sameRecipe(rec, cmd))
        return failure('Acquire', 'INVALID_ARGUMENT', `request_id ${rid} was already used for a different request`);
      const now = replay(state, ctx, rid, rec);
      return now.ok
        ? { type: 'Acquire', ok: true, ...now.outcome, delayRemainingMs: delayOf(state, cmd.name, now.outcome.status), duplicate: true }
        : now.failure;
    }
  }
  const r = acquire(state, ctx, cmd, rid);
  if (r.ok && rid !== undefined) {
    check(r.status !== 'ended', 'acquire-status', () => `a first Acquire answered ${r.status}`);
    state.dedup.add(
      rid,
      {
        type: 'Acquire',
        name: cmd.name,
        leaseId: cmd.leaseId,
        wait: cmd.wait,
        ...recipeOf(cmd),
        status: r.status,
        token: r.token,
        holderLeaseId: r.holderLeaseId,
        holderToken: r.holderToken,
      },
      dedupCharge(state, cmd),
    );
  }
  return r;
}

/** What is left of a lock-delay that kept this Acquire from a grant (0 when acquired or none runs). */
function delayOf(state: MachineState, name: string, status: AcquireResult['status']): number {
  const until = state.locks.get(name)?.delayUntil ?? 0;
  return status === 'acquired' || until === 0 ? 0 : until - state.now;
}

/** An Acquire's recipe fields, normalised (0/absent permits = 1, absent = mutex defaults). */
function recipeOf(cmd: AcquireCommand): { permits: number; shared: boolean; lockDelayMs: number; value: string } {
  return { permits: Math.max(1, cmd.permits ?? 1), shared: cmd.shared ?? false, lockDelayMs: cmd.lockDelayMs ?? 0, value: cmd.value ?? '' };
}

function sameRecipe(rec: AcquireRecord, cmd: AcquireCommand): boolean {
  const r = recipeOf(cmd);
  return rec.permits === r.permits && rec.shared === r.shared && rec.lockDelayMs === r.lockDelayMs && rec.value === r.value;
}

/**
 * A retry answered with what is true now about its request (docs/lessons.md 11), never a second grant:
 *  - granted, and the grant (name, token) still holds → acquired (re-asserted: see lastAcquireIndex);
 *  - granted, and it has ended → 'ended' with that token and the current holder; its lease gone → NOT_FOUND;
 *  - a wait still open (records of open waits are kept true: lock-transitions.ts) → queued, current place;
 *  - a try-lock that got nothing → not acquired, the holder now. It never takes or queues afresh: its
 *    first answer was delivered or not, and a late duplicate must not leave an orphan lock behind.
 * Worked example: A acquires rp with R1 (token 5), releases it; B acquires rp (token 7); A retries R1
 * → ended, endedToken 5, holder B / 7.
 */
function replay(state: MachineState, ctx: ApplyContext, rid: string, rec: AcquireRecord): { ok: true; outcome: Outcome } | { ok: false; failure: Failure } {
  const lock = state.locks.get(rec.name);
  const lease = liveLease(state, rec.leaseId);
  if (!lease) {
    const ended = rec.status === 'acquired' ? `; the grant of ${rec.name} (token ${rec.token}) made for request_id ${rid} ended with it` : '';
    return { ok: false, failure: failure('Acquire', 'NOT_FOUND', `lease ${rec.leaseId} not found (expired, revoked or never granted)${ended}`) };
  }
  const now = { ...firstHolder(lock), position: 0, endedToken: 0, shared: false };
  const answer = (o: Partial<Outcome> & Pick<Outcome, 'status'>) => ({ ok: true as const, outcome: { token: 0, ...now, ...o } });
  if (rec.status === 'acquired') {
    const h = holderOf(lock, rec.leaseId);
    if (h?.token !== rec.token) return answer({ status: 'ended', endedToken: rec.token });
    reassertGrant(h, ctx, rec.wait, rid);
    return answer({ status: 'acquired', token: h.token, shared: h.shared, holderLeaseId: h.leaseId, holderToken: h.token });
  }
  const i = lock ? lock.waiters.findIndex((w) => w.leaseId === rec.leaseId) : -1;
  if (rec.wait) {
    check(lock && i >= 0, 'dedup-open-waits', () => `request ${rid} is recorded queued for ${rec.name}, but lease ${rec.leaseId} does not wait for it`);
    markWaiter(lock.waiters[i], ctx, rid);
    return answer({ status: 'queued', position: i + 1 });
  }
  return i >= 0 ? answer({ status: 'queued', position: i + 1 }) : answer({ status: 'held' });
}

/** Answering the lease's grant hands it to this call too: a cleanup for an earlier, abandoned call must leave it alone. */
function reassertGrant(h: Holder, ctx: ApplyContext, wait: boolean, rid: string | undefined): void {
  h.lastAcquireIndex = ctx.index;
  h.lastAcquireWait = wait;
  if (rid === undefined) delete h.lastAcquireRequestId;
  else h.lastAcquireRequestId = rid;
}

/** The same for a queue place: a waiting call (re)asserts it. */
function markWaiter(w: Waiter, ctx: ApplyContext, rid: string | undefined): void {
  w.lastAcquireIndex = ctx.index;
  if (rid === undefined) delete w.lastAcquireRequestId;
  else w.lastAcquireRequestId = rid;
}

/** An Acquire's success answer: `o` with the name's running lock-delay. */
function acquireOk(state: MachineState, cmd: AcquireCommand, o: Omit<Outcome, 'endedToken' | 'shared'> & { shared?: boolean }): AcquireResult {
  return {
    type: 'Acquire',
    ok: true,
    shared: false,
    ...o,
    endedToken: 0,
    delayRemainingMs: delayOf(state, cmd.name, o.status),
    duplicate: false,
  };
}

/** The answer for a grant this lease now holds. */
function acquiredBy(state: MachineState, cmd: AcquireCommand, lease: LeaseRecord, h: Holder): AcquireResult {
  return acquireOk(state, cmd, { status: 'acquired', token: h.token, shared: h.shared, holderLeaseId: lease.id, holderToken: h.token, position: 0 });
}

function acquire(state: MachineState, ctx: ApplyContext, cmd: AcquireCommand, rid: string | undefined): ResultFor<'Acquire'> {
  const election = cmd.election === true;
  // Grant-time validity (docs/lessons.md 3): the lease must be live at this log position.
  const lease = liveLease(state, cmd.leaseId);
  if (!lease) return failure('Acquire', 'NOT_FOUND', `lease ${cmd.leaseId} not found (expired, revoked or never granted)`);
  const { permits, shared, lockDelayMs, value } = recipeOf(cmd);
  const ask: Ask = { shared, lockDelayMs, value };
  const lock = state.locks.get(cmd.name);
  if (!lock) return acquireNewLock(state, ctx, cmd, rid, lease, permits, ask, election);
  // A lock under a lock-delay with nobody holding or waiting has nobody to disagree with: the first
  // waiter then sets its permits (enqueue).
  const idle = lock.holders.length === 0 && lock.waiters.length === 0;
  const disagrees = idle ? undefined : disagreement(cmd, lock, permits, election);
  if (disagrees) return disagrees;
  // Answering the lease's existing grant or queue place hands it to this call too: record that, so a
  // cleanup for an earlier, abandoned call leaves it alone. A try-lock answered 'queued' does not wait.
  const mine = holderOf(lock, lease.id);
  if (mine) return answerOwnGrant(state, ctx, cmd, rid, lease, lock, mine, shared);
  const i = lock.waiters.findIndex((w) => w.leaseId === lease.id);
  if (i >= 0) return answerOwnWait(state, ctx, cmd, rid, lease, lock, i, shared);
  // FIFO: with anyone waiting, a newcomer queues behind them even if it would fit now.
  if (lock.waiters.length === 0 && fits(lock, ask)) {
    const full = noRoom(state, cmd, lease);
    if (full) return full;
    return acquiredBy(state, cmd, lease, grantNow(state, ctx, lock, lease, ask, cmd.wait, rid));
  }
  if (!cmd.wait) return acquireOk(state, cmd, { status: 'held', token: 0, ...firstHolder(lock), position: 0 });
  return enqueue(state, ctx, cmd, rid, lease, lock, idle, permits, ask, election);
}

/** A name nobody holds or waits on: the lock is created with this lease its first holder. */
function acquireNewLock(
  state: MachineState,
  ctx: ApplyContext,
  cmd: AcquireCommand,
  rid: string | undefined,
  lease: LeaseRecord,
  permits: number,
  ask: Ask,
  election: boolean,
): ResultFor<'Acquire'> {
  const full = noRoom(state, cmd, lease);
  if (full) return full;
  if (state.locks.size >= MAX_LOCKS) return failure('Acquire', 'RESOURCE_EXHAUSTED', `${MAX_LOCKS} locks are held`);
  return acquiredBy(state, cmd, lease, createLock(state, ctx, cmd.name, permits, lease, ask, cmd.wait, rid, election));
}

/** Why this Acquire cannot join a name others hold or wait on: another kind, or other permits. */
function disagreement(cmd: AcquireCommand, lock: LockRecord, permits: number, election: boolean): Failure | undefined {
  // One leader per election: only campaigns (exclusive, permits 1) ever join an election, and a
  // campaign never joins a lock, whose holders could be shared or many.
  if (lock.election !== election) return kindFailure(cmd.name, lock);
  if (lock.permits !== permits)
    return failure(
      'Acquire',
      'FAILED_PRECONDITION',
      `${cmd.name} has permits ${lock.permits}, this Acquire asks for permits ${permits}: everyone holding or waiting on a name must agree (0 and 1 both mean a mutex)`,
    );
  return undefined;
}

/** The lease already holds the name: answered with its grant (downgraded if this call asks shared). */
function answerOwnGrant(
  state: MachineState,
  ctx: ApplyContext,
  cmd: AcquireCommand,
  rid: string | undefined,
  lease: LeaseRecord,
  lock: LockRecord,
  mine: Holder,
  shared: boolean,
): ResultFor<'Acquire'> {
  // Upgrading would deadlock two readers that both try it (each waits for the other to leave).
  if (mine.shared && !shared)
    return failure(
      'Acquire',
      'FAILED_PRECONDITION',
      `lease ${lease.id} holds ${cmd.name} shared; upgrading to exclusive is refused (two readers upgrading would wait for each other forever): release it and acquire exclusive`,
    );
  reassertGrant(mine, ctx, cmd.wait, rid);
  if (!mine.shared && shared) {
    // Downgrade: same grant and token, now shared, so the shared waiters at the queue's head join it.
    mine.shared = true;
    ctx.emit('DOWNGRADED', cmd.name, lease.id, mine.token);
    grantWaiters(state, ctx, lock);
  }
  return acquiredBy(state, cmd, lease, mine);
}

/** The lease already waits for the name (place i): answered with its place, if it asks the same way. */
function answerOwnWait(
  state: MachineState,
  ctx: ApplyContext,
  cmd: AcquireCommand,
  rid: string | undefined,
  lease: LeaseRecord,
  lock: LockRecord,
  i: number,
  shared: boolean,
): ResultFor<'Acquire'> {
  if (lock.waiters[i].shared !== shared)
    return failure(
      'Acquire',
      'FAILED_PRECONDITION',
      `lease ${lease.id} already waits for ${cmd.name} ${lock.waiters[i].shared ? 'shared' : 'exclusive'}; cancel that wait to ask otherwise`,
    );
  if (cmd.wait) markWaiter(lock.waiters[i], ctx, rid);
  return acquireOk(state, cmd, { status: 'queued', token: 0, ...firstHolder(lock), position: i + 1 });
}

/** A waiting Acquire that does not fit now: the lease joins the back of the queue. */
function enqueue(
  state: MachineState,
  ctx: ApplyContext,
  cmd: AcquireCommand,
  rid: string | undefined,
  lease: LeaseRecord,
  lock: LockRecord,
  idle: boolean,
  permits: number,
  ask: Ask,
  election: boolean,
): ResultFor<'Acquire'> {
  const full = noRoom(state, cmd, lease);
  if (full) return full;
  if (lock.waiters.length >= MAX_WAITERS_PER_LOCK) return failure('Acquire', 'RESOURCE_EXHAUSTED', `${cmd.name} already has ${MAX_WAITERS_PER_LOCK} waiters`);
  if (idle) {
    lock.election = election;
    if (lock.permits !== permits) {
      lock.permits = permits;
      ctx.emit('PERMITS_CHANGED', cmd.name, 0, 0);
    }
  }
  const { shared, lockDelayMs, value } = ask;
  lock.waiters.push({
    leaseId: lease.id,
    shared,
    lockDelayMs,
    value,
    lastAcquireIndex: ctx.index,
    ...(rid === undefined ? {} : { requestId: rid, lastAcquireRequestId: rid }),
  });
  if (!lease.waiting.has(cmd.name)) state.usage.lock(lease.owner, 1);
  state.usage.value(lease.owner, value, 1);
  lease.waiting.add(cmd.name);
  ctx.emit('QUEUED', cmd.name, lease.id, 0);
  return acquireOk(state, cmd, { status: 'queued', token: 0, ...firstHolder(lock), position: lock.waiters.length });
}

/** An Acquire of the other kind than the name's: a Lock.Acquire on an election, or a Campaign on a lock. */
function kindFailure(name: string, lock: LockRecord): Failure {
  return lock.election
    ? failure(
        'Acquire',
        'FAILED_PRECONDITION',
        `${name} is an election (Election.Campaign made it): Lock.Acquire on it is refused, as are shared, permits and downgrades; campaign for it instead`,
      )
    : failure('Acquire', 'FAILED_PRECONDITION', `${name} is a lock (held or waited on through Lock.Acquire), not an election: campaign under another name`);
}

/** Per-lease quota: the locks a lease holds and waits for (each wait may become a hold). */
const leaseFull = (lease: LeaseRecord): boolean => lease.held.size + lease.waiting.size >= MAX_LOCKS_PER_LEASE;
const leaseFullFailure = (lease: LeaseRecord) =>
  failure('Acquire', 'RESOURCE_EXHAUSTED', `lease ${lease.id} already holds or waits for ${MAX_LOCKS_PER_LEASE} locks (the limit per lease)`);

/** Room for one more lock held or waited for: the lease's own bound, then its owner's `locks` quota. */
function noRoom(state: MachineState, cmd: AcquireCommand, lease: LeaseRecord): Failure | undefined {
  return leaseFull(lease) ? leaseFullFailure(lease) : lockQuotaFailure(state, cmd, lease, utf8ByteLength(cmd.value ?? ''));
}

export function applyRelease(state: MachineState, ctx: ApplyContext, cmd: ReleaseCommand): ResultFor<'Release'> {
  const lock = state.locks.get(cmd.name);
  if (!lock || lock.holders.length === 0) return failure('Release', 'NOT_FOUND', `lock ${cmd.name} is not held`);
  const byLease = cmd.leaseId || undefined;
  // Every grant has a token of its own (token.ts): the token names the one grant to release, and a
  // stale holder's token (its grant ended) names none, whoever else holds the lock.
  const mine = lock.holders.filter((h) => h.token === cmd.token && (byLease === undefined || h.leaseId === byLease));
  if (mine.length === 0) return { type: 'Release', ok: true, released: false };
  // Only grants restored from before tokens were per grant can share one.
  if (mine.length > 1)
    return failure(
      'Release',
      'FAILED_PRECONDITION',
      `fencing token ${cmd.token} of ${cmd.name} is held by leases ${mine.map((h) => h.leaseId).join(', ')} (granted before tokens were per grant): set lease_id to say whose grant to release`,
    );
  const holder = state.leases.get(mine[0].leaseId);
  check(holder, 'holder-lease-live', () => `${cmd.name} is held by lease ${mine[0].leaseId}, which is not live`);
  releaseHolder(state, ctx, lock, holder, 'RELEASED');
  return { type: 'Release', ok: true, released: true };
}

/**
 * Election: the leader (the one holder of `name` under `token`) sets its value. Anyone else is
 * FAILED_PRECONDITION: the token is not (or no longer) the leadership's.
 */
export function applyProclaim(state: MachineState, ctx: ApplyContext, cmd: ProclaimCommand): ResultFor<'Proclaim'> {
  const lock = state.locks.get(cmd.name);
  const leader = lock?.holders[0];
  const byLease = cmd.leaseId || undefined;
  const key = byLease === undefined ? `fencing token ${cmd.token}` : `lease ${byLease} with fencing token ${cmd.token}`;
  if (!lock || !leader) return failure('Proclaim', 'FAILED_PRECONDITION', `${key} is not the leadership of ${cmd.name}: nobody leads it`);
  if (!lock.election) return failure('Proclaim', 'FAILED_PRECONDITION', `${cmd.name} is a lock, not an election (no Campaign made it): nobody leads it`);
  // Only campaigns join an election (applyAcquire), so it has one exclusive holder: its leader.
  check(
    lock.holders.length === 1 && !leader.shared && lock.permits === 1,
    'one-leader',
    () => `election ${cmd.name} has ${lock.holders.length} holders, permits ${lock.permits}`,
  );
  if (leader.token !== cmd.token || (byLease !== undefined && leader.leaseId !== byLease))
    return failure(
      'Proclaim',
      'FAILED_PRECONDITION',
      `${key} is not the leadership of ${cmd.name}: lease ${leader.leaseId} leads it under token ${leader.token}`,
    );
  const lease = state.leases.get(leader.leaseId);
  check(lease, 'held-locks-exist', () => `${cmd.name} is led by lease ${leader.leaseId}, which is not in the table`);
  const over = electionBytesFailure(state, cmd, lease, utf8ByteLength(cmd.value) - utf8ByteLength(leader.value));
  if (over) return over;
  state.usage.value(lease.owner, leader.value, -1);
  leader.value = cmd.value;
  state.usage.value(lease.owner, leader.value, 1);
  ctx.emit('PROCLAIMED', cmd.name, leader.leaseId, cmd.token);
  return { type: 'Proclaim', ok: true };
}

/**
 * Change the permits of a name someone holds or waits for (0 such: NOT_FOUND; the next Acquire's
 * permits decide). Growing grants the waiters that now fit in this entry; shrinking below the current
 * holders is refused (a grant is never taken back by it), as are permits > 1 on a read-write lock.
 * Admin-only once principals exist: the service checks the caller before proposing.
 */
export function applySetPermits(state: MachineState, ctx: ApplyContext, cmd: SetPermitsCommand): ResultFor<'SetPermits'> {
  const lock = state.locks.get(cmd.name);
  if (!lock || (lock.holders.length === 0 && lock.waiters.length === 0))
    return failure('SetPermits', 'NOT_FOUND', `nobody holds or waits for ${cmd.name}; the next Acquire's permits decide`);
  if (lock.election) return failure('SetPermits', 'FAILED_PRECONDITION', `${cmd.name} is an election: it has one leader, its permits stay 1`);
  if (cmd.permits > 1 && (lock.holders.some((h) => h.shared) || lock.waiters.some((w) => w.shared)))
    return failure('SetPermits', 'FAILED_PRECONDITION', `${cmd.name} is a read-write lock (shared holders or waiters): its permits stay 1`);
  if (cmd.permits < lock.holders.length)
    return failure(
      'SetPermits',
      'FAILED_PRECONDITION',
      `${lock.holders.length} leases hold ${cmd.name}: permits cannot go below that (retry once some release)`,
    );
  const previous = lock.permits;
  const before = lock.holders.length;
  lock.permits = cmd.permits;
  if (previous !== cmd.permits) ctx.emit('PERMITS_CHANGED', cmd.name, 0, 0);
  grantWaiters(state, ctx, lock);
  return { type: 'SetPermits', ok: true, previous, permits: cmd.permits, granted: lock.holders.length - before };
}

export function applyCancelWait(state: MachineState, ctx: ApplyContext, cmd: CancelWaitCommand): ResultFor<'CancelWait'> {
  const answer = (removed: boolean, heldToken: number, released: boolean) => ({ type: 'CancelWait' as const, ok: true as const, removed, heldToken, released });
  const abandonedAt = cmd.abandonedAtIndex ?? 0;
  if (abandonedAt >= ctx.index)
    return failure('CancelWait', 'INVALID_ARGUMENT', `abandoned_at_index ${abandonedAt} names no earlier log entry (this is entry ${ctx.index})`);
  const lock = state.locks.get(cmd.name);
  const lease = liveLease(state, cmd.leaseId);
  if (!lock || !lease) return answer(false, 0, false);
  const mine = holderOf(lock, lease.id);
  const cancel = () => {
    const removed = removeWaiter(state, ctx, lock, lease, 'WAIT_CANCELLED');
    if (removed) grantWaiters(state, ctx, lock); // the head may have been an exclusive ask blocking shared ones
    return removed;
  };
  if (abandonedAt === 0) return answer(cancel(), mine?.token ?? 0, false);
  // A cleanup (docs/lessons.md 13) proves it is one by naming exactly the Acquire entry the lease's wait or
  // grant answers last — a waiting Acquire, the only kind a node abandons. Any other index (an
  // earlier call's, a later one's, a try-lock's, one past every Acquire) changes nothing: the wait or
  // grant belongs to a call that was not abandoned. E.g. L waits by the Acquire at 12 and is granted
  // at 15: CancelWait{abandonedAtIndex: 12} releases its grant (token 15·2^10); 13, 14 or 10^12 release nothing.
  const w = mine ? undefined : lock.waiters.find((x) => x.leaseId === lease.id);
  // And by naming that call's request id (none if it had none), which only the call knows: an index
  // can be read by anyone (Inspect, a QUEUED event), so alone it would let a third party take back a
  // grant handed to a waiter. The service gives every waiting Acquire a request id (acquire.ts).
  const rid = cmd.acquireRequestId || undefined;
  const owned = mine
    ? mine.lastAcquireWait && mine.lastAcquireIndex === abandonedAt && mine.lastAcquireRequestId === rid
    : w?.lastAcquireIndex === abandonedAt && w.lastAcquireRequestId === rid;
  if (!owned) return answer(false, 0, false);
  if (!mine) return answer(cancel(), 0, false);
  takeBackGrant(state, ctx, lock, lease);
  return answer(false, mine.token, true);
}
