// Entry.data for a command: a compact binary form (format 2; format 1 was UTF-8 JSON and is refused).
// Deterministic (same command -> same bytes, same bytes -> same command on every replica) and strict:
// a malformed or unknown entry throws rather than being skipped, because skipping on some replicas
// and not others would split them. Every decode is bounded by the entry's own bytes: no length or
// count is trusted beyond what remains, so no entry makes a replica allocate more than it holds.
//
// Layout (primitives in codec/binary.ts: uint = minimal LEB128 ≤ 2^53 - 1, str = uint length + UTF-8,
// bytes = uint length + bytes):
//   u8 COMMAND_FORMAT_VERSION (2)
//   u8 type code            SCHEMAS below, in order: Grant = 1 … AclRevoke = 12, QuotaSet = 13
//   uint presence           bit k set: the k-th optional field of the type is present
//   the fields, in schema order: required ones always, optional ones when present; a `flag`
//   (an optional boolean that is only ever true) has no bytes, its presence bit is its value.
// num (any finite JS number): uint n + 1 for an integer 0 ≤ n < 2^53 - 1 (almost every value: one byte
// below 127); otherwise uint 0, then the number as a float64, little-endian (negative, fractional,
// 2^53 - 1 and above: what validateCommand refuses at apply, but must still decode alike everywhere).
// An optional field equal to its default is left out (as format 1 did: '' request id, 0 drift,
// permits ≤ 1, anonymous principal …), so one command has one encoding and decodes without it.

import type { Command } from './commands.js';
import { ANONYMOUS, ACL_VERBS } from './acl-table.js';
import { MAX_UINT_BYTES, Reader, Writer, maxStrBytes } from '../codec/binary.js';

export const COMMAND_FORMAT_VERSION = 2;

export class CommandDecodeError extends Error {
  constructor(detail: string) {
    super(`lockd command: ${detail}`);
  }
}

type Kind = 'num' | 'str' | 'bool' | 'bytes' | 'nums' | 'flag';
interface Field {
  readonly key: string;
  readonly kind: Kind;
  /** Optional: left out when absent or when this says the value is the default. */
  readonly omit?: (v: unknown) => boolean;
}

const req = (key: string, kind: Exclude<Kind, 'flag'>): Field => ({ key, kind });
const opt = (key: string, kind: Kind, omit: (v: unknown) => boolean): Field => ({ key, kind, omit });
const zero = (v: unknown): boolean => v === 0;
const empty = (v: unknown): boolean => v === '';
const no = (v: unknown): boolean => v === false;
/** Optional with no default (a quota of 0 is a value): present whenever given. */
const never = (): boolean => false;

const REQUEST_ID = opt('requestId', 'str', empty);
const AUTHORITY: readonly Field[] = [opt('principal', 'str', (v) => v === ANONYMOUS), opt('admin', 'flag', no), opt('acl', 'flag', no)];
// Authority.quota came later (quotas.ts): appended to every client command's schema, after its
// other fields, so entries written before it decode with it absent.
const QUOTA = opt('quota', 'flag', no);

/** Field order is byte order; never reorder, renumber or drop (that is a new format version). */
const SCHEMAS: readonly (readonly [Command['type'], readonly Field[]])[] = [
  ['Grant', [req('ttlMs', 'num'), req('marginMs', 'num'), opt('driftPpm', 'num', zero), REQUEST_ID, ...AUTHORITY, QUOTA]],
  ['Revoke', [req('leaseId', 'num'), REQUEST_ID, ...AUTHORITY, QUOTA]],
  // clusterVersion and expiryWork came later (lockd 0.2.0): appended; a leader sets them only when every member decodes them.
  [
    'Tick',
    [
      req('elapsedMs', 'num'),
      req('marginMs', 'num'),
      opt('driftPpm', 'num', zero),
      req('renewed', 'nums'),
      opt('clusterVersion', 'str', empty),
      opt('expiryWork', 'num', zero),
    ],
  ],
  [
    'Acquire',
    [
      req('name', 'str'),
      req('leaseId', 'num'),
      req('wait', 'bool'),
      // The mutex defaults (permits 0/1, not shared, no delay, no value) are left out.
      opt('permits', 'num', (v) => v === 0 || v === 1),
      opt('shared', 'flag', no),
      opt('lockDelayMs', 'num', zero),
      opt('value', 'str', empty),
      REQUEST_ID,
      ...AUTHORITY,
      opt('election', 'flag', no),
      QUOTA,
    ],
  ],
  ['Release', [req('name', 'str'), req('token', 'num'), opt('leaseId', 'num', zero), REQUEST_ID, ...AUTHORITY, QUOTA]],
  ['SetPermits', [req('name', 'str'), req('permits', 'num'), REQUEST_ID, ...AUTHORITY, QUOTA]],
  // leaseId came later: appended, so entries written before it decode with it absent.
  ['Proclaim', [req('name', 'str'), req('token', 'num'), req('value', 'str'), ...AUTHORITY, opt('leaseId', 'num', zero), QUOTA]],
  ['FenceWrite', [req('key', 'str'), req('value', 'bytes'), req('token', 'num'), opt('lock', 'str', empty), REQUEST_ID, ...AUTHORITY, QUOTA]],
  ['FenceDelete', [req('key', 'str'), req('token', 'num'), opt('lock', 'str', empty), REQUEST_ID, ...AUTHORITY, QUOTA]],
  [
    'CancelWait',
    [req('name', 'str'), req('leaseId', 'num'), opt('abandonedAtIndex', 'num', zero), REQUEST_ID, ...AUTHORITY, opt('acquireRequestId', 'str', empty), QUOTA],
  ],
  ['AclGrant', [req('subject', 'str'), req('prefix', 'str'), req('verb', 'str'), REQUEST_ID, ...AUTHORITY, QUOTA]],
  ['AclRevoke', [req('subject', 'str'), req('prefix', 'str'), req('verb', 'str'), REQUEST_ID, ...AUTHORITY, QUOTA]],
  // QuotaSet came with quotas (a leader proposes it only once every member decodes it).
  [
    'QuotaSet',
    [
      req('subject', 'str'),
      opt('leases', 'num', never),
      opt('locks', 'num', never),
      opt('dedupIds', 'num', never),
      opt('electionBytes', 'num', never),
      opt('fenceKeys', 'num', never),
      opt('reset', 'flag', no),
      REQUEST_ID,
      ...AUTHORITY,
      QUOTA,
    ],
  ],
];

