// The whole replicated state as bytes: one version byte, then UTF-8 JSON built in a fixed order
// (maps sorted by key; the dedup FIFO in its own order), so equal states give equal bytes.
// Version 2: locks carry lastAcquireIndex and the grant's request id, waiters their lastAcquireIndex.
// Version 3: fence entries carry their owner lease, tombstones (FIFO) and the floor; dedup records of
// Release (R), Revoke (V), CancelWait (C), FenceWrite (F) and FenceDelete (D).
// Version 4: locks carry lastAcquireWait (whether their lastAcquireIndex Acquire was a waiting one),
// and every open-wait Acquire record follows a live waiter (version 3 kept stale ones).
// Version 5 (main): leases carry their owner (principal), the access rules (acl), dedup
// records of AclGrant (L) and AclRevoke (U). (Branch recipes also called its format 5; neither was
// released, and a node refuses both: their bytes differ.)
// Version 6 (the recipes, on top of 5): a lock is [name, permits, delayUntil, holders, waiters], each
// holder its own grant (shared, lock-delay, lastAcquire*, request id); waiters carry shared and
// lock-delay; Acquire records their recipe, Release records their lease id, and SetPermits (P)
// records exist; holders and waiters carry an election value.
// Version 7: a lock is [name, permits, delayUntil, holders, waiters, election]; holders and waiters
// end with their lastAcquire request id (or null), after the (now always written) grant/queueing
// request id (or null): [..., requestId | null, lastAcquireRequestId | null].
// Version 8: a Grant record carries the principal that asked: [rid, 'G', ttl, leaseId, owner].
// Version 9 (quotas): `quotas`, the admins' overrides, [[principal, leases, locks, dedupIds,
// electionBytes, fenceKeys], ...] sorted by principal (null = the default); the principal each
// dedup record is charged to, as `dedupOwners` (one index into `dedupPrincipals` per record, in the
// records' order); QuotaSet records (Q); `fenceCharged`, [[key, principal], ...] sorted by key, for
// keys created under quotas. A state with no override, no charged key, no Q record and every record
// charged as before quotas (dedup.ts legacyOwner) is still written as version 8, so a cluster not
// yet using quotas hands a build before them snapshots it reads (a rolling upgrade); both are read.

import type { AcquireStatus, ErrorKind } from './results.js';
import type { DedupRecord } from './dedup.js';
import { dedupJsonOnce, dedupRecordOnce, type DedupJsonOnce } from './snapshot-once.js';
import type { Holder, LockRecord, Waiter } from './state.js';
import { MachineState, newLease } from './state.js';
import { fromBase64, fromUtf8, toBase64, utf8Bytes } from './bytes.js';
import { sortedNames } from './order.js';
import { validateAclRule, validatePrincipal, validateQuotaValue } from './validate.js';
import type { AclVerb } from './acl-table.js';
import { MAX_ACL_RULES, MAX_QUOTA_PRINCIPALS } from './limits.js';
import { legacyOwner } from './dedup.js';
import { QUOTA_KEYS, type QuotaKey } from './quotas.js';

export const SNAPSHOT_FORMAT_VERSION = 9;
/** The version before quotas: still written when the state fits it (see the top), and read. */
export const SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS = 8;
/** Every snapshot format this build reads (a backup's state format must be one). */
export const READABLE_SNAPSHOT_FORMATS: readonly number[] = [SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS, SNAPSHOT_FORMAT_VERSION];

export class SnapshotDecodeError extends Error {
  constructor(detail: string) {
    super(`lockd snapshot: ${detail}`);
  }
}

type Rid = string | null;
/** [leaseId, lastAcquireIndex, shared, lockDelayMs, value, requestId, lastAcquireRequestId] */
type WaiterJson = [number, number, boolean, number, string, Rid, Rid];
/** [leaseId, token, shared, lockDelayMs, value, lastAcquireIndex, lastAcquireWait, grantRequestId, lastAcquireRequestId] */
type HolderJson = [number, number, boolean, number, string, number, boolean, Rid, Rid];
/** [name, permits, delayUntil, holders, waiters, election] */
type LockJson = [string, number, number, HolderJson[], WaiterJson[], boolean];
/** [principal, leases, locks, dedupIds, electionBytes] (null: the default) */
type QuotaJson = [string, ...(number | null)[]];
type DedupJson =
  | [string, 'G', number, number, string]
  | [string, 'A', string, number, boolean, AcquireStatus, number, number, number, number, boolean, number, string]
  | DedupJsonOnce;

