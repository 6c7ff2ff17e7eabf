// Entry.data for a command: one version byte, then the command as UTF-8 JSON with a fixed field order.
// Deterministic (same command -> same bytes) and strict: a malformed or unknown entry throws rather
// than being skipped, because skipping on some replicas and not others would split them.

import type { Authority, Command } from './commands.js';
import { ANONYMOUS, ACL_VERBS, type AclVerb } from './acl-table.js';
import { fromBase64, fromUtf8, toBase64, utf8Bytes } from './bytes.js';

export const COMMAND_FORMAT_VERSION = 1;

export class CommandDecodeError extends Error {
  constructor(detail: string) {
    super(`lockd command: ${detail}`);
  }
}

/** The canonical JSON shape; field order here is the byte order on the wire. */
function canonical(cmd: Command): Record<string, unknown> {
  const rid = (id: string | undefined) => (id === undefined || id === '' ? {} : { requestId: str('requestId', id) });
  // 0 and absent mean the same (entries written before drift was carried) and encode the same.
  const drift = (ppm: number | undefined) => (ppm === undefined || ppm === 0 ? {} : { driftPpm: num('driftPpm', ppm) });
  const lock = (l: string | undefined) => (l === undefined || l === '' ? {} : { lock: str('lock', l) });
  return cmd.type === 'Tick' ? body(cmd, rid, drift, lock) : { ...body(cmd, rid, drift, lock), ...authority(cmd) };
}

/** Authority fields last, each only when not its default (anonymous, false), so older entries encode as before. */
function authority(a: Authority): Record<string, unknown> {
  return {
    ...(a.principal === undefined || a.principal === ANONYMOUS ? {} : { principal: str('principal', a.principal) }),
    ...(a.admin === undefined || a.admin === false ? {} : { admin: bool('admin', a.admin) }),
    ...(a.acl === undefined || a.acl === false ? {} : { acl: bool('acl', a.acl) }),
  };
}

type Opt<T> = (v: T | undefined) => Record<string, unknown>;

function body(cmd: Command, rid: Opt<string>, drift: Opt<number>, lock: Opt<string>): Record<string, unknown> {
  switch (cmd.type) {
    case 'Grant':
      return { type: cmd.type, ttlMs: num('ttlMs', cmd.ttlMs), marginMs: num('marginMs', cmd.marginMs), ...drift(cmd.driftPpm), ...rid(cmd.requestId) };
    case 'Revoke':
      return { type: cmd.type, leaseId: num('leaseId', cmd.leaseId), ...rid(cmd.requestId) };
    case 'Tick':
      if (!Array.isArray(cmd.renewed)) throw new TypeError('lockd command: Tick.renewed must be an array');
      return {
        type: cmd.type,
        elapsedMs: num('elapsedMs', cmd.elapsedMs),
        marginMs: num('marginMs', cmd.marginMs),
        ...drift(cmd.driftPpm),
        renewed: cmd.renewed.map((id) => num('renewed[]', id)),
      };
    case 'Acquire':
      return {
        type: cmd.type,
        name: str('name', cmd.name),
        leaseId: num('leaseId', cmd.leaseId),
        wait: bool('wait', cmd.wait),
        // The mutex defaults (permits 0/1, not shared, no delay) encode as before issue 16.
        ...(cmd.permits === undefined || cmd.permits <= 1 ? {} : { permits: num('permits', cmd.permits) }),
        ...(cmd.shared === undefined || cmd.shared === false ? {} : { shared: bool('shared', cmd.shared) }),
        ...(cmd.lockDelayMs === undefined || cmd.lockDelayMs === 0 ? {} : { lockDelayMs: num('lockDelayMs', cmd.lockDelayMs) }),
        ...(cmd.value === undefined || cmd.value === '' ? {} : { value: str('value', cmd.value) }),
        ...rid(cmd.requestId),
      };
    case 'Release':
      return {
        type: cmd.type,
        name: str('name', cmd.name),
        token: num('token', cmd.token),
        ...(cmd.leaseId === undefined || cmd.leaseId === 0 ? {} : { leaseId: num('leaseId', cmd.leaseId) }),
        ...rid(cmd.requestId),
      };
    case 'SetPermits':
      return { type: cmd.type, name: str('name', cmd.name), permits: num('permits', cmd.permits), ...rid(cmd.requestId) };
    case 'Proclaim':
      return { type: cmd.type, name: str('name', cmd.name), token: num('token', cmd.token), value: str('value', cmd.value) };
    case 'FenceWrite':
      if (!(cmd.value instanceof Uint8Array)) throw new TypeError('lockd command: FenceWrite.value must be a Uint8Array');
      return { type: cmd.type, key: str('key', cmd.key), value: toBase64(cmd.value), token: num('token', cmd.token), ...lock(cmd.lock), ...rid(cmd.requestId) };
    case 'FenceDelete':
      return { type: cmd.type, key: str('key', cmd.key), token: num('token', cmd.token), ...lock(cmd.lock), ...rid(cmd.requestId) };
    case 'CancelWait':
      // 0 and absent mean the same (no cleanup bound) and encode the same.
      return {
        type: cmd.type,
        name: str('name', cmd.name),
        leaseId: num('leaseId', cmd.leaseId),
        ...(cmd.abandonedAtIndex === undefined || cmd.abandonedAtIndex === 0 ? {} : { abandonedAtIndex: num('abandonedAtIndex', cmd.abandonedAtIndex) }),
        ...rid(cmd.requestId),
      };
    case 'AclGrant':
    case 'AclRevoke':
      return { type: cmd.type, subject: str('subject', cmd.subject), prefix: str('prefix', cmd.prefix), verb: str('verb', cmd.verb), ...rid(cmd.requestId) };
    default:
      throw new TypeError(`lockd command: unknown type ${JSON.stringify((cmd as { type: unknown }).type)}`);
  }
}

