// A full sweep of the state's invariants. apply() asserts the local ones as it goes; this checks the
// whole picture (for tests, the simulator, and every restore).

import type { LockRecord, MachineState } from './state.js';
import { check } from './invariant-error.js';
import {
  MAX_FENCE_KEYS,
  MAX_FENCE_KEYS_PER_LEASE,
  MAX_FENCE_KEYS_UNOWNED,
  MAX_LOCK_DELAY_MS,
  MAX_LOCKS_PER_LEASE,
  MAX_PERMITS,
  MAX_WAITERS_PER_LOCK,
} from './limits.js';
import { fits, holderOf } from './lock-transitions.js';
import { firstTokenOf, tokenIndex } from './token.js';
import { validateElectionValue } from './validate.js';
import { utf8ByteLength } from './bytes.js';

export function checkInvariants(s: MachineState): void {
  let holders = 0;
  let delayed = 0;
  for (const [name, lock] of s.locks) {
    checkLock(s, name, lock);
    if (lock.delayUntil > 0) delayed++;
    holders += lock.holders.length;
    const holding = checkHolders(s, name, lock);
    checkWaiters(s, name, lock, holding);
  }
  const delays = s.delays.breach();
  check(delays === undefined, 'delay-index', () => `${delays}`);
  check(s.delays.size === delayed, 'delay-index', () => `${s.delays.size} delays indexed, ${delayed} locks delayed`);
  const heap = s.expiry.breach();
  check(heap === undefined, 'expiry-index', () => `${heap}`);
  check(s.expiry.size === s.leases.size, 'expiry-index', () => `${s.expiry.size} leases indexed, ${s.leases.size} live`);
  checkLeases(s);
  checkGrants(s, holders);
  checkFence(s);
  check(s.dedup.size <= s.dedup.maxSize, 'dedup-bound', () => `${s.dedup.size} request ids kept`);
  let charged = 0;
  for (const [rid] of s.dedup.entries()) if (s.dedup.ownerOf(rid) !== undefined) charged++;
  check(charged === s.dedup.size, 'dedup-owners', () => `${s.dedup.size - charged} request ids are charged to nobody`);
  checkUsage(s);
  for (const [key] of s.fenceCharges.entries())
    check(s.fence.has(key), 'fence-charges', () => `fence key ${key} is charged to ${s.fenceCharges.principalOf(key)} but not in the store`);
  // A record of an open wait is true: its lease waits for that name (lock-transitions.ts keeps it so).
  for (const [rid, r] of s.dedup.entries())
    if (r.type === 'Acquire' && r.wait && r.status === 'queued')
      check(
        s.locks.get(r.name)?.waiters.some((w) => w.leaseId === r.leaseId),
        'dedup-open-waits',
        () => `request ${rid} is recorded queued for ${r.name}, but lease ${r.leaseId} does not wait for it`,
      );
}

/** One lock's own fields: its name, permits, the recipes' fit, the election's one leader, its delay. */
function checkLock(s: MachineState, name: string, lock: LockRecord): void {
  check(lock.name === name, 'lock-table', () => `lock keyed ${name} is named ${lock.name}`);
  check(lock.holders.length > 0 || lock.delayUntil > 0, 'lock-table', () => `${name} exists with no holder and no lock-delay`);
  check(Number.isSafeInteger(lock.permits) && lock.permits >= 1 && lock.permits <= MAX_PERMITS, 'permits-range', () => `${name}: permits ${lock.permits}`);
  // The recipes' safety: at most `permits` exclusive holders, no exclusive beside a shared one.
  const shared = lock.holders.filter((h) => h.shared).length;
  if (shared > 0)
    check(
      shared === lock.holders.length && lock.permits === 1 && shared <= MAX_PERMITS,
      'holders-fit',
      () => `${name}: ${shared} shared among ${lock.holders.length} holders (permits ${lock.permits})`,
    );
  else check(lock.holders.length <= lock.permits, 'holders-fit', () => `${name}: ${lock.holders.length} holders, permits ${lock.permits}`);
  // An election has one leader: one exclusive holder at most, permits 1, only exclusive campaigners.
  if (lock.election)
    check(
      lock.permits === 1 && shared === 0 && lock.holders.length <= 1 && lock.waiters.every((w) => !w.shared),
      'one-leader',
      () => `election ${name}: ${lock.holders.length} holders (${shared} shared), permits ${lock.permits}`,
    );
  check(lock.delayUntil === 0 || lock.delayUntil > s.now, 'delay-ends', () => `${name}: lock-delay until ${lock.delayUntil} outlived now ${s.now}`);
  check(
    s.delays.deadlineOf(name) === (lock.delayUntil === 0 ? undefined : lock.delayUntil),
    'delay-index',
    () => `${name}: delay until ${lock.delayUntil}, indexed at ${s.delays.deadlineOf(name)}`,
  );
  // FIFO without idling: a head waiter that fits would have been granted by the entry that made room.
  check(lock.waiters.length === 0 || !fits(lock, lock.waiters[0]), 'fifo', () => `${name}: head waiter ${lock.waiters[0].leaseId} fits but waits`);
}