export function encodeState(s: MachineState): Uint8Array {
  const doc = {
    appliedIndex: s.appliedIndex,
    now: s.now,
    leases: [...s.leases.values()].sort((a, b) => a.id - b.id).map((l) => [l.id, l.ttlMs, l.deadline, l.owner]),
    locks: sortedNames(s.locks.keys()).map((name): LockJson => {
      const l = s.locks.get(name)!;
      const holders = l.holders.map((h): HolderJson => [
        h.leaseId,
        h.token,
        h.shared,
        h.lockDelayMs,
        h.value,
        h.lastAcquireIndex,
        h.lastAcquireWait,
        h.grantRequestId ?? null,
        h.lastAcquireRequestId ?? null,
      ]);
      const waiters = l.waiters.map((w): WaiterJson => [
        w.leaseId,
        w.lastAcquireIndex,
        w.shared,
        w.lockDelayMs,
        w.value,
        w.requestId ?? null,
        w.lastAcquireRequestId ?? null,
      ]);
      return [name, l.permits, l.delayUntil, holders, waiters, l.election];
    }),
    fence: s.fence.sorted().map(([key, e]) => [key, e.token, toBase64(e.value), e.owner]),
    fenceTombstones: s.fence.tombstoneEntries(),
    fenceFloor: s.fence.floor,
    acl: s.acl.rules().map((r) => [r.principal, r.prefix, r.verb]),
    dedup: [...s.dedup.entries()].map(([rid, r]): DedupJson =>
      r.type === 'Grant'
        ? [rid, 'G', r.ttlMs, r.leaseId, r.owner]
        : r.type === 'Acquire'
          ? [rid, 'A', r.name, r.leaseId, r.wait, r.status, r.token, r.holderLeaseId, r.holderToken, r.permits, r.shared, r.lockDelayMs, r.value]
          : dedupJsonOnce(rid, r),
    ),
  };
  const version = fitsBeforeQuotas(s) ? SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS : SNAPSHOT_FORMAT_VERSION;
  if (version === SNAPSHOT_FORMAT_VERSION) Object.assign(doc, quotaDoc(s));
  const json = utf8Bytes(JSON.stringify(doc));
  const out = new Uint8Array(json.length + 1);
  out[0] = version;
  out.set(json, 1);
  return out;
}

/** Nothing of quotas to write: no override, no charged fenced key, no QuotaSet record, every dedup record charged as before quotas. */
function fitsBeforeQuotas(s: MachineState): boolean {
  if (s.quotas.size > 0 || s.fenceCharges.size > 0) return false;
  for (const [rid, r] of s.dedup.entries()) if (r.type === 'QuotaSet' || s.dedup.ownerOf(rid) !== legacyOwner(r)) return false;
  return true;
}

function quotaDoc(s: MachineState): { quotas: QuotaJson[]; dedupPrincipals: string[]; dedupOwners: number[]; fenceCharged: Array<[string, string]> } {
  const principals: string[] = [];
  const at = new Map<string, number>();
  const owners: number[] = [];
  for (const [rid] of s.dedup.entries()) {
    const p = s.dedup.ownerOf(rid)!;
    let i = at.get(p);
    if (i === undefined) {
      at.set(p, (i = principals.length));
      principals.push(p);
    }
    owners.push(i);
  }
  const quotas = s.quotas.entries().map(([p, o]): QuotaJson => [p, ...QUOTA_KEYS.map((k) => o[k] ?? null)]);
  return { quotas, dedupPrincipals: principals, dedupOwners: owners, fenceCharged: s.fenceCharges.entries() };
}

/** Rebuilds the state (including the leases' reverse indexes). Throws SnapshotDecodeError on any malformation. */
export function decodeState(bytes: Uint8Array): MachineState {
  if (bytes.length === 0) throw new SnapshotDecodeError('empty');
  if (bytes[0] !== SNAPSHOT_FORMAT_VERSION && bytes[0] !== SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS)
    throw new SnapshotDecodeError(
      `format version ${bytes[0]} is not supported (this build reads ${SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS} and ${SNAPSHOT_FORMAT_VERSION})`,
    );
  let doc: unknown;
  try {
    doc = JSON.parse(fromUtf8(bytes.subarray(1)));
  } catch (e) {
    throw new SnapshotDecodeError(`malformed JSON: ${(e as Error).message}`);
  }
  try {
    return build(doc, bytes[0]);
  } catch (e) {
    if (e instanceof SnapshotDecodeError) throw e;
    throw new SnapshotDecodeError((e as Error).message);
  }
}