interface Schema {
  readonly type: Command['type'];
  readonly code: number;
  readonly fields: readonly Field[];
  /** Optional fields in order: bit k of the presence word is optional[k]. */
  readonly optional: readonly Field[];
  /** 'Type.key' per field, for error messages (built once, not per decode). */
  readonly labels: readonly string[];
}
const BY_CODE: readonly (Schema | undefined)[] = [
  undefined,
  ...SCHEMAS.map(([type, fields], i) => ({ type, code: i + 1, fields, optional: fields.filter((f) => f.omit), labels: fields.map((f) => `${type}.${f.key}`) })),
];
const BY_TYPE = new Map<string, Schema>(BY_CODE.flatMap((s) => (s ? [[s.type, s] as [string, Schema]] : [])));
// Presence bits must fit one 31-bit integer word (bit operations below).
for (const s of BY_TYPE.values()) if (s.optional.length > 30) throw new Error(`command codec: ${s.type} has too many optional fields`);

const F64_BYTES = 8;

/** Throws TypeError on a structurally broken command (wrong JS types). Range/limit checks are validateCommand's. */
export function encodeCommand(cmd: Command): Uint8Array {
  const schema = BY_TYPE.get((cmd as { type: unknown }).type as string);
  if (!schema) throw new TypeError(`lockd command: unknown type ${JSON.stringify((cmd as { type: unknown }).type)}`);
  const c = cmd as unknown as Record<string, unknown>;
  let presence = 0;
  let size = 2 + MAX_UINT_BYTES;
  let bit = 0;
  for (const f of schema.fields) {
    const v = c[f.key];
    if (f.omit) {
      const present = v !== undefined && !f.omit(v);
      if (present) presence |= 1 << bit;
      bit++;
      if (!present) continue;
    }
    size += check(schema.type, f, v);
  }
  const w = new Writer(size);
  w.u8(COMMAND_FORMAT_VERSION);
  w.u8(schema.code);
  w.uint(presence);
  bit = 0;
  for (const f of schema.fields) {
    if (f.omit && !(presence & (1 << bit++))) continue;
    const v = c[f.key];
    switch (f.kind) {
      case 'num':
        writeNum(w, v as number);
        break;
      case 'str':
        w.str(v as string);
        break;
      case 'bool':
        w.u8(v ? 1 : 0);
        break;
      case 'bytes':
        w.bytes(v as Uint8Array);
        break;
      case 'nums':
        w.uint((v as readonly number[]).length);
        for (const n of v as readonly number[]) writeNum(w, n);
        break;
      case 'flag':
        break;
    }
  }
  // A copy of its own size, a plain Uint8Array: the entry lives in the log for a long while, and a
  // view would keep the writer's (upper-bound sized, possibly pooled) buffer alive with it.
  return new Uint8Array(w.result());
}