/** A lock's holders: live, indexed, one grant per lease, tokens in grant order. Returns their leases. */
function checkHolders(s: MachineState, name: string, lock: LockRecord): Set<number> {
  let lastToken = 0;
  const holding = new Set<number>();
  for (const h of lock.holders) {
    const holder = s.leases.get(h.leaseId);
    check(holder, 'holder-lease-live', () => `${name} is held by lease ${h.leaseId}, which is not live`);
    check(holder.held.has(name), 'lease-index', () => `lease ${holder.id} does not list ${name} as held`);
    check(!holding.has(h.leaseId), 'one-grant-per-lease', () => `${name}: lease ${h.leaseId} holds it twice`);
    holding.add(h.leaseId);
    // Strict for tokens minted per grant (token.ts); grants restored from before that may share one.
    check(
      h.token > lastToken || (h.token === lastToken && h.token <= s.appliedIndex),
      'tokens-increase',
      () => `${name}: holder tokens out of grant order (${h.token} after ${lastToken})`,
    );
    lastToken = h.token;
    check(
      h.token > h.leaseId && tokenIndex(h.token) <= s.appliedIndex,
      'token-range',
      () => `${name}: token ${h.token} (holder ${h.leaseId}, applied ${s.appliedIndex})`,
    );
    check(
      h.lastAcquireIndex > h.leaseId && h.lastAcquireIndex <= s.appliedIndex,
      'acquire-index-range',
      () => `${name}: lastAcquireIndex ${h.lastAcquireIndex} (holder ${h.leaseId}, applied ${s.appliedIndex})`,
    );
    check(validateElectionValue(h.value) === undefined, 'value-bound', () => `${name}: holder ${h.leaseId} value of ${h.value.length} chars`);
    check(h.lockDelayMs >= 0 && h.lockDelayMs <= MAX_LOCK_DELAY_MS, 'lock-delay-range', () => `${name}: holder ${h.leaseId} lock-delay ${h.lockDelayMs}`);
  }
  return holding;
}

/** A lock's waiters: bounded, unique, not holding it, live and indexed. */
function checkWaiters(s: MachineState, name: string, lock: LockRecord, holding: Set<number>): void {
  check(lock.waiters.length <= MAX_WAITERS_PER_LOCK, 'waiter-bound', () => `${name} has ${lock.waiters.length} waiters`);
  const seen = new Set<number>();
  for (const w of lock.waiters) {
    check(!holding.has(w.leaseId), 'holder-not-waiting', () => `${name}: holder ${w.leaseId} is also waiting`);
    check(!seen.has(w.leaseId), 'waiters-unique', () => `${name}: lease ${w.leaseId} queued twice`);
    seen.add(w.leaseId);
    check(!w.shared || lock.permits === 1, 'permits-range', () => `${name}: shared waiter ${w.leaseId} on permits ${lock.permits}`);
    check(w.lockDelayMs >= 0 && w.lockDelayMs <= MAX_LOCK_DELAY_MS, 'lock-delay-range', () => `${name}: waiter ${w.leaseId} lock-delay ${w.lockDelayMs}`);
    check(
      w.lastAcquireIndex > w.leaseId && w.lastAcquireIndex <= s.appliedIndex,
      'acquire-index-range',
      () => `${name}: waiter ${w.leaseId} lastAcquireIndex ${w.lastAcquireIndex} (applied ${s.appliedIndex})`,
    );
    const lease = s.leases.get(w.leaseId);
    check(lease, 'waiters-live', () => `${name}: waiter lease ${w.leaseId} is not live`);
    check(lease.waiting.has(name), 'lease-index', () => `lease ${w.leaseId} does not list ${name} as waited on`);
  }
}

/** The lease table: ids in order, the expiry index, pending cleanup, the per-lease lock bound. */
function checkLeases(s: MachineState): void {
  let pending = 0;
  let lastId = 0;
  for (const [id, lease] of s.leases) {
    check(lease.id === id && id > 0 && id <= s.appliedIndex, 'lease-ids', () => `lease keyed ${id} has id ${lease.id}`);
    // List pages walk the table in this order (LockStateMachine.listLeasesPage).
    check(id > lastId, 'lease-order', () => `lease ${id} is kept after lease ${lastId}`);
    lastId = id;
    // A lease may sit past its deadline (cleanup pending: lease-live.ts) when a Tick hit its work bound.
    if (lease.deadline <= s.now) pending++;
    check(s.expiry.deadlineOf(id) === lease.deadline, 'expiry-index', () => `lease ${id}: deadline ${lease.deadline}, indexed at ${s.expiry.deadlineOf(id)}`);
    for (const name of lease.held) check(holderOf(s.locks.get(name), id), 'lease-index', () => `lease ${id} lists ${name} as held but does not hold it`);
    for (const name of lease.waiting)
      check(
        s.locks.get(name)?.waiters.some((w) => w.leaseId === id),
        'lease-index',
        () => `lease ${id} lists ${name} as waited on but is not queued`,
      );
  }
  // The leases awaiting cleanup are exactly those the index hands to the next Ticks.
  let due = 0;
  for (const id of s.expiry.dueInOrder(s.now)) {
    const lease = s.leases.get(id);
    check(lease !== undefined && lease.deadline <= s.now, 'expiry-index', () => `lease ${id} handed out as due at ${s.now}`);
    due++;
  }
  check(due === pending, 'pending-cleanup', () => `${pending} leases are past their deadline, the index hands out ${due}`);
  for (const [id, lease] of s.leases)
    check(
      lease.held.size + lease.waiting.size <= MAX_LOCKS_PER_LEASE,
      'locks-per-lease',
      () => `lease ${id} holds ${lease.held.size} and waits for ${lease.waiting.size} locks`,
    );
}

