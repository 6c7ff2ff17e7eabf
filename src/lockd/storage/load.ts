// Reading a data dir at start: check whose it is, verify every record, and rebuild the in-memory
// mirror the Raft core reads from. Anything doubtful refuses the start: a node must never run
// with acknowledged entries missing or altered.
import { MemoryStorage } from '../../raft/memory-storage.js';
import type { Entry, HardState, NodeId, Snapshot } from '../../raft/types.js';
import type { Db } from './db.js';
import { DataDirError, RecordError } from './errors.js';
import { ENTRY_RANGE, HARD_STATE_KEY, IDENTITY_KEY, SNAPSHOT_KEY, parseEntryKey } from './keys.js';
import { type Identity, decodeEntry, decodeHardState, decodeIdentity, decodeSnapshot, encodeIdentity } from './records.js';

export interface Loaded {
  readonly memory: MemoryStorage;
  /** True if this start created the data dir's identity (a brand-new node). */
  readonly created: boolean;
  /** Index of the snapshot on disk (0: none). */
  readonly snapshotIndex: number;
}

export async function loadDataDir(db: Db, dir: string, want: Identity, voters: readonly NodeId[]): Promise<Loaded> {
  const corrupt = (detail: string): DataDirError => new DataDirError('corrupt', dir, detail);
  const decode = <T>(key: string, value: Buffer, fn: (v: Buffer) => T): T => {
    try {
      return fn(value);
    } catch (e) {
      if (e instanceof RecordError) throw corrupt(`record ${key}: ${e.message}`);
      throw e;
    }
  };

  const idValue = await db.get(IDENTITY_KEY);
  if (idValue === undefined) {
    for await (const key of db.keys({ limit: 1 })) throw corrupt(`holds data (key ${key}) but no identity record`);
    await db.put(IDENTITY_KEY, encodeIdentity(want), { sync: true });
    return { memory: new MemoryStorage(voters), created: true, snapshotIndex: 0 };
  }
  const have = decode(IDENTITY_KEY, idValue, decodeIdentity);
  if (have.clusterId !== want.clusterId || have.nodeId !== want.nodeId) {
    throw new DataDirError('foreign', dir,
      `it belongs to node "${have.nodeId}" of cluster "${have.clusterId}", not node "${want.nodeId}" of cluster "${want.clusterId}"`);
  }

  const snapValue = await db.get(SNAPSHOT_KEY);
  const snap: Snapshot | undefined = snapValue && decode(SNAPSHOT_KEY, snapValue, decodeSnapshot);
  const hsValue = await db.get(HARD_STATE_KEY);
  const hs: HardState | undefined = hsValue && decode(HARD_STATE_KEY, hsValue, decodeHardState);
  const entries = await readEntries(db, snap?.metadata.index ?? 0, snap?.metadata.term ?? 0, corrupt, decode);

  const lastIndex = entries.length > 0 ? entries[entries.length - 1].index : (snap?.metadata.index ?? 0);
  if (hs && hs.commit > lastIndex) {
    throw corrupt(`hard state says entries up to ${hs.commit} are committed, but the log ends at ${lastIndex}`);
  }
  const memory = new MemoryStorage(voters);
  if (snap) memory.applySnapshot(snap);
  memory.append(entries);
  if (hs) memory.setHardState(hs);
  return { memory, created: false, snapshotIndex: snap?.metadata.index ?? 0 };
}

/** All entries in index order, checking checksum, key/index agreement, contiguity and term order. */
async function readEntries(
  db: Db,
  snapIndex: number,
  snapTerm: number,
  corrupt: (detail: string) => DataDirError,
  decode: <T>(key: string, value: Buffer, fn: (v: Buffer) => T) => T,
): Promise<Entry[]> {
  const entries: Entry[] = [];
  let prevIndex = snapIndex;
  let prevTerm = snapTerm;
  for await (const [key, value] of db.iterator(ENTRY_RANGE)) {
    const keyIndex = parseEntryKey(key);
    if (keyIndex === undefined) throw corrupt(`malformed entry key ${JSON.stringify(key)}`);
    const e = decode(key, value, decodeEntry);
    if (e.index !== keyIndex) throw corrupt(`record ${key} holds entry ${e.index}`);
    if (e.index !== prevIndex + 1) {
      throw corrupt(e.index <= snapIndex
        ? `entry ${e.index} is covered by the snapshot at ${snapIndex} but was not deleted`
        : `gap in the log: entry ${e.index} follows ${prevIndex}`);
    }
    if (e.term < prevTerm) throw corrupt(`entry ${e.index} has term ${e.term} below the previous term ${prevTerm}`);
    entries.push(e);
    prevIndex = e.index;
    prevTerm = e.term;
  }
  return entries;
}