function build(doc: unknown, version: number): MachineState {
  const d = obj(doc, 'snapshot');
  const s = new MachineState();
  s.appliedIndex = int(d.appliedIndex, 'appliedIndex');
  s.now = int(d.now, 'now');
  buildLeases(s, d);
  buildLocks(s, d);
  buildFence(s, d);
  buildAcl(s, d);
  buildDedup(s, d, version);
  if (version === SNAPSHOT_FORMAT_VERSION) buildQuotas(s, d);
  s.usage.rebuild(s.leases.values(), s.locks.values(), (id) => s.leases.get(id)?.owner); // derived: rebuilt here, not stored
  return s;
}

function buildLeases(s: MachineState, d: Record<string, unknown>): void {
  // Inserted ascending by id whatever order the snapshot lists them in: List pages walk the table
  // in that order (LockStateMachine.listLeasesPage). Encoders have always written them sorted.
  const leaseRows = arr(d.leases, 'leases').map((l) => tuple(l, 4, 'lease'));
  leaseRows.sort((a, b) => Number(a[0]) - Number(b[0]));
  for (const [id, ttl, deadline, ownerJ] of leaseRows) {
    const owner = str(ownerJ, 'lease owner');
    const bad = validatePrincipal(owner);
    if (bad) throw new SnapshotDecodeError(`lease owner: ${bad.message}`);
    const lease = newLease(int(id, 'lease id'), int(ttl, 'lease ttl'), int(deadline, 'lease deadline'), owner);
    if (s.leases.has(lease.id)) throw new SnapshotDecodeError(`lease ${lease.id} appears twice`);
    s.leases.set(lease.id, lease);
    s.expiry.set(lease.id, lease.deadline); // derived: rebuilt here, not stored
  }
}

/** The lock table, and what it implies: the delay and grant indexes, each lease's held and waiting sets. */
function buildLocks(s: MachineState, d: Record<string, unknown>): void {
  for (const l of arr(d.locks, 'locks')) {
    const [nameJ, permitsJ, delayJ, holdersJ, waitersJ, electionJ] = tuple(l, 6, 'lock');
    const name = str(nameJ, 'lock name');
    if (s.locks.has(name)) throw new SnapshotDecodeError(`lock ${name} appears twice`);
    const holders: Holder[] = arr(holdersJ, 'holders').map(decodeHolder);
    const waiters: Waiter[] = arr(waitersJ, 'waiters').map(decodeWaiter);
    const lock: LockRecord = {
      name,
      permits: int(permitsJ, 'lock permits'),
      delayUntil: int(delayJ, 'lock delay'),
      holders,
      waiters,
      election: bool(electionJ, 'lock election'),
    };
    s.locks.set(name, lock);
    if (lock.delayUntil !== 0) s.delays.set(name, lock.delayUntil); // derived: rebuilt here, not stored
    for (const h of holders) {
      s.grants.add(h.token, name);
      leaseOf(s, h.leaseId, name).held.add(name);
    }
    for (const w of waiters) leaseOf(s, w.leaseId, name).waiting.add(name);
  }
}

function decodeHolder(x: unknown): Holder {
  const [leaseJ, tokenJ, sharedJ, delayMsJ, valueJ, lastJ, lastWaitJ, ridJ, lastRidJ] = tuple(x, 9, 'holder');
  const h: Holder = {
    leaseId: int(leaseJ, 'holder lease'),
    token: int(tokenJ, 'holder token'),
    shared: bool(sharedJ, 'holder shared'),
    lockDelayMs: int(delayMsJ, 'holder lock-delay'),
    value: str(valueJ, 'holder value'),
    lastAcquireIndex: int(lastJ, 'holder lastAcquireIndex'),
    lastAcquireWait: bool(lastWaitJ, 'holder lastAcquireWait'),
  };
  const rid = optStr(ridJ, 'holder grant request id');
  const lastRid = optStr(lastRidJ, 'holder lastAcquire request id');
  return { ...h, ...(rid === undefined ? {} : { grantRequestId: rid }), ...(lastRid === undefined ? {} : { lastAcquireRequestId: lastRid }) };
}

function decodeWaiter(w: unknown): Waiter {
  const [leaseJ, wLastJ, sharedJ, delayMsJ, valueJ, ridJ, lastRidJ] = tuple(w, 7, 'waiter');
  const waiter = {
    leaseId: int(leaseJ, 'waiter lease'),
    lastAcquireIndex: int(wLastJ, 'waiter lastAcquireIndex'),
    shared: bool(sharedJ, 'waiter shared'),
    lockDelayMs: int(delayMsJ, 'waiter lock-delay'),
    value: str(valueJ, 'waiter value'),
  };
  const rid = optStr(ridJ, 'waiter request id');
  const lastRid = optStr(lastRidJ, 'waiter lastAcquire request id');
  return { ...waiter, ...(rid === undefined ? {} : { requestId: rid }), ...(lastRid === undefined ? {} : { lastAcquireRequestId: lastRid }) };
}