/** The grant index counts exactly the holders the lock table has. */
function checkGrants(s: MachineState, holders: number): void {
  let grants = 0;
  for (const [token, name, n] of s.grants.pairs()) {
    grants += n;
    const actual = s.locks.get(name)?.holders.filter((h) => h.token === token).length ?? 0;
    check(actual === n, 'grant-index', () => `grant index counts ${n} grants of ${name} under token ${token}; ${actual} holders have it`);
  }
  check(grants === holders, 'grant-index', () => `grant index lists ${grants} grants for ${holders} holders`);
}

/** The derived per-owner counts (quotas.ts PrincipalUsage) equal a recount of the lease table. */
function checkUsage(s: MachineState): void {
  const counted = new Map<string, { leases: number; locks: number; electionBytes: number }>();
  let locks = 0;
  for (const l of s.leases.values()) {
    const c = counted.get(l.owner) ?? { leases: 0, locks: 0, electionBytes: 0 };
    c.leases++;
    c.locks += l.held.size + l.waiting.size;
    locks += l.held.size + l.waiting.size;
    counted.set(l.owner, c);
  }
  for (const lock of s.locks.values())
    for (const x of [...lock.holders, ...lock.waiters]) {
      const owner = s.leases.get(x.leaseId)?.owner;
      if (owner !== undefined) counted.get(owner)!.electionBytes += utf8ByteLength(x.value);
    }
  const kept = s.usage.owners();
  const same =
    kept.size === counted.size &&
    [...counted].every(([o, c]) => kept.get(o)?.leases === c.leases && kept.get(o)?.locks === c.locks && kept.get(o)?.electionBytes === c.electionBytes);
  check(same, 'quota-usage', () => `usage ${JSON.stringify([...kept])} for a recount of ${JSON.stringify([...counted])}`);
  check(
    s.usage.totals().leases === s.leases.size && s.usage.totals().locks === locks,
    'quota-usage',
    () => `usage totals ${JSON.stringify(s.usage.totals())} for ${s.leases.size} leases, ${locks} locks`,
  );
}

function checkFence(s: MachineState): void {
  const f = s.fence;
  const owners = new Map<number, number>();
  for (const [key, e] of f.sorted()) {
    check(e.token > 0 && e.token < firstTokenOf(s.appliedIndex), 'fence-token-range', () => `fence ${key}: token ${e.token}`);
    check(e.owner >= 0 && e.owner < s.appliedIndex, 'fence-owner-range', () => `fence ${key}: owner ${e.owner}`);
    check(!f.isTombstoned(key), 'fence-live-or-deleted', () => `fence ${key} is both live and deleted`);
    owners.set(e.owner, (owners.get(e.owner) ?? 0) + 1);
  }
  check(f.size <= MAX_FENCE_KEYS, 'fence-key-bound', () => `${f.size} fenced keys`);
  check(f.tombstoneCount <= f.tombstoneCapacity, 'fence-tombstone-bound', () => `${f.tombstoneCount} tombstones`);
  for (const [key, t] of f.tombstoneEntries()) check(t > 0 && t < firstTokenOf(s.appliedIndex), 'fence-token-range', () => `tombstone ${key}: token ${t}`);
  check(f.floor >= 0 && f.floor < firstTokenOf(Math.max(1, s.appliedIndex)), 'fence-floor-range', () => `fence floor ${f.floor}`);
  const counted = f.chargedCounts();
  check(
    counted.size === owners.size && [...owners].every(([o, n]) => counted.get(o) === n),
    'fence-charges',
    () => `fence charges ${JSON.stringify([...counted])} for owners ${JSON.stringify([...owners])}`,
  );
  for (const [o, n] of owners)
    check(n <= (o === 0 ? MAX_FENCE_KEYS_UNOWNED : MAX_FENCE_KEYS_PER_LEASE), 'fence-keys-per-lease', () => `owner ${o} has ${n} fenced keys`);
}
