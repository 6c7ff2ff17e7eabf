// Stored values. Each one is [crc32 of the payload: u32 big-endian][payload], so a damaged value
// is detected on load instead of being handed to Raft.
import { crc32 } from 'node:zlib';
import type { Entry, HardState, Snapshot } from '../../raft/types.js';
import { FormatError, RecordError } from './data-dir-errors.js';

export interface Identity {
  readonly clusterId: string;
  readonly nodeId: string;
}

/**
 * Bump when the layout changes, of these records or of what they carry; a node refuses a format it
 * does not know, and migrates PREVIOUS_STORAGE_FORMAT on start (migrate.ts, after copying the dir).
 * 2: log entries hold commands in the binary command codec (command-codec.ts format 2); format 1
 * held them as JSON, which this build would refuse at apply, mid-log.
 * 3: the identity record names the lockd that created or migrated the dir (`writer`, the build line
 * of node/versions.ts), so a build that finds a newer format can say which lockd wrote it. Nothing
 * else changed: a format 2 dir becomes format 3 by rewriting its identity record.
 */
export const STORAGE_FORMAT = 3;
/** The format this build migrates on start (the one before STORAGE_FORMAT). */
export const PREVIOUS_STORAGE_FORMAT = 2;

function seal(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeUInt32BE(crc32(payload), 0);
  out.set(payload, 4);
  return out;
}

function unseal(value: Uint8Array): Buffer {
  const buf = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (buf.length < 4) throw new RecordError(`value too short (${buf.length} bytes)`);
  const payload = buf.subarray(4);
  const want = buf.readUInt32BE(0);
  const got = crc32(payload);
  if (want !== got) throw new RecordError(`checksum mismatch (stored ${hex(want)}, computed ${hex(got)})`);
  return payload;
}

const hex = (n: number): string => n.toString(16).padStart(8, '0');

export function sealJson(obj: unknown): Buffer {
  return seal(Buffer.from(JSON.stringify(obj), 'utf8'));
}

