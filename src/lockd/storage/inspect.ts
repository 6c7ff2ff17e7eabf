// Reading a STOPPED node's data dir for people (lockctl log dump): its identity, configuration,
// hard state, snapshot and entries, each record checked as the loader checks it. It opens LevelDB
// without creating anything, so a directory that is not a data dir stays as it was; a running
// node holds LevelDB's lock, so its dir is refused ('locked') rather than read under its feet.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry, HardState, Snapshot } from '../../raft/types.js';
import { type Db, openLevel } from './db.js';
import { DataDirError, FormatError, RecordError } from './data-dir-errors.js';
import { CONFIG_KEY, ENTRY_RANGE, HARD_STATE_KEY, IDENTITY_KEY, SNAPSHOT_KEY, entryKey, parseEntryKey } from './keys.js';
import { type Configuration, type Identity, decodeConfiguration, decodeEntry, decodeHardState, decodeIdentity, decodeSnapshot } from './records.js';

export class DataDirReader {
  private constructor(
    private readonly db: Db,
    readonly dir: string,
    readonly identity: Identity,
    readonly configuration: Configuration | undefined,
    readonly hardState: HardState | undefined,
    readonly snapshot: Snapshot | undefined,
  ) {}

  /** Throws DataDirError: 'locked' (a node has it open), 'unusable' (no LevelDB there), 'foreign' (a LevelDB that is not lockd's), 'corrupt'. */
  static async open(dir: string): Promise<DataDirReader> {
    // LevelDB's open makes the directory and its LOCK and LOG files even with createIfMissing
    // false: look for a database (its CURRENT file) first, so a wrong path is left untouched.
    if (!existsSync(join(dir, 'CURRENT'))) {
      const what = !existsSync(dir) ? 'no such directory' : statSync(dir).isDirectory() ? 'no LevelDB database in it (no CURRENT file)' : 'not a directory';
      throw new DataDirError('unusable', dir, `not a lockd data dir: ${what}`);
    }
    const db = openLevel(dir, { createIfMissing: false });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED')
        throw new DataDirError('locked', dir, 'another process has it open — is its node running? Stop it first (./cluster.sh stop, or kill its pid)');
      throw new DataDirError('unusable', dir, `not a lockd data dir: LevelDB cannot open it (${cause?.message ?? (e as Error).message})`);
    }
    try {
      const id = await db.get(IDENTITY_KEY);
      if (id === undefined) throw new DataDirError('foreign', dir, 'a LevelDB database without a lockd identity record: not a lockd data dir');
      const read = <T>(key: string, value: Buffer | undefined, fn: (v: Buffer) => T): T | undefined => {
        if (value === undefined) return undefined;
        try {
          return fn(value);
        } catch (e) {
          if (e instanceof FormatError) throw new DataDirError('format', dir, e.message);
          if (e instanceof RecordError) throw new DataDirError('corrupt', dir, `record ${key}: ${e.message}`);
          throw e;
        }
      };
      return new DataDirReader(
        db,
        dir,
        read(IDENTITY_KEY, id, decodeIdentity)!,
        read(CONFIG_KEY, await db.get(CONFIG_KEY), decodeConfiguration),
        read(HARD_STATE_KEY, await db.get(HARD_STATE_KEY), decodeHardState),
        read(SNAPSHOT_KEY, await db.get(SNAPSHOT_KEY), decodeSnapshot),
      );
    } catch (e) {
      await db.close();
      throw e;
    }
  }

  /** The entries from index `from` on, in index order, each checked (checksum, key/index agreement). */
  async *entries(from = 1): AsyncGenerator<Entry> {
    const gte = from > 1 ? entryKey(from) : ENTRY_RANGE.gte;
    for await (const [key, value] of this.db.iterator({ gte, lt: ENTRY_RANGE.lt })) {
      const index = parseEntryKey(key);
      if (index === undefined) throw new DataDirError('corrupt', this.dir, `malformed entry key ${JSON.stringify(key)}`);
      let e: Entry;
      try {
        e = decodeEntry(value);
      } catch (err) {
        if (err instanceof RecordError) throw new DataDirError('corrupt', this.dir, `entry ${index}: ${err.message}`);
        throw err;
      }
      if (e.index !== index) throw new DataDirError('corrupt', this.dir, `the value under entry key ${index} is entry ${e.index}`);
      yield e;
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