// JSON cannot carry NaN/Infinity (they become null, which every replica would then refuse to decode).
function num(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`lockd command: ${field} must be a finite number`);
  return v;
}
function str(field: string, v: unknown): string {
  if (typeof v !== 'string') throw new TypeError(`lockd command: ${field} must be a string`);
  return v;
}
function bool(field: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new TypeError(`lockd command: ${field} must be a boolean`);
  return v;
}

/** Throws TypeError on a structurally broken command (wrong JS types). Range/limit checks are validateCommand's. */
export function encodeCommand(cmd: Command): Uint8Array {
  const json = utf8Bytes(JSON.stringify(canonical(cmd)));
  const out = new Uint8Array(json.length + 1);
  out[0] = COMMAND_FORMAT_VERSION;
  out.set(json, 1);
  return out;
}

const AUTH = ['principal', 'admin', 'acl'];
const FIELDS: Record<Command['type'], { required: readonly string[]; optional: readonly string[] }> = {
  Grant: { required: ['ttlMs', 'marginMs'], optional: ['driftPpm', 'requestId', ...AUTH] },
  Revoke: { required: ['leaseId'], optional: ['requestId', ...AUTH] },
  Tick: { required: ['elapsedMs', 'marginMs', 'renewed'], optional: ['driftPpm'] },
  Acquire: { required: ['name', 'leaseId', 'wait'], optional: ['permits', 'shared', 'lockDelayMs', 'value', 'requestId', ...AUTH] },
  Release: { required: ['name', 'token'], optional: ['leaseId', 'requestId', ...AUTH] },
  SetPermits: { required: ['name', 'permits'], optional: ['requestId', ...AUTH] },
  Proclaim: { required: ['name', 'token', 'value'], optional: [...AUTH] },
  FenceWrite: { required: ['key', 'value', 'token'], optional: ['lock', 'requestId', ...AUTH] },
  FenceDelete: { required: ['key', 'token'], optional: ['lock', 'requestId', ...AUTH] },
  CancelWait: { required: ['name', 'leaseId'], optional: ['abandonedAtIndex', 'requestId', ...AUTH] },
  AclGrant: { required: ['subject', 'prefix', 'verb'], optional: ['requestId', ...AUTH] },
  AclRevoke: { required: ['subject', 'prefix', 'verb'], optional: ['requestId', ...AUTH] },
};

