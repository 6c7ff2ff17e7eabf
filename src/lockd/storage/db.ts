// The LevelDB handle type used by the storage: string keys, Buffer values.
import { Level } from 'level';

export type Db = Level<string, Buffer>;

export function openLevel(dir: string): Db {
  return new Level<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
}

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };
