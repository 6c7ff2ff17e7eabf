// The LevelDB handle type used by the storage: string keys, Buffer values.
import { Level } from 'level';

export type Db = Level<string, Buffer>;

/** `createIfMissing: false` for readers (log dump) that must not turn any directory into a database. */
export function openLevel(dir: string, { createIfMissing = true }: { createIfMissing?: boolean } = {}): Db {
  return new Level<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing });
}

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };
