// The LevelDB handle type used by the storage: string keys, Buffer values.
import { Level } from 'level';
import { DataDirError } from './data-dir-errors.js';

export type Db = Level<string, Buffer>;

/** `createIfMissing: false` for readers (log dump) that must not turn any directory into a database. */
export function openLevel(dir: string, { createIfMissing = true }: { createIfMissing?: boolean } = {}): Db {
  return new Level<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing });
}

/** Open `db` (of data dir `dir`); a failure is the DataDirError the node exits 3 with ('locked' or 'unusable'). */
export async function openOrRefuse(db: Db, dir: string): Promise<void> {
  try {
    await db.open();
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new DataDirError('locked', dir, 'another process has it open');
    throw new DataDirError('unusable', dir, `LevelDB failed to open: ${cause?.message ?? (e as Error).message}`);
  }
}

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

/** What abstract-level asks of a store implementation (classic-level's `_batch`): no cloning, no checks. */
interface BatchImplementation {
  _batch(ops: readonly BatchOp[], options: { sync: boolean }): Promise<void>;
}

/**
 * One LevelDB write of `ops`, the hot path of every persist. It calls the store's implementation
 * method (`_batch`, abstract-level's private API for implementors) instead of the public batch(),
 * which clones every op with an object spread, re-validates it and looks up its encodings: about
 * 10 µs of main-thread time per write on this machine (scripts/level-batch-bench.ts).
 * That is safe here because LevelStorage alone writes, only to an open database, with ops it built:
 * utf8 string keys and Buffer values, which classic-level stores as the public path would (the same
 * bytes on disk). Anything else (a closed or still opening database) goes the public way.
 */
export function writeBatch(db: Db, ops: readonly BatchOp[], sync: boolean): Promise<void> {
  const impl = db as unknown as Partial<BatchImplementation>;
  if (db.status !== 'open' || typeof impl._batch !== 'function' || ops.length === 0) return db.batch([...ops], { sync });
  return impl._batch(ops, { sync });
}
