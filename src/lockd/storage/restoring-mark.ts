// The mark of a data dir that `lockd restore` is still writing. LevelStorage.open writes the
// identity (with the new cluster id) before the restored snapshot goes in: a restore interrupted
// between the two would leave a data dir that boots as an EMPTY cluster under the new id — every
// lock and lease forgotten, tokens from 1 again. The mark goes in first (synced) and comes out last,
// and every open refuses a marked dir. A file in the dir rather than a staging dir renamed into
// place, because a data dir is often a mount point (a volume), which cannot be renamed onto.
import { closeSync, existsSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError } from './data-dir-errors.js';
import { syncPath } from './sync-path.js';

export const RESTORING_MARK = 'LOCKD-RESTORING';

/** Refuse (DataDirError 'unusable') a data dir an interrupted restore left. */
export function refuseIfRestoring(dir: string): void {
  if (existsSync(join(dir, RESTORING_MARK)))
    throw new DataDirError(
      'unusable',
      dir,
      `a lockd restore into it did not finish (${RESTORING_MARK} is there): empty the data dir and run the restore again`,
    );
}

/** Put the mark in (the dir exists and is empty), durably, before anything else is written. */
export function markRestoring(dir: string): void {
  const fd = openSync(join(dir, RESTORING_MARK), 'wx', 0o600);
  try {
    writeSync(fd, 'lockd restore is writing this data dir; it is not usable until the restore finishes\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncPath(dir);
}

/** Take the mark out once the data dir is complete (and synced). */
export function clearRestoring(dir: string): void {
  unlinkSync(join(dir, RESTORING_MARK));
  syncPath(dir);
}
