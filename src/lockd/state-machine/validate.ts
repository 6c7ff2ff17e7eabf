// Pure input checks. The service calls them before proposing (so bad input never reaches the log);
// apply calls validateCommand again, so a replica never depends on the proposer having checked.

import type { Command, QuotaSetCommand, TickCommand } from './commands.js';
import type { ErrorKind } from './results.js';
import { utf8ByteLength } from './bytes.js';
import { ACL_VERBS } from './acl-table.js';
import {
  MAX_DRIFT_PPM,
  MAX_FENCE_VALUE_BYTES,
  MAX_ELECTION_VALUE_BYTES,
  MAX_LOCK_DELAY_MS,
  MAX_PERMITS,
  MAX_MARGIN_MS,
  MAX_NAME_BYTES,
  MAX_PRINCIPAL_BYTES,
  MAX_REQUEST_ID_BYTES,
  MAX_TICK_ELAPSED_MS,
  MAX_TICK_EXPIRY_WORK,
  MAX_TICK_RENEWALS,
  MAX_TTL_MS,
  MIN_TTL_MS,
  MAX_QUOTA_VALUE,
} from './limits.js';
import { QUOTA_KEYS, QUOTA_NAMES } from './quotas.js';

export interface Problem {
  readonly error: ErrorKind;
  readonly message: string;
}

const invalid = (message: string): Problem => ({ error: 'INVALID_ARGUMENT', message });

// Cc = C0/C1 control characters; Cs in a `u` regex = a lone surrogate (not valid Unicode, cannot be UTF-8).
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;
/** TickCommand.clusterVersion: node/cluster-version.ts's version shape (each part at most 6 digits). */
const CLUSTER_VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

function checkName(what: string, name: unknown): Problem | undefined {
  if (typeof name !== 'string') return invalid(`${what} must be a string`);
  if (name.length === 0) return invalid(`${what} must not be empty`);
  const bytes = utf8ByteLength(name);
  if (bytes > MAX_NAME_BYTES) return invalid(`${what} is ${bytes} bytes of UTF-8; the limit is ${MAX_NAME_BYTES}`);
  const c = CONTROL.exec(name);
  if (c) return invalid(`${what} contains a control character (U+${hex4(c[0])}) at offset ${c.index}`);
  if (LONE_SURROGATE.test(name)) return invalid(`${what} is not valid Unicode (lone surrogate)`);
  return undefined;
}

