// Migration of a data dir of the previous storage format (records.ts PREVIOUS_STORAGE_FORMAT) on
// start, so that an upgrade never refuses a node's own data dir without a way forward. First the
// whole dir is copied, closed, beside itself (DIR.storage-2-backup-TIME, 0700): the way back for
// forensics or a whole-cluster rollback (docs/operating.md §4). Then the records are
// rewritten in place in one synced batch; the copy is never deleted by lockd. A dir of a NEWER format
// (a downgrade) is refused with what to do (records.ts newerFormat); other formats are left to the
// loader, which refuses them with their own reason.
import { chmodSync, cpSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openLevel, openOrRefuse } from './db.js';
import { DataDirError, RecordError } from './data-dir-errors.js';
import { IDENTITY_KEY } from './keys.js';
import { refuseIfRestoring } from './restoring-mark.js';
import { PREVIOUS_STORAGE_FORMAT, STORAGE_FORMAT, encodeIdentity, newerFormat, unsealJson } from './records.js';
import { syncPath } from './sync-path.js';

export interface Migrated {
  readonly from: number;
  readonly to: number;
  /** Where the dir as it was is kept. */
  readonly backup: string;
}

/**
 * Bring `dir` to STORAGE_FORMAT if it holds the previous one (undefined: nothing to do — no
 * database, no identity, or already current). `writer` is this build's line (node/versions.ts);
 * `owner` the node that opens it. Throws DataDirError 'format' for a newer format, 'foreign' for
 * another node's or cluster's dir and 'restoring' for a half-restored one (before anything is copied
 * or written: a wrong --data-dir must not turn the owner's dir into a format its build cannot read),
 * 'locked'/'unusable' when LevelDB cannot open it.
 */
export async function migrateDataDir(
  dir: string,
  writer: string,
  owner: { readonly clusterId: string; readonly nodeId: string },
  now: Date = new Date(),
): Promise<Migrated | undefined> {
  if (!existsSync(join(dir, 'CURRENT'))) return undefined; // no database yet: a new node
  refuseIfRestoring(dir);
  const identity = await readIdentity(dir);
  const format = identity?.format;
  if (typeof format === 'number' && format > STORAGE_FORMAT) throw new DataDirError('format', dir, newerFormat(format, identity?.writer));
  if (format !== PREVIOUS_STORAGE_FORMAT) return undefined;
  if (identity?.clusterId !== owner.clusterId)
    throw new DataDirError(
      'foreign',
      dir,
      "it belongs to another cluster (its cluster id is not this node's --cluster-id-file / --cluster-id); nothing was copied or migrated",
    );
  if (identity?.nodeId !== owner.nodeId)
    throw new DataDirError(
      'foreign',
      dir,
      `it belongs to node ${JSON.stringify(identity?.nodeId)}, not ${JSON.stringify(owner.nodeId)}; nothing was copied or migrated`,
    );
  const backup = `${resolve(dir)}.storage-${PREVIOUS_STORAGE_FORMAT}-backup-${stamp(now)}`;
  if (existsSync(backup)) throw new DataDirError('unusable', dir, `the migration's backup copy ${backup} exists already: move it away and start again`);
  try {
    cpSync(dir, backup, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true });
    chmodSync(backup, 0o700);
    // The copy is the way back: durable before the original is rewritten (a power cut must not
    // leave a format-3 original beside an empty or torn copy).
    syncTree(backup);
    syncPath(dirname(backup));
  } catch (e) {
    throw new DataDirError(
      'unusable',
      dir,
      `storage format ${PREVIOUS_STORAGE_FORMAT} must be migrated to ${STORAGE_FORMAT}, but the backup copy to ${backup} failed (${(e as Error).message}); nothing was changed`,
    );
  }
  const db = openLevel(dir, { createIfMissing: false });
  await openOrRefuse(db, dir);
  try {
    const value = await db.get(IDENTITY_KEY);
    if (value === undefined) throw new DataDirError('corrupt', dir, 'the identity record vanished during migration');
    const old = unsealJson(value);
    if (typeof old.clusterId !== 'string' || typeof old.nodeId !== 'string')
      throw new DataDirError('corrupt', dir, `record ${IDENTITY_KEY}: clusterId or nodeId is not a string`);
    // 2 → 3: the identity names its writer; every other record is unchanged.
    await db.batch([{ type: 'put', key: IDENTITY_KEY, value: encodeIdentity({ clusterId: old.clusterId, nodeId: old.nodeId }, writer) }], { sync: true });
  } catch (e) {
    if (e instanceof RecordError) throw new DataDirError('corrupt', dir, `record ${IDENTITY_KEY}: ${e.message}`);
    throw e;
  } finally {
    await db.close();
  }
  return { from: PREVIOUS_STORAGE_FORMAT, to: STORAGE_FORMAT, backup };
}

/** The identity record's fields (undefined: no identity, or a damaged one, which the loader refuses as corrupt). */
async function readIdentity(dir: string): Promise<Record<string, unknown> | undefined> {
  const db = openLevel(dir, { createIfMissing: false });
  await openOrRefuse(db, dir);
  try {
    const value = await db.get(IDENTITY_KEY);
    if (value === undefined) return undefined;
    try {
      return unsealJson(value);
    } catch (e) {
      if (e instanceof RecordError) return undefined;
      throw e;
    }
  } finally {
    await db.close();
  }
}

/** fsync every file and directory under `dir` (a LevelDB dir: one level of files). */
function syncTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) syncTree(join(dir, e.name));
    else if (e.isFile()) syncPath(join(dir, e.name));
  }
  syncPath(dir);
}

/** 20261202T201500Z: sortable, and no character a shell or a file system minds. */
function stamp(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