/** Throws CommandDecodeError on anything encodeCommand could not have produced. Empty data is a no-op: not a command. */
export function decodeCommand(data: Uint8Array): Command {
  if (data.length === 0) throw new CommandDecodeError('empty entry (a Raft no-op) is not a command');
  if (data[0] !== COMMAND_FORMAT_VERSION)
    throw new CommandDecodeError(`format version ${data[0]} is not supported (this build reads ${COMMAND_FORMAT_VERSION})`);
  let o: unknown;
  try {
    o = JSON.parse(fromUtf8(data.subarray(1)));
  } catch (e) {
    throw new CommandDecodeError(`malformed JSON: ${(e as Error).message}`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new CommandDecodeError('not an object');
  const r = o as Record<string, unknown>;
  const type = r.type;
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) throw new CommandDecodeError(`unknown type ${JSON.stringify(type)}`);
  const spec = FIELDS[type as Command['type']];
  for (const k of Object.keys(r)) {
    if (k !== 'type' && !spec.required.includes(k) && !spec.optional.includes(k))
      throw new CommandDecodeError(`${type} has unexpected field ${k}`);
  }
  for (const k of spec.required) if (!(k in r)) throw new CommandDecodeError(`${type} lacks field ${k}`);
  const n = (k: string) => {
    if (typeof r[k] !== 'number') throw new CommandDecodeError(`${type}.${k} must be a number`);
    return r[k] as number;
  };
  const s = (k: string) => {
    if (typeof r[k] !== 'string') throw new CommandDecodeError(`${type}.${k} must be a string`);
    return r[k] as string;
  };
  const rid = () => (r.requestId === undefined ? {} : { requestId: s('requestId') });
  const drift = () => (r.driftPpm === undefined ? {} : { driftPpm: n('driftPpm') });
  const lock = () => (r.lock === undefined ? {} : { lock: s('lock') });
  const b = (k: string) => {
    if (typeof r[k] !== 'boolean') throw new CommandDecodeError(`${type}.${k} must be a boolean`);
    return r[k] as boolean;
  };
  const decoded = decodeBody(type as Command['type'], r, n, s, rid, drift, lock);
  if (decoded.type === 'Tick') return decoded;
  return {
    ...decoded,
    ...(r.principal === undefined ? {} : { principal: s('principal') }),
    ...(r.admin === undefined ? {} : { admin: b('admin') }),
    ...(r.acl === undefined ? {} : { acl: b('acl') }),
  };
}

function decodeBody(
  type: Command['type'],
  r: Record<string, unknown>,
  n: (k: string) => number,
  s: (k: string) => string,
  rid: () => { requestId?: string },
  drift: () => { driftPpm?: number },
  lock: () => { lock?: string },
): Command {
  switch (type) {
    case 'Grant':
      return { type: 'Grant', ttlMs: n('ttlMs'), marginMs: n('marginMs'), ...drift(), ...rid() };
    case 'Revoke':
      return { type: 'Revoke', leaseId: n('leaseId'), ...rid() };
    case 'Tick': {
      const renewed = r.renewed;
      if (!Array.isArray(renewed) || !renewed.every((x) => typeof x === 'number'))
        throw new CommandDecodeError('Tick.renewed must be a list of numbers');
      return { type: 'Tick', elapsedMs: n('elapsedMs'), marginMs: n('marginMs'), ...drift(), renewed: renewed as number[] };
    }
    case 'Acquire':
      if (typeof r.wait !== 'boolean') throw new CommandDecodeError('Acquire.wait must be a boolean');
      if (r.shared !== undefined && typeof r.shared !== 'boolean') throw new CommandDecodeError('Acquire.shared must be a boolean');
      return {
        type: 'Acquire',
        name: s('name'),
        leaseId: n('leaseId'),
        wait: r.wait,
        ...(r.permits === undefined ? {} : { permits: n('permits') }),
        ...(r.shared === undefined ? {} : { shared: r.shared as boolean }),
        ...(r.lockDelayMs === undefined ? {} : { lockDelayMs: n('lockDelayMs') }),
        ...(r.value === undefined ? {} : { value: s('value') }),
        ...rid(),
      };
    case 'Release':
      return { type: 'Release', name: s('name'), token: n('token'), ...(r.leaseId === undefined ? {} : { leaseId: n('leaseId') }), ...rid() };
    case 'SetPermits':
      return { type: 'SetPermits', name: s('name'), permits: n('permits'), ...rid() };
    case 'Proclaim':
      return { type: 'Proclaim', name: s('name'), token: n('token'), value: s('value') };
    case 'FenceWrite': {
      let value: Uint8Array;
      try {
        value = fromBase64(s('value'));
      } catch (e) {
        throw new CommandDecodeError(`FenceWrite.value: ${(e as Error).message}`);
      }
      return { type: 'FenceWrite', key: s('key'), value, token: n('token'), ...lock(), ...rid() };
    }
    case 'FenceDelete':
      return { type: 'FenceDelete', key: s('key'), token: n('token'), ...lock(), ...rid() };
    case 'CancelWait':
      return {
        type: 'CancelWait',
        name: s('name'),
        leaseId: n('leaseId'),
        ...(r.abandonedAtIndex === undefined ? {} : { abandonedAtIndex: n('abandonedAtIndex') }),
        ...rid(),
      };
    case 'AclGrant':
    case 'AclRevoke': {
      const verb = s('verb');
      if (!(ACL_VERBS as readonly string[]).includes(verb)) throw new CommandDecodeError(`${type}.verb ${JSON.stringify(verb)} is not a verb`);
      return { type, subject: s('subject'), prefix: s('prefix'), verb: verb as AclVerb, ...rid() };
    }
  }
}