function hex4(ch: string): string {
  return (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

const safeInteger = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n);

/**
 * Why `n` (not a safe integer) is refused. A 64-bit field arrives as a JS number (src/proto/load.ts:
 * longs as Number): one past ±(2^53 − 1) is an integer on the wire but beyond what lockd holds
 * exactly, so it is "out of range", not "not an integer".
 */
function notSafeInteger(what: string, n: unknown, unit = ''): Problem {
  if (typeof n === 'number' && Number.isInteger(n)) return invalid(`${what} ${String(n)} is out of range (beyond ±${Number.MAX_SAFE_INTEGER})`);
  return invalid(`${what} must be an integer${unit}`);
}

function checkId(what: string, n: unknown): Problem | undefined {
  if (!safeInteger(n)) return notSafeInteger(what, n);
  if (n <= 0) return invalid(`${what} must be positive (0 is not a valid ${what})`);
  return undefined;
}

function checkRange(what: string, n: unknown, min: number, max: number): Problem | undefined {
  if (!safeInteger(n)) return notSafeInteger(what, n, ' number of milliseconds');
  if (n < min || n > max) return invalid(`${what} ${n} is out of range [${min}, ${max}]`);
  return undefined;
}

export const validateLockName = (name: unknown): Problem | undefined => checkName('lock name', name);
export const validateFenceKey = (key: unknown): Problem | undefined => checkName('fence key', key);
export const validateLeaseId = (id: unknown): Problem | undefined => checkId('lease id', id);
export const validateToken = (token: unknown): Problem | undefined => checkId('fencing token', token);
export const validateTtlMs = (ttl: unknown): Problem | undefined => checkRange('ttl_ms', ttl, MIN_TTL_MS, MAX_TTL_MS);
export const validateMarginMs = (m: unknown): Problem | undefined => checkRange('margin_ms', m, 0, MAX_MARGIN_MS);
export const validateElapsedMs = (e: unknown): Problem | undefined => checkRange('elapsed_ms', e, 0, MAX_TICK_ELAPSED_MS);

/** Absent and 0 both mean "no drift allowance" (entries written before it was carried). */
export function validateDriftPpm(ppm: unknown): Problem | undefined {
  if (ppm === undefined) return undefined;
  if (!safeInteger(ppm)) return notSafeInteger('drift_ppm', ppm);
  if (ppm < 0 || ppm > MAX_DRIFT_PPM) return invalid(`drift_ppm ${ppm} is out of range [0, ${MAX_DRIFT_PPM}]`);
  return undefined;
}

export function validateFenceValue(value: unknown): Problem | undefined {
  if (!(value instanceof Uint8Array)) return invalid('fence value must be bytes');
  if (value.byteLength > MAX_FENCE_VALUE_BYTES) return invalid(`fence value is ${value.byteLength} bytes; the limit is ${MAX_FENCE_VALUE_BYTES}`);
  return undefined;
}

/** Absent and '' both mean "no request id". */
export function validateRequestId(id: unknown): Problem | undefined {
  if (id === undefined || id === '') return undefined;
  if (typeof id !== 'string') return invalid('request_id must be a string');
  const bytes = utf8ByteLength(id);
  if (bytes > MAX_REQUEST_ID_BYTES) return invalid(`request_id is ${bytes} bytes; the limit is ${MAX_REQUEST_ID_BYTES}`);
  if (CONTROL.test(id) || LONE_SURROGATE.test(id)) return invalid('request_id contains a control character or invalid Unicode');
  return undefined;
}

/** Absent and '' both mean "no lock" (a fenced write checked by its key's rule only). */
export function validateFenceLock(lock: unknown): Problem | undefined {
  if (lock === undefined || lock === '') return undefined;
  return validateLockName(lock);
}

/** Absent and 0 both mean "not a bounded cleanup" (CancelWaitCommand). */
export function validateAbandonedAtIndex(i: unknown): Problem | undefined {
  if (i === undefined) return undefined;
  if (!safeInteger(i)) return notSafeInteger('abandoned_at_index', i);
  if (i < 0) return invalid('abandoned_at_index must not be negative');
  return undefined;
}

/** The abandoned Acquire's request id (CancelWaitCommand.acquireRequestId): only with abandoned_at_index. */
export function validateCleanupRequestId(abandonedAtIndex: unknown, rid: unknown): Problem | undefined {
  if (rid === undefined || rid === '') return undefined;
  if (!(typeof abandonedAtIndex === 'number' && abandonedAtIndex > 0)) return invalid('acquire_request_id is only for a cleanup (set abandoned_at_index too)');
  return validateRequestId(rid);
}

/** Acquire's permits: absent/0/1 = a mutex. */
export function validatePermits(p: unknown): Problem | undefined {
  if (p === undefined) return undefined;
  if (!safeInteger(p)) return notSafeInteger('permits', p);
  if (p < 0 || p > MAX_PERMITS) return invalid(`permits ${p} is out of range [0, ${MAX_PERMITS}] (0 and 1 both mean a mutex)`);
  return undefined;
}

/** Absent and 0 both mean "no lock-delay". */
export function validateLockDelayMs(d: unknown): Problem | undefined {
  if (d === undefined) return undefined;
  return checkRange('lock_delay_ms', d, 0, MAX_LOCK_DELAY_MS);
}

/** Absent and '' both mean "no value". */
export function validateElectionValue(v: unknown): Problem | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') return invalid('value must be a string');
  const bytes = utf8ByteLength(v);
  if (bytes > MAX_ELECTION_VALUE_BYTES) return invalid(`value is ${bytes} bytes of UTF-8; the limit is ${MAX_ELECTION_VALUE_BYTES}`);
  if (LONE_SURROGATE.test(v)) return invalid('value is not valid Unicode (lone surrogate)');
  return undefined;
}