/** Fenced keys, their tombstones and the floor. */
function buildFence(s: MachineState, d: Record<string, unknown>): void {
  for (const f of arr(d.fence, 'fence')) {
    const [keyJ, token, value, owner] = tuple(f, 4, 'fence entry');
    const key = str(keyJ, 'fence key');
    if (s.fence.has(key)) throw new SnapshotDecodeError(`fence key ${key} appears twice`);
    s.fence.put(key, fromBase64(str(value, 'fence value')), int(token, 'fence token'), int(owner, 'fence owner'));
  }
  const tombstones = arr(d.fenceTombstones, 'fence tombstones');
  // More than the store keeps could only be a corrupt snapshot: refuse it rather than forget some.
  if (tombstones.length > s.fence.tombstoneCapacity)
    throw new SnapshotDecodeError(`${tombstones.length} fence tombstones; at most ${s.fence.tombstoneCapacity} are kept`);
  for (const t of tombstones) {
    const [keyJ, token] = tuple(t, 2, 'fence tombstone');
    const key = str(keyJ, 'tombstone key');
    if (s.fence.has(key) || s.fence.isTombstoned(key)) throw new SnapshotDecodeError(`fence key ${key} is both live and deleted, or deleted twice`);
    s.fence.addTombstone(key, int(token, 'tombstone token'));
  }
  s.fence.floor = int(d.fenceFloor, 'fence floor');
}

function buildAcl(s: MachineState, d: Record<string, unknown>): void {
  const rules = arr(d.acl, 'acl');
  if (rules.length > MAX_ACL_RULES) throw new SnapshotDecodeError(`${rules.length} access rules; at most ${MAX_ACL_RULES} are kept`);
  for (const r of rules) {
    const [principal, prefix, verb] = tuple(r, 3, 'access rule');
    const bad = validateAclRule(principal, prefix, verb);
    if (bad) throw new SnapshotDecodeError(`access rule: ${bad.message}`);
    if (!s.acl.add({ principal: principal as string, prefix: prefix as string, verb: verb as AclVerb }))
      throw new SnapshotDecodeError(`access rule ${JSON.stringify(r)} appears twice`);
  }
}

function buildDedup(s: MachineState, d: Record<string, unknown>, version: number): void {
  const records = arr(d.dedup, 'dedup');
  if (records.length > s.dedup.maxSize) throw new SnapshotDecodeError(`${records.length} request ids; at most ${s.dedup.maxSize} are kept`);
  const owners = version === SNAPSHOT_FORMAT_VERSION ? dedupOwners(d, records.length) : undefined;
  records.forEach((r, i) => {
    const a = arr(r, 'dedup record');
    const rid = str(a[0], 'request id');
    if (s.dedup.get(rid)) throw new SnapshotDecodeError(`request id ${rid} appears twice`);
    const rec = dedupRecord(a);
    s.dedup.restore(rid, rec, owners ? owners[i] : legacyOwner(rec));
  });
}

/** Version 9 only: per-principal quotas and the fence keys charged to each principal. */
function buildQuotas(s: MachineState, d: Record<string, unknown>): void {
  const rows = arr(d.quotas, 'quotas');
  if (rows.length > MAX_QUOTA_PRINCIPALS) throw new SnapshotDecodeError(`${rows.length} principals with quotas; at most ${MAX_QUOTA_PRINCIPALS} are kept`);
  for (const q of rows) {
    const [pJ, ...values] = tuple(q, 1 + QUOTA_KEYS.length, 'quota row');
    const principal = str(pJ, 'quota principal');
    const bad = validatePrincipal(principal);
    if (bad) throw new SnapshotDecodeError(`quota principal: ${bad.message}`);
    if (s.quotas.has(principal)) throw new SnapshotDecodeError(`quotas of ${principal} appear twice`);
    const o: Partial<Record<QuotaKey, number>> = {};
    QUOTA_KEYS.forEach((k, i) => {
      if (values[i] === null) return;
      const v = int(values[i], `quota ${k}`);
      if (validateQuotaValue(k, v)) throw new SnapshotDecodeError(`quota ${k} of ${principal} is out of range`);
      o[k] = v;
    });
    if (Object.keys(o).length === 0) throw new SnapshotDecodeError(`quota row of ${principal} sets nothing`);
    s.quotas.set(principal, o);
  }
  for (const f of arr(d.fenceCharged, 'fenceCharged')) {
    const [keyJ, pJ] = tuple(f, 2, 'fence charge');
    const key = str(keyJ, 'charged fence key');
    const principal = str(pJ, 'fence key principal');
    const bad = validatePrincipal(principal);
    if (bad) throw new SnapshotDecodeError(`fence key principal: ${bad.message}`);
    if (!s.fence.has(key)) throw new SnapshotDecodeError(`fence key ${key} is charged but not in the store`);
    if (s.fenceCharges.principalOf(key) !== undefined) throw new SnapshotDecodeError(`fence key ${key} is charged twice`);
    s.fenceCharges.charge(key, principal);
  }
}

