// The key-value ops of one LevelStorage write, planned from the log's shape on disk (pure). LevelStorage
// writes them to LevelDB; the simulator writes the same ops, the same bytes, to its simulated disk.
import type { Entry, Snapshot } from '../../raft/types.js';
import type { BatchOp } from './kv.js';
import { HARD_STATE_KEY, SNAPSHOT_KEY, entryKey } from './keys.js';
import { encodeEntry, encodeHardState, encodeSnapshot } from './records.js';
import type { Persistable } from './level-storage.js';

/** The log as stored: entries (offset, last], offset being the snapshot's index. */
export interface LogShape {
  readonly offset: number;
  readonly last: number;
  /** The term at index i of the stored log (offset ≤ i ≤ last). */
  term(i: number): number | undefined;
}

/** A caller's mistake (nothing was written), as opposed to a failed write. */
export class StorageUsageError extends Error {}

/**
 * A Ready batch's ops: its snapshot if newer than the stored one (replacing the whole log), its
 * entries (replacing any conflicting suffix), its hard state. `snapshot`: the one to install, if any.
 */
export function planPersist(log: LogShape, rd: Persistable): { ops: BatchOp[]; snapshot?: Snapshot } {
  const ops: BatchOp[] = [];
  let { offset, last } = log;
  const snap = rd.snapshot && rd.snapshot.metadata.index > offset ? rd.snapshot : undefined;
  if (snap) {
    ops.push({ type: 'put', key: SNAPSHOT_KEY, value: encodeSnapshot(snap) });
    deleteRange(ops, offset + 1, last);
    offset = last = snap.metadata.index;
  }
  if (rd.entries.length > 0) {
    checkAppend(rd.entries, offset, last);
    for (const e of rd.entries) ops.push({ type: 'put', key: entryKey(e.index), value: encodeEntry(e) });
    deleteRange(ops, rd.entries[rd.entries.length - 1].index + 1, last); // the conflicting suffix
  }
  if (rd.hardState) ops.push({ type: 'put', key: HARD_STATE_KEY, value: encodeHardState(rd.hardState) });
  return snap ? { ops, snapshot: snap } : { ops };
}

/**
 * An application snapshot's ops: store it and delete the entries it covers. Undefined if it is not
 * newer than the stored one; throws StorageUsageError if it does not fit the stored log.
 */
export function planCompact(log: LogShape, snapshot: Snapshot): BatchOp[] | undefined {
  const { index, term } = snapshot.metadata;
  if (index <= log.offset) return undefined;
  if (index > log.last) throw new StorageUsageError(`compact: snapshot index ${index} is beyond the last index ${log.last}`);
  if (log.term(index) !== term) throw new StorageUsageError(`compact: snapshot at ${index} has term ${term}, the log has ${log.term(index)}`);
  const ops: BatchOp[] = [{ type: 'put', key: SNAPSHOT_KEY, value: encodeSnapshot(snapshot) }];
  deleteRange(ops, log.offset + 1, index);
  return ops;
}

function deleteRange(ops: BatchOp[], from: number, to: number): void {
  for (let i = Math.max(from, 1); i <= to; i++) ops.push({ type: 'del', key: entryKey(i) });
}

function checkAppend(entries: readonly Entry[], offset: number, last: number): void {
  const first = entries[0].index;
  if (first <= offset) throw new StorageUsageError(`persist: entry ${first} is at or below the snapshot index ${offset}`);
  if (first > last + 1) throw new StorageUsageError(`persist: entry ${first} leaves a gap after the last index ${last}`);
  entries.forEach((e, k) => {
    if (e.index !== first + k) throw new StorageUsageError(`persist: entries not contiguous: ${e.index} at position ${k} after ${first}`);
  });
}