/** The recipe fields of an Acquire together: a read-write lock has one writer, so shared needs permits <= 1. */
export function validateAcquireRecipe(permits: unknown, shared: unknown, lockDelayMs: unknown): Problem | undefined {
  if (shared !== undefined && typeof shared !== 'boolean') return invalid('shared must be a boolean');
  const p = validatePermits(permits) ?? validateLockDelayMs(lockDelayMs);
  if (p) return p;
  if (shared === true && typeof permits === 'number' && permits > 1)
    return invalid(`shared = true asks for a read lock, which has one writer: permits must be 0 or 1, not ${permits}`);
  return undefined;
}

/** A principal: a client certificate's CN (or 'anonymous'): non-empty, bounded, no control characters. */
export function validatePrincipal(p: unknown): Problem | undefined {
  if (typeof p !== 'string') return invalid('principal must be a string');
  if (p.length === 0) return invalid('principal must not be empty');
  const bytes = utf8ByteLength(p);
  if (bytes > MAX_PRINCIPAL_BYTES) return invalid(`principal is ${bytes} bytes of UTF-8; the limit is ${MAX_PRINCIPAL_BYTES}`);
  if (CONTROL.test(p) || LONE_SURROGATE.test(p)) return invalid('principal contains a control character or invalid Unicode');
  return undefined;
}

/** An access rule: a principal, a name prefix ('' = every name) and a verb; `admin` only on ''. */
export function validateAclRule(subject: unknown, prefix: unknown, verb: unknown): Problem | undefined {
  const p = validatePrincipal(subject);
  if (p) return p;
  if (typeof verb !== 'string' || !(ACL_VERBS as readonly string[]).includes(verb))
    return invalid(`verb ${JSON.stringify(verb)} is not one of ${ACL_VERBS.join(', ')}`);
  if (prefix === '') return undefined;
  const q = checkName('prefix', prefix);
  if (q) return q;
  if (verb === 'admin') return invalid('admin is cluster-wide: its prefix must be empty');
  return undefined;
}

function validateAuthority(cmd: Exclude<Command, { type: 'Tick' }>): Problem | undefined {
  if (cmd.principal !== undefined) {
    const p = validatePrincipal(cmd.principal);
    if (p) return p;
  }
  if (cmd.admin !== undefined && typeof cmd.admin !== 'boolean') return invalid('admin must be a boolean');
  if (cmd.acl !== undefined && typeof cmd.acl !== 'boolean') return invalid('acl must be a boolean');
  if (cmd.quota !== undefined && typeof cmd.quota !== 'boolean') return invalid('quota must be a boolean');
  return undefined;
}

/** Every stateless rule for a command; state-dependent ones (lease alive, queue full...) are checked at apply. */
export function validateCommand(cmd: Command): Problem | undefined {
  return (cmd.type === 'Tick' ? undefined : validateAuthority(cmd)) ?? validateBody(cmd);
}

