// The backup file (`lockctl snapshot save FILE`, read by `lockd restore --from FILE` and
// `lockctl snapshot status FILE`): the leader builds these bytes and streams them as they are
// (lockd.v1 Maintenance.Snapshot), the client writes them down. docs/operating.md §5 ("Backup file"):
//
//   "LOCKDBAK" (8 bytes) | header length (u32 big-endian) | header (UTF-8 JSON) | state | SHA-256 (32 bytes)
//
// The SHA-256 covers every byte before it, so a client can check a file without parsing it; the
// header says what the state (a state machine snapshot, snapshot-codec.ts) reflects: its index and
// term, the configuration in effect there, who took it and when. Nothing here trusts the file: a
// damaged, truncated or foreign one is a BackupFileError that says which.
import { createHash } from 'node:crypto';
import { STORAGE_FORMAT } from './records.js';

export const BACKUP_FILE_FORMAT = 1;
const MAGIC = Buffer.from('LOCKDBAK', 'latin1');
const DIGEST_BYTES = 32;
/** The largest header a reader accepts (membership is bounded: 32 members, 1024 removed ids). */
const MAX_HEADER_BYTES = 1024 * 1024;
/** The largest backup a reader accepts: far above any state the limits allow (1,024 fenced values of 64 KiB...). */
export const MAX_BACKUP_BYTES = 1024 * 1024 * 1024;

export class BackupFileError extends Error {}

export interface BackupHeader {
  readonly fileFormat: number;
  /** The state machine snapshot format of `state` (SNAPSHOT_FORMAT_VERSION of the build that took it). */
  readonly stateFormat: number;
  /** The storage format of the data dirs of the build that took it (informational). */
  readonly storageFormat: number;
  /** The applied index the state reflects, and that entry's term. */
  readonly index: number;
  readonly term: number;
  /** The configuration in effect at `index`. */
  readonly voters: readonly string[];
  readonly learners: readonly string[];
  readonly removed: readonly string[];
  /** The node that took it (the leader then) and when, by its wall clock (ISO 8601; informational only). */
  readonly takenBy: string;
  readonly takenAt: string;
  /** clusterFingerprint() of the cluster it came from: a restore refuses to reuse that cluster's id. */
  readonly sourceCluster: string;
  readonly stateBytes: number;
}

export interface Backup {
  readonly header: BackupHeader;
  readonly state: Uint8Array;
}

/**
 * A one-way fingerprint of a cluster id, so a restore can tell "this is the backed-up cluster's id"
 * without the backup holding the id (the secret a peer stream needs). 64 bits of SHA-256.
 */
export function clusterFingerprint(clusterId: string): string {
  return createHash('sha256').update('lockd backup source cluster\u0000').update(clusterId, 'utf8').digest('hex').slice(0, 16);
}

export function encodeBackup(h: Omit<BackupHeader, 'fileFormat' | 'storageFormat' | 'stateBytes'>, state: Uint8Array): Buffer {
  const header: BackupHeader = { fileFormat: BACKUP_FILE_FORMAT, storageFormat: STORAGE_FORMAT, ...h, stateBytes: state.length };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32BE(json.length, 0);
  const body = Buffer.concat([MAGIC, len, json, state]);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** Check and split a whole backup file. Throws BackupFileError naming what is wrong. */
export function decodeBackup(bytes: Uint8Array): Backup {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < MAGIC.length + 4 + DIGEST_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC))
    throw new BackupFileError(`not a lockd backup (it does not start with ${MAGIC.toString('latin1')}; made by lockctl snapshot save?)`);
  if (buf.length > MAX_BACKUP_BYTES) throw new BackupFileError(`${buf.length} bytes: larger than any backup (${MAX_BACKUP_BYTES})`);
  const body = buf.subarray(0, buf.length - DIGEST_BYTES);
  const want = buf.subarray(buf.length - DIGEST_BYTES);
  const got = createHash('sha256').update(body).digest();
  if (!got.equals(want))
    throw new BackupFileError(
      `checksum mismatch (stored sha256 ${want.toString('hex').slice(0, 16)}…, computed ${got.toString('hex').slice(0, 16)}…): the file is damaged or truncated`,
    );
  const headerLen = buf.readUInt32BE(MAGIC.length);
  const start = MAGIC.length + 4;
  if (headerLen > MAX_HEADER_BYTES || start + headerLen > body.length) throw new BackupFileError(`header length ${headerLen} overruns the file`);
  let raw: unknown;
  try {
    raw = JSON.parse(body.subarray(start, start + headerLen).toString('utf8'));
  } catch (e) {
    throw new BackupFileError(`header is not JSON: ${(e as Error).message}`);
  }
  const header = checkHeader(raw);
  const state = new Uint8Array(body.subarray(start + headerLen));
  if (state.length !== header.stateBytes) throw new BackupFileError(`the header says ${header.stateBytes} bytes of state, the file holds ${state.length}`);
  return { header, state };
}

/** sha256 of a whole backup as hex (what `snapshot status` prints, to compare copies). */
export function backupDigest(bytes: Uint8Array): string {
  return Buffer.from(bytes.subarray(bytes.length - DIGEST_BYTES)).toString('hex');
}

function checkHeader(raw: unknown): BackupHeader {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BackupFileError('header is not a JSON object');
  const o = raw as Record<string, unknown>;
  const uint = (f: string): number => {
    const v = o[f];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new BackupFileError(`header field ${f} is not a non-negative integer`);
    return v;
  };
  const str = (f: string): string => {
    const v = o[f];
    if (typeof v !== 'string') throw new BackupFileError(`header field ${f} is not a string`);
    return v;
  };
  const ids = (f: string): string[] => {
    const v = o[f];
    if (!Array.isArray(v) || v.length > 2048 || !v.every((x) => typeof x === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(x)))
      throw new BackupFileError(`header field ${f} is not a list of node ids`);
    return v as string[];
  };
  const fileFormat = uint('fileFormat');
  if (fileFormat !== BACKUP_FILE_FORMAT)
    throw new BackupFileError(
      `backup file format ${fileFormat} is not one this build reads (${BACKUP_FILE_FORMAT}): use the lockd that wrote it, or a newer one`,
    );
  const h: BackupHeader = {
    fileFormat,
    stateFormat: uint('stateFormat'),
    storageFormat: uint('storageFormat'),
    index: uint('index'),
    term: uint('term'),
    voters: ids('voters'),
    learners: ids('learners'),
    removed: ids('removed'),
    takenBy: str('takenBy'),
    takenAt: str('takenAt'),
    sourceCluster: str('sourceCluster'),
    stateBytes: uint('stateBytes'),
  };
  if (h.index < 1) throw new BackupFileError('header index is 0: a backup reflects at least one applied entry');
  if (h.term < 1) throw new BackupFileError('header term is 0: the entry a backup reflects was written in a term of at least 1');
  if (h.voters.length === 0) throw new BackupFileError('header names no voters');
  return h;
}