/** The value's JS type is what the field needs (else TypeError); returns an upper bound on its encoded bytes. */
function check(type: string, f: Field, v: unknown): number {
  switch (f.kind) {
    case 'num':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(type, f, 'a finite number');
      return MAX_UINT_BYTES + F64_BYTES;
    case 'str':
      if (typeof v !== 'string') throw bad(type, f, 'a string');
      // UTF-8 cannot carry a lone surrogate (validateCommand refuses one in every string field).
      if (!(v as unknown as { isWellFormed(): boolean }).isWellFormed()) throw bad(type, f, 'well-formed Unicode (no lone surrogate)');
      return maxStrBytes(v);
    case 'bool':
    case 'flag':
      if (typeof v !== 'boolean') throw bad(type, f, 'a boolean');
      return 1;
    case 'bytes':
      if (!(v instanceof Uint8Array)) throw bad(type, f, 'a Uint8Array');
      return MAX_UINT_BYTES + v.length;
    case 'nums':
      if (!Array.isArray(v)) throw bad(type, f, 'an array');
      for (const n of v) if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(type, f, 'a list of finite numbers');
      return MAX_UINT_BYTES + v.length * (MAX_UINT_BYTES + F64_BYTES);
  }
}

function bad(type: string, f: Field, what: string): TypeError {
  return new TypeError(`lockd command: ${type}.${f.key} must be ${what}`);
}

// See the top: n + 1 for the integers almost every field holds, 0 + float64 for anything else.
function writeNum(w: Writer, n: number): void {
  if (Number.isSafeInteger(n) && n >= 0 && n < Number.MAX_SAFE_INTEGER) return w.uint(n + 1); // -0 too: as 0, like JSON
  w.uint(0);
  w.f64(n);
}

function readNum(r: Reader, what: string): number {
  const u = r.uint(what);
  if (u > 0) return u - 1;
  const n = r.f64(what);
  if (!Number.isFinite(n)) throw new CommandDecodeError(`${what} is not a finite number`);
  if (Number.isSafeInteger(n) && n >= 0 && n < Number.MAX_SAFE_INTEGER) throw new CommandDecodeError(`${what}: ${n} is not in its canonical form`);
  return n;
}

const fail = (detail: string): CommandDecodeError => new CommandDecodeError(detail);

/** Throws CommandDecodeError on anything encodeCommand could not have produced. Empty data is a no-op: not a command. */
export function decodeCommand(data: Uint8Array): Command {
  if (data.length === 0) throw new CommandDecodeError('empty entry (a Raft no-op) is not a command');
  if (data[0] !== COMMAND_FORMAT_VERSION) {
    const hint = data[0] === 1 ? ' (format 1, JSON, was written by a lockd before the binary command codec: such a data dir is refused at start)' : '';
    throw new CommandDecodeError(`format version ${data[0]} is not supported (this build reads ${COMMAND_FORMAT_VERSION})${hint}`);
  }
  const r = new Reader(data, fail);
  r.u8('version');
  const code = r.u8('type');
  const schema = BY_CODE[code];
  if (!schema) throw new CommandDecodeError(`unknown type code ${code}`);
  const type = schema.type;
  const presence = r.uint('presence');
  if (presence >= 2 ** schema.optional.length) throw new CommandDecodeError(`${type} has presence bits for fields it does not have (${presence.toString(2)})`);
  const out: Record<string, unknown> = { type };
  const present: Field[] = [];
  let bit = 0;
  for (let k = 0; k < schema.fields.length; k++) {
    const f = schema.fields[k];
    if (f.omit && !(presence & (1 << bit++))) continue;
    const what = schema.labels[k];
    present.push(f);
    switch (f.kind) {
      case 'num':
        out[f.key] = readNum(r, what);
        break;
      case 'str':
        out[f.key] = r.str(what, r.remaining);
        break;
      case 'bool': {
        const b = r.u8(what);
        if (b > 1) throw new CommandDecodeError(`${what} must be a boolean (0 or 1), got ${b}`);
        out[f.key] = b === 1;
        break;
      }
      case 'bytes':
        // A plain copy: the command may outlive the entry buffer it came in (the fenced store keeps
        // it), and Buffer#slice would be a view into that buffer.
        out[f.key] = new Uint8Array(r.bytes(what, r.remaining));
        break;
      case 'nums': {
        const n = r.uint(`${what} count`);
        if (n > r.remaining) throw new CommandDecodeError(`${what} claims ${n} numbers, ${r.remaining} bytes remain`);
        const list: number[] = [];
        for (let i = 0; i < n; i++) list.push(readNum(r, what));
        out[f.key] = list;
        break;
      }
      case 'flag':
        out[f.key] = true;
        break;
    }
  }
  r.end(type);
  // Canonical: encodeCommand never writes an optional field holding its default, so one command has
  // one encoding (and every replica's dedup and snapshot bytes agree with the leader's).
  for (const f of present)
    if (f.omit && f.kind !== 'flag' && f.omit(out[f.key])) throw new CommandDecodeError(`${type}.${f.key} is present with its default value (not canonical)`);
  if ((type === 'AclGrant' || type === 'AclRevoke') && !(ACL_VERBS as readonly unknown[]).includes(out.verb))
    throw new CommandDecodeError(`${type}.verb ${JSON.stringify(out.verb)} is not a verb`);
  return out as unknown as Command;
}
