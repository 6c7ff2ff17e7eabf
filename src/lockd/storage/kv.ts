// The key-value port under LevelStorage and the data dir's loader: just what they need of a store
// (point reads, ordered range reads, atomic batches with a sync flag, open and close). Production has
// one implementation, LevelDB (levelKv); the simulator puts its simulated disk behind the same port so
// that records.ts and load-data-dir.ts, the real storage format, run over simulated faults.
import { type BatchOp, type Db, openLevel, openOrRefuse, writeBatch } from './db.js';

export type { BatchOp } from './db.js';

/** Bounds of an ordered range read (keys sort as LevelDB's utf8 keys do: by code unit). */
export interface KvRange {
  readonly gte?: string;
  readonly lt?: string;
  readonly limit?: number;
}

export interface KvStore {
  /** Throws the DataDirError a start refuses with: 'locked' if another process holds the store, else 'unusable'. */
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** One atomic batch; `sync`: durable (fsynced) before the promise resolves. Rejects if nothing or not all was written. */
  batch(ops: readonly BatchOp[], opts: { readonly sync: boolean }): Promise<void>;
  /** Key-value pairs in key order within the range. */
  entries(range: KvRange): AsyncIterable<[string, Buffer]>;
}

/** LevelDB (of data dir `dir`) behind the port. */
export function levelKv(db: Db, dir: string): KvStore {
  return {
    open: () => openOrRefuse(db, dir),
    close: () => db.close(),
    get: (key) => db.get(key),
    batch: (ops, { sync }) => writeBatch(db, ops, sync),
    entries: (range) => db.iterator({ ...range }),
  };
}

/** A data dir's LevelDB behind the port (created if missing). */
export function openLevelKv(dir: string): KvStore {
  return levelKv(openLevel(dir), dir);
}
