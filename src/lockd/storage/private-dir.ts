// The data dir is private: it holds the cluster id, fence and election values, principals and
// access rules. A new one is made 0700; an existing one that others on the host may enter or read
// (group or world bits, e.g. made by an older lockd or by hand) is tightened to 0700, and the node
// says so: that closes every file in it to others, whatever their own modes.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { DataDirError } from './data-dir-errors.js';

/** The mode `dir` had before it was tightened to 0700, or undefined when it was private already (or new). */
export function makeDataDirPrivate(dir: string): number | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new DataDirError('unusable', dir, (e as Error).message);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // mkdir's mode is masked by the umask; be exact
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  try {
    chmodSync(dir, 0o700);
  } catch (e) {
    throw new DataDirError(
      'unusable',
      dir,
      `it is readable by others (mode ${(mode & 0o777).toString(8)}) and could not be made private: ${(e as Error).message}`,
    );
  }
  return mode & 0o777;
}
