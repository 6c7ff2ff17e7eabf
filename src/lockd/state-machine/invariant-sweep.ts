// A full sweep of the state's invariants. apply() asserts the local ones as it goes; this checks the
// whole picture (for tests, the simulator, and every restore).

import type { MachineState } from './state.js';
import { check } from './invariant-error.js';
import { MAX_FENCE_KEYS, MAX_FENCE_KEYS_PER_LEASE, MAX_FENCE_KEYS_UNOWNED, MAX_LOCKS_PER_LEASE, MAX_WAITERS_PER_LOCK } from './limits.js';

export function checkInvariants(s: MachineState): void {
  for (const [name, lock] of s.locks) {
    check(lock.name === name, 'lock-table', () => `lock keyed ${name} is named ${lock.name}`);
    const holder = s.leases.get(lock.holder);
    check(holder, 'holder-lease-live', () => `${name} is held by lease ${lock.holder}, which is not live`);
    check(holder.held.has(name), 'lease-index', () => `lease ${holder.id} does not list ${name} as held`);
    check(
      lock.token > lock.holder && lock.token <= s.appliedIndex,
      'token-range',
      () => `${name}: token ${lock.token} (holder ${lock.holder}, applied ${s.appliedIndex})`,
    );
    check(
      lock.lastAcquireIndex > lock.holder && lock.lastAcquireIndex <= s.appliedIndex,
      'acquire-index-range',
      () => `${name}: lastAcquireIndex ${lock.lastAcquireIndex} (holder ${lock.holder}, applied ${s.appliedIndex})`,
    );
    check(lock.waiters.length <= MAX_WAITERS_PER_LOCK, 'waiter-bound', () => `${name} has ${lock.waiters.length} waiters`);
    const seen = new Set<number>();
    for (const w of lock.waiters) {
      check(w.leaseId !== lock.holder, 'holder-not-waiting', () => `${name}: holder ${w.leaseId} is also waiting`);
      check(!seen.has(w.leaseId), 'waiters-unique', () => `${name}: lease ${w.leaseId} queued twice`);
      seen.add(w.leaseId);
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
  const heap = s.expiry.breach();
  check(heap === undefined, 'expiry-index', () => `${heap}`);
  check(s.expiry.size === s.leases.size, 'expiry-index', () => `${s.expiry.size} leases indexed, ${s.leases.size} live`);
  for (const [id, lease] of s.leases) {
    check(lease.id === id && id > 0 && id <= s.appliedIndex, 'lease-ids', () => `lease keyed ${id} has id ${lease.id}`);
    check(lease.deadline > s.now, 'live-before-deadline', () => `lease ${id}: deadline ${lease.deadline} <= now ${s.now}`);
    check(s.expiry.deadlineOf(id) === lease.deadline, 'expiry-index', () => `lease ${id}: deadline ${lease.deadline}, indexed at ${s.expiry.deadlineOf(id)}`);
    for (const name of lease.held)
      check(s.locks.get(name)?.holder === id, 'lease-index', () => `lease ${id} lists ${name} as held but does not hold it`);
    for (const name of lease.waiting)
      check(
        s.locks.get(name)?.waiters.some((w) => w.leaseId === id),
        'lease-index',
        () => `lease ${id} lists ${name} as waited on but is not queued`,
      );
  }
  for (const [id, lease] of s.leases)
    check(lease.held.size + lease.waiting.size <= MAX_LOCKS_PER_LEASE, 'locks-per-lease', () => `lease ${id} holds ${lease.held.size} and waits for ${lease.waiting.size} locks`);
  let grants = 0;
  for (const [token, name] of s.grants.pairs()) {
    grants++;
    check(s.locks.get(name)?.token === token, 'grant-index', () => `grant index lists ${name} under token ${token}, but it is held under ${s.locks.get(name)?.token ?? 'no token'}`);
  }
  check(grants === s.locks.size, 'grant-index', () => `grant index lists ${grants} grants for ${s.locks.size} locks`);
  checkFence(s);
  check(s.dedup.size <= s.dedup.capacity, 'dedup-bound', () => `${s.dedup.size} request ids kept`);
  // A record of an open wait is true: its lease waits for that name (lock-transitions.ts keeps it so).
  for (const [rid, r] of s.dedup.entries())
    if (r.type === 'Acquire' && r.wait && r.status === 'queued')
      check(
        s.locks.get(r.name)?.waiters.some((w) => w.leaseId === r.leaseId),
        'dedup-open-waits',
        () => `request ${rid} is recorded queued for ${r.name}, but lease ${r.leaseId} does not wait for it`,
      );
}

function checkFence(s: MachineState): void {
  const f = s.fence;
  const owners = new Map<number, number>();
  for (const [key, e] of f.sorted()) {
    check(e.token > 0 && e.token < s.appliedIndex, 'fence-token-range', () => `fence ${key}: token ${e.token}`);
    check(e.owner >= 0 && e.owner < s.appliedIndex, 'fence-owner-range', () => `fence ${key}: owner ${e.owner}`);
    check(!f.isTombstoned(key), 'fence-live-or-deleted', () => `fence ${key} is both live and deleted`);
    owners.set(e.owner, (owners.get(e.owner) ?? 0) + 1);
  }
  check(f.size <= MAX_FENCE_KEYS, 'fence-key-bound', () => `${f.size} fenced keys`);
  check(f.tombstoneCount <= f.tombstoneCapacity, 'fence-tombstone-bound', () => `${f.tombstoneCount} tombstones`);
  for (const [key, t] of f.tombstoneEntries()) check(t > 0 && t < s.appliedIndex, 'fence-token-range', () => `tombstone ${key}: token ${t}`);
  check(f.floor >= 0 && f.floor < Math.max(1, s.appliedIndex), 'fence-floor-range', () => `fence floor ${f.floor}`);
  const counted = f.chargedCounts();
  check(counted.size === owners.size && [...owners].every(([o, n]) => counted.get(o) === n), 'fence-charges', () => `fence charges ${JSON.stringify([...counted])} for owners ${JSON.stringify([...owners])}`);
  for (const [o, n] of owners)
    check(n <= (o === 0 ? MAX_FENCE_KEYS_UNOWNED : MAX_FENCE_KEYS_PER_LEASE), 'fence-keys-per-lease', () => `owner ${o} has ${n} fenced keys`);
}