export function unsealJson(value: Uint8Array): Record<string, unknown> {
  let obj: unknown;
  try {
    obj = JSON.parse(unseal(value).toString('utf8'));
  } catch (e) {
    if (e instanceof RecordError) throw e;
    throw new RecordError(`not JSON: ${(e as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null) throw new RecordError('not a JSON object');
  return obj as Record<string, unknown>;
}

function uint(obj: Record<string, unknown>, field: string): number {
  const v = obj[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new RecordError(`field ${field} is not a uint: ${String(v)}`);
  return v;
}

function str(obj: Record<string, unknown>, field: string): string {
  const v = obj[field];
  if (typeof v !== 'string') throw new RecordError(`field ${field} is not a string`);
  return v;
}

/** `writer`: the build line of the lockd writing it (node/versions.ts buildLine). */
export function encodeIdentity(id: Identity, writer: string): Buffer {
  return sealJson({ format: STORAGE_FORMAT, clusterId: id.clusterId, nodeId: id.nodeId, writer });
}

/** The identity record as stored, in this format or the previous one (whose record lacks `writer`). */
export interface StoredIdentity extends Identity {
  readonly format: number;
  /** The lockd that created or migrated the dir ('' in format 2). */
  readonly writer: string;
}

export function decodeIdentity(value: Uint8Array): StoredIdentity {
  const obj = unsealJson(value);
  if (obj.format === 1)
    throw new FormatError(
      `storage format 1 was written by a lockd before the binary command codec (this build reads ${STORAGE_FORMAT}) and its log cannot be read here. ` +
        'A cluster cannot be upgraded in place across this change: run this version on fresh data dirs (clients acquire their leases and locks anew)',
    );
  if (typeof obj.format === 'number' && obj.format > STORAGE_FORMAT) throw new FormatError(newerFormat(obj.format, obj.writer));
  if (obj.format !== STORAGE_FORMAT && obj.format !== PREVIOUS_STORAGE_FORMAT)
    throw new FormatError(`unknown storage format ${String(obj.format)} (this build reads ${STORAGE_FORMAT})`);
  const writer = obj.format === STORAGE_FORMAT ? str(obj, 'writer') : '';
  return { format: obj.format, clusterId: str(obj, 'clusterId'), nodeId: str(obj, 'nodeId'), writer };
}

/** Why a data dir of a newer storage format is refused, and what to do: a downgrade is not supported. */
export function newerFormat(format: number, writer: unknown): string {
  const by = typeof writer === 'string' && writer !== '' ? ` by ${writer.slice(0, 120)}` : '';
  return (
    `storage format ${format} was written${by}, a newer lockd than this build (which reads ${STORAGE_FORMAT} and migrates ${PREVIOUS_STORAGE_FORMAT}). ` +
    'Downgrades are not supported: run that lockd version (or newer) on this data dir; to run this build on this node instead, ' +
    'remove the member (lockctl member remove ID) and add a new member in its place on an empty data dir (docs/operating.md "Upgrades")'
  );
}

/**
 * The bootstrap voters' ids, sorted: what a start's --peers must name (addresses may change, ids
 * may not) until the log or a snapshot holds a configuration of its own. Empty: the data dir was
 * made by `--join` (it learns the configuration from the cluster).
 */
export interface Configuration {
  readonly voters: readonly string[];
}

export function encodeConfiguration(c: Configuration): Buffer {
  return sealJson({ voters: [...c.voters].sort() });
}

export function decodeConfiguration(value: Uint8Array): Configuration {
  const voters = unsealJson(value).voters;
  if (!Array.isArray(voters) || !voters.every((v) => typeof v === 'string' && v !== '')) throw new RecordError('configuration voters malformed');
  return { voters: [...(voters as string[])].sort() };
}

export function encodeHardState(hs: HardState): Buffer {
  return sealJson({ term: hs.term, vote: hs.vote, commit: hs.commit });
}

export function decodeHardState(value: Uint8Array): HardState {
  const obj = unsealJson(value);
  return { term: uint(obj, 'term'), vote: str(obj, 'vote'), commit: uint(obj, 'commit') };
}

/**
 * Payload: index u64 | term word u64 | data. The index is stored too, so a value under the wrong
 * key is caught. The term word's top bit marks a config entry (Entry.type 'config'): terms never
 * come near 2^63 (safe() refuses above 2^53), and an entry written before membership changes
 * existed reads as a normal one, so old data dirs need no migration.
 */
const CONFIG_FLAG = 1n << 63n;

export function encodeEntry(e: Entry): Buffer {
  const payload = Buffer.allocUnsafe(16 + e.data.length);
  payload.writeBigUInt64BE(BigInt(e.index), 0);
  payload.writeBigUInt64BE(BigInt(e.term) | (e.type === 'config' ? CONFIG_FLAG : 0n), 8);
  payload.set(e.data, 16);
  return seal(payload);
}

export function decodeEntry(value: Uint8Array): Entry {
  const payload = unseal(value);
  if (payload.length < 16) throw new RecordError(`entry payload too short (${payload.length} bytes)`);
  const index = safe(payload.readBigUInt64BE(0), 'index');
  const word = payload.readBigUInt64BE(8);
  const config = (word & CONFIG_FLAG) !== 0n;
  const term = safe(word & ~CONFIG_FLAG, 'term');
  return { index, term, data: new Uint8Array(payload.subarray(16)), ...(config ? { type: 'config' as const } : {}) };
}

function safe(n: bigint, what: string): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RecordError(`${what} ${n} exceeds 2^53`);
  return Number(n);
}

/** Payload: metadata JSON length u32 | metadata JSON | data. */
export function encodeSnapshot(s: Snapshot): Buffer {
  const meta = Buffer.from(JSON.stringify(s.metadata), 'utf8');
  const payload = Buffer.allocUnsafe(4 + meta.length + s.data.length);
  payload.writeUInt32BE(meta.length, 0);
  payload.set(meta, 4);
  payload.set(s.data, 4 + meta.length);
  return seal(payload);
}

export function decodeSnapshot(value: Uint8Array): Snapshot {
  const payload = unseal(value);
  if (payload.length < 4) throw new RecordError('snapshot payload too short');
  const metaLen = payload.readUInt32BE(0);
  if (4 + metaLen > payload.length) throw new RecordError(`snapshot metadata length ${metaLen} overruns the value`);
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(payload.subarray(4, 4 + metaLen).toString('utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new RecordError(`snapshot metadata is not JSON: ${(e as Error).message}`);
  }
  if (typeof meta !== 'object' || meta === null) throw new RecordError('snapshot metadata is not a JSON object');
  const ids = (field: string): string[] | undefined => {
    const v = meta[field];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) throw new RecordError(`snapshot ${field} malformed`);
    return v as string[];
  };
  const voters = meta.voters;
  if (!Array.isArray(voters) || !voters.every((v) => typeof v === 'string')) throw new RecordError('snapshot voters malformed');
  // The membership fields are absent in snapshots taken before membership changes (and when empty).
  const learners = ids('learners');
  const removed = ids('removed');
  const configIndex = meta.configIndex === undefined ? undefined : uint(meta, 'configIndex');
  const index = uint(meta, 'index');
  if (configIndex !== undefined && configIndex > index) throw new RecordError(`snapshot at ${index} carries the configuration of entry ${configIndex}`);
  return {
    metadata: {
      index,
      term: uint(meta, 'term'),
      voters,
      ...(learners ? { learners } : {}),
      ...(removed ? { removed } : {}),
      ...(configIndex !== undefined ? { configIndex } : {}),
    },
    data: new Uint8Array(payload.subarray(4 + metaLen)),
  };
}

/** Members' addresses (id → peer, and client when known): a hint for the next start, not consensus state. */
export type PeerBook = Record<string, { readonly peer: string; readonly client?: string }>;

export function encodePeerBook(book: PeerBook): Buffer {
  return sealJson({ peers: book });
}

/** Shape only: the node checks every address before using one (peer-directory.ts). */
export function decodePeerBook(value: Uint8Array): PeerBook {
  const peers = unsealJson(value).peers;
  if (typeof peers !== 'object' || peers === null || Array.isArray(peers)) throw new RecordError('peer book malformed');
  const out: PeerBook = {};
  for (const [id, a] of Object.entries(peers as Record<string, unknown>)) {
    const { peer, client } = (a ?? {}) as Record<string, unknown>;
    if (typeof peer !== 'string' || (client !== undefined && typeof client !== 'string')) throw new RecordError(`peer book entry ${id} malformed`);
    out[id] = client === undefined ? { peer } : { peer, client };
  }
  return out;
}