/** Version 9: the principal of each of the `n` dedup records. */
function dedupOwners(d: Record<string, unknown>, n: number): string[] {
  const principals = arr(d.dedupPrincipals, 'dedupPrincipals').map((p) => {
    const v = str(p, 'dedup principal');
    const bad = validatePrincipal(v);
    if (bad) throw new SnapshotDecodeError(`dedup principal: ${bad.message}`);
    return v;
  });
  const owners = arr(d.dedupOwners, 'dedupOwners');
  if (owners.length !== n) throw new SnapshotDecodeError(`dedupOwners has ${owners.length} entries for ${n} request ids`);
  return owners.map((o) => {
    const i = int(o, 'dedup owner');
    if (i >= principals.length) throw new SnapshotDecodeError(`dedup owner ${i} names no principal`);
    return principals[i];
  });
}

function dedupRecord(a: unknown[]): DedupRecord {
  if (a[1] === 'G') {
    const [, , ttl, leaseId, owner] = tuple(a, 5, 'dedup Grant');
    const bad = validatePrincipal(owner);
    if (bad) throw new SnapshotDecodeError(`dedup Grant owner: ${bad.message}`);
    return { type: 'Grant', ttlMs: int(ttl, 'ttl'), leaseId: int(leaseId, 'lease id'), owner: owner as string };
  }
  if (a[1] === 'A') {
    const [, , name, leaseId, wait, status, token, holderLeaseId, holderToken, permits, shared, lockDelayMs, value] = tuple(a, 13, 'dedup Acquire');
    if (typeof wait !== 'boolean') throw new SnapshotDecodeError('dedup wait must be a boolean');
    if (status !== 'acquired' && status !== 'held' && status !== 'queued') throw new SnapshotDecodeError(`dedup status ${JSON.stringify(status)}`);
    return {
      type: 'Acquire',
      name: str(name, 'name'),
      leaseId: int(leaseId, 'lease id'),
      wait,
      status,
      token: int(token, 'token'),
      holderLeaseId: int(holderLeaseId, 'holder'),
      holderToken: int(holderToken, 'holder token'),
      permits: int(permits, 'permits'),
      shared: bool(shared, 'shared'),
      lockDelayMs: int(lockDelayMs, 'lock-delay'),
      value: str(value, 'value'),
    };
  }
  return dedupRecordOnce(a, { tuple, int, str, bool, errorKind });
}

function leaseOf(s: MachineState, id: number, name: string) {
  const lease = s.leases.get(id);
  if (!lease) throw new SnapshotDecodeError(`lock ${name} refers to lease ${id}, which is not in the snapshot`);
  return lease;
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SnapshotDecodeError(`${what} must be an object`);
  return v as Record<string, unknown>;
}
function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new SnapshotDecodeError(`${what} must be a list`);
  return v;
}
function tuple(v: unknown, n: number, what: string): unknown[] {
  const a = arr(v, what);
  if (a.length !== n) throw new SnapshotDecodeError(`${what} must have ${n} fields, has ${a.length}`);
  return a;
}
function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new SnapshotDecodeError(`${what} must be a non-negative integer`);
  return v;
}
function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new SnapshotDecodeError(`${what} must be a string`);
  return v;
}
function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw new SnapshotDecodeError(`${what} must be a boolean`);
  return v;
}
const ERROR_KINDS: readonly string[] = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'FAILED_PRECONDITION',
  'RESOURCE_EXHAUSTED',
  'PERMISSION_DENIED',
] satisfies ErrorKind[];
function errorKind(v: unknown, what: string): ErrorKind | undefined {
  if (v === '') return undefined;
  if (typeof v !== 'string' || !ERROR_KINDS.includes(v)) throw new SnapshotDecodeError(`${what} ${JSON.stringify(v)} is not an error kind`);
  return v as ErrorKind;
}
function optStr(v: unknown, what: string): string | undefined {
  return v === null ? undefined : str(v, what);
}