function validateBody(cmd: Command): Problem | undefined {
  switch (cmd.type) {
    case 'Grant':
      return validateTtlMs(cmd.ttlMs) ?? validateMarginMs(cmd.marginMs) ?? validateDriftPpm(cmd.driftPpm) ?? validateRequestId(cmd.requestId);
    case 'Revoke':
      return validateLeaseId(cmd.leaseId) ?? validateRequestId(cmd.requestId);
    case 'Tick':
      return validateTick(cmd);
    case 'Acquire':
      if (typeof cmd.wait !== 'boolean') return invalid('wait must be a boolean');
      return (
        validateLockName(cmd.name) ??
        validateLeaseId(cmd.leaseId) ??
        validateAcquireRecipe(cmd.permits, cmd.shared, cmd.lockDelayMs) ??
        validateElectionValue(cmd.value) ??
        validateRequestId(cmd.requestId)
      );
    case 'Release':
      return (
        validateLockName(cmd.name) ??
        validateToken(cmd.token) ??
        (cmd.leaseId === undefined || cmd.leaseId === 0 ? undefined : validateLeaseId(cmd.leaseId)) ??
        validateRequestId(cmd.requestId)
      );
    case 'Proclaim':
      return (
        validateLockName(cmd.name) ??
        validateToken(cmd.token) ??
        (cmd.leaseId === undefined || cmd.leaseId === 0 ? undefined : validateLeaseId(cmd.leaseId)) ??
        validateElectionValue(cmd.value)
      );
    case 'SetPermits':
      if (typeof cmd.permits !== 'number' || !Number.isSafeInteger(cmd.permits) || cmd.permits < 1 || cmd.permits > MAX_PERMITS)
        return validateLockName(cmd.name) ?? invalid(`permits ${String(cmd.permits)} is out of range [1, ${MAX_PERMITS}]`);
      return validateLockName(cmd.name) ?? validateRequestId(cmd.requestId);
    case 'FenceWrite':
      return (
        validateFenceKey(cmd.key) ??
        validateToken(cmd.token) ??
        validateFenceValue(cmd.value) ??
        validateFenceLock(cmd.lock) ??
        validateRequestId(cmd.requestId)
      );
    case 'FenceDelete':
      return validateFenceKey(cmd.key) ?? validateToken(cmd.token) ?? validateFenceLock(cmd.lock) ?? validateRequestId(cmd.requestId);
    case 'CancelWait':
      return (
        validateLockName(cmd.name) ??
        validateLeaseId(cmd.leaseId) ??
        validateAbandonedAtIndex(cmd.abandonedAtIndex) ??
        validateRequestId(cmd.requestId) ??
        validateCleanupRequestId(cmd.abandonedAtIndex, cmd.acquireRequestId)
      );
    case 'AclGrant':
    case 'AclRevoke':
      return validateAclRule(cmd.subject, cmd.prefix, cmd.verb) ?? validateRequestId(cmd.requestId);
    case 'QuotaSet':
      return validateQuotaSet(cmd);
  }
}

/** A Tick: its elapsed time and margins, the leases it renews (bounded), the version and expiry work it carries. */
function validateTick(cmd: TickCommand): Problem | undefined {
  const p = validateElapsedMs(cmd.elapsedMs) ?? validateMarginMs(cmd.marginMs) ?? validateDriftPpm(cmd.driftPpm);
  if (p) return p;
  if (!Array.isArray(cmd.renewed)) return invalid('renewed must be a list of lease ids');
  if (cmd.renewed.length > MAX_TICK_RENEWALS) return invalid(`renewed lists ${cmd.renewed.length} leases; the limit is ${MAX_TICK_RENEWALS}`);
  for (const id of cmd.renewed) {
    const q = validateLeaseId(id);
    if (q) return q;
  }
  if (cmd.clusterVersion !== undefined && (typeof cmd.clusterVersion !== 'string' || !CLUSTER_VERSION.test(cmd.clusterVersion)))
    return invalid('clusterVersion must be a MAJOR.MINOR.PATCH version');
  if (cmd.expiryWork !== undefined && !(Number.isSafeInteger(cmd.expiryWork) && cmd.expiryWork >= 1 && cmd.expiryWork <= MAX_TICK_EXPIRY_WORK))
    return invalid(`expiryWork must be an integer from 1 to ${MAX_TICK_EXPIRY_WORK}`);
  return undefined;
}

/** A quota change: whose, at least one quota or a reset, each value in range. */
function validateQuotaSet(cmd: QuotaSetCommand): Problem | undefined {
  const p = validatePrincipal(cmd.subject);
  if (p) return p;
  if (cmd.reset !== undefined && typeof cmd.reset !== 'boolean') return invalid('reset must be a boolean');
  const given = QUOTA_KEYS.filter((k) => cmd[k] !== undefined);
  if (given.length === 0 && cmd.reset !== true)
    return invalid('a quota change names at least one quota (leases, locks, dedup_ids, election_bytes, fence_keys) or resets them');
  for (const k of given) {
    const q = validateQuotaValue(QUOTA_NAMES[k], cmd[k]);
    if (q) return q;
  }
  return validateRequestId(cmd.requestId);
}

/** A quota's value: an integer in [0, MAX_QUOTA_VALUE] (0 refuses every new one of its kind). */
export function validateQuotaValue(name: string, v: unknown): Problem | undefined {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_QUOTA_VALUE)
    return invalid(`quota ${name} must be an integer in [0, ${MAX_QUOTA_VALUE}], got ${String(v)}`);
  return undefined;
}
