// --force-new-cluster (etcd's name): recovery from a quorum lost for good. One surviving voter's
// data dir is rewritten, before the node starts, so that it is the only voter, the way lockd restore
// makes a new cluster from a backup (docs/design.md §11):
//  - its state — the snapshot plus its WHOLE log replayed, committed or not (its commit index may
//    lag, and a one-voter cluster would commit every entry it holds anyway) — becomes a snapshot at
//    its last index + `bump`, and the log is dropped. The survivor may lack entries the lost
//    majority committed (grants whose tokens and lease ids are their indexes): its next entries
//    must not reuse those indexes, so they start past anything the old cluster could have reached
//    unless it committed `bump` entries or more after the survivor's last one;
//  - after that snapshot, config entries removing every other member, one per entry (the
//    single-server rule every node checks on append: src/raft/membership.ts checkSuccessor), in a new term,
//    with a record of the change (FORCED_KEY), all in one synced batch. The entries carry the
//    FORCED mark lockctl log dump shows.
// Entries the lost majority committed that this node never received are gone (pick the survivor
// with the highest (last term, last index)). docs/operating.md §5 ("Lost quorum").
//
// One-shot: a data dir forced once is not forced again by a flag left in a start command. When the
// configuration is still the forced one, the flag changes nothing; when members were added since,
// it is refused unless the operator says again (`again`), so it never silently removes them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigLog } from '../../raft/config-log.js';
import { applyChange, encodeConfigEntry, type ConfChange, type Configuration } from '../../raft/membership.js';
import type { Entry, HardState, NodeId } from '../../raft/types.js';
import { type Db, openLevel, openOrRefuse, writeBatch } from './db.js';
import { migrateDataDir } from './migrate.js';
import { DataDirError, RecordError } from './data-dir-errors.js';
import { FORCED_KEY, HARD_STATE_KEY, IDENTITY_KEY, SNAPSHOT_KEY, entryKey } from './keys.js';
import { levelKv } from './kv.js';
import { loadDataDir } from './load-data-dir.js';
import { refuseIfRestoring } from './restoring-mark.js';
import { type Identity, encodeEntry, encodeHardState, encodeSnapshot, sealJson, unsealJson } from './records.js';

export interface ForceOptions {
  readonly dir: string;
  readonly identity: Identity;
  /** The context of the config entry that makes `change` (lockd's: the members' addresses and a mark of the forced change). */
  readonly context: (change: Pick<ConfChange, 'op' | 'node'>) => string;
  /** The operator means it although this data dir was forced before (--force-new-cluster-again). */
  readonly again: boolean;
  /** Wall-clock time for the record (informational). */
  readonly at: string;
  /** How far past the survivor's last entry the new log starts (--bump-index; state-machine DEFAULT_BUMP). */
  readonly bump: number;
  /** Indexes at or above this cannot mint a fencing token (state-machine MAX_TOKEN_INDEX). */
  readonly maxIndex: number;
  /**
   * The application's state after the snapshot `data` and `entries` (the survivor's whole log),
   * moved to index `index` (state-machine replayAndRebase; storage knows no state machine).
   */
  readonly rebase: (data: Uint8Array, entries: readonly Entry[], index: number) => Uint8Array;
  /** The build line of the lockd forcing it (node/versions.ts), recorded if the dir is migrated first. */
  readonly writer?: string;
}

/** What --force-new-cluster found and did. */
export type ForceOutcome =
  | {
      readonly kind: 'forced';
      readonly previous: Configuration;
      /** Members removed, in entry order. */
      readonly removed: readonly NodeId[];
      /** The forced config entries (first..last) and their term. */
      readonly first: number;
      readonly last: number;
      readonly term: number;
      /** The commit index as stored: entries after it (up to survivorLast) were not known committed here, and are kept. */
      readonly storedCommit: number;
      /** The survivor's last entry: its state as of it is the snapshot at snapshotIndex = survivorLast + bump. */
      readonly survivorLast: number;
      readonly snapshotIndex: number;
    }
  | { readonly kind: 'alone'; readonly configIndex: number; readonly forcedBefore?: ForcedRecord };

export interface ForcedRecord {
  readonly at: string;
  /** Index of the last forced config entry: the configuration it made. */
  readonly configIndex: number;
  readonly term: number;
  readonly removed: readonly NodeId[];
  /** The survivor's last entry before the force, and the snapshot index its state was moved to (records before these fields lack them). */
  readonly survivorLast?: number;
  readonly snapshotIndex?: number;
}

/** Rewrite the data dir of node `identity` as above. Throws DataDirError (the node exits 3) when it cannot or must not. */
export async function forceNewCluster(opts: ForceOptions): Promise<ForceOutcome> {
  const { dir, identity } = opts;
  const self = identity.nodeId;
  if (!existsSync(join(dir, 'CURRENT')))
    throw new DataDirError('unusable', dir, '--force-new-cluster needs the data dir of a surviving voter, and there is no LevelDB database here');
  refuseIfRestoring(dir);
  // A survivor still on the previous storage format is migrated (and copied) first, as a start would.
  await migrateDataDir(dir, opts.writer ?? '', identity);
  const db = openLevel(dir, { createIfMissing: false });
  await openOrRefuse(db, dir);
  try {
    return await force(db, opts, self);
  } finally {
    await db.close();
  }
}

async function force(db: Db, opts: ForceOptions, self: NodeId): Promise<ForceOutcome> {
  const { dir } = opts;
  const refuse = (detail: string) => new DataDirError('voters', dir, `--force-new-cluster: ${detail}`);
  // An empty database would be made a fresh one by the loader: nothing to force from.
  if ((await db.get(IDENTITY_KEY)) === undefined) throw new DataDirError('foreign', dir, '--force-new-cluster: not a lockd data dir (no identity record)');
  const loaded = await loadDataDir(levelKv(db, dir), dir, opts.identity, []);
  const m = loaded.memory;
  const snap = m.snapshot().metadata;
  const base: Configuration =
    snap.index > 0 && snap.voters.length > 0
      ? { voters: [...snap.voters], learners: [...(snap.learners ?? [])], removed: [...(snap.removed ?? [])] }
      : { voters: [...loaded.voters], learners: [], removed: [] };
  if (base.voters.length === 0)
    throw refuse('this data dir joined a cluster (--join) and never received its configuration: it has nothing to force a cluster from');
  const configs = new ConfigLog({ index: snap.configIndex ?? 0, config: base }, self);
  const last = m.lastIndex();
  if (last >= m.firstIndex()) configs.appended(m.entries(m.firstIndex(), last + 1));
  const cur = configs.current();
  const forcedBefore = await readRecord(db, dir);
  if (cur.config.removed.includes(self))
    throw refuse(`${self} was removed from the cluster (its log says so): a removed node's data dir cannot found a new one`);
  if (!cur.config.voters.includes(self))
    throw refuse(
      `${self} is not a voter (voters ${cur.config.voters.join(', ')}${cur.config.learners.length ? `; learners ${cur.config.learners.join(', ')}` : ''}): force a surviving voter's data dir`,
    );
  const others = [...cur.config.voters.filter((id) => id !== self), ...cur.config.learners];
  if (others.length === 0) return { kind: 'alone', configIndex: cur.index, ...(forcedBefore ? { forcedBefore } : {}) };
  if (forcedBefore && !opts.again)
    throw refuse(
      `this data dir was forced into a new cluster already (entry ${forcedBefore.configIndex}, ${forcedBefore.at}), and members were added since ` +
        `(voters ${cur.config.voters.join(', ')}${cur.config.learners.length ? `; learners ${cur.config.learners.join(', ')}` : ''}): a flag left in the start command must not remove them. ` +
        'Remove --force-new-cluster from the start command. If the cluster has lost its quorum again and you mean to force it again, add --force-new-cluster-again',
    );
  const hs: HardState = m.hardState();
  if (!Number.isSafeInteger(opts.bump) || opts.bump < 0) throw new RangeError(`bump ${opts.bump}: an integer ≥ 0`);
  const snapIndex = last + opts.bump;
  if (snapIndex + others.length >= opts.maxIndex)
    throw refuse(
      `--bump-index ${opts.bump}: the log would reach ${snapIndex + others.length}, past the last index that can mint a fencing token (${opts.maxIndex})`,
    );
  // Every entry the survivor holds, from its snapshot on, whatever its commit index says.
  const held = last >= m.firstIndex() ? m.entries(m.firstIndex(), last + 1) : [];
  const data = opts.rebase(m.snapshot().data, held, snapIndex);
  const term = Math.max(hs.term, m.term(last)) + 1;
  // The snapshot keeps the configuration in effect at the survivor's last entry; the removals follow it.
  const snapshot = {
    metadata: {
      index: snapIndex,
      term,
      voters: [...cur.config.voters],
      learners: [...cur.config.learners],
      removed: [...cur.config.removed],
      configIndex: cur.index,
    },
    data,
  };
  const entries: Entry[] = [];
  let config = cur.config;
  let index = snapIndex;
  for (const node of others) {
    const change = { op: 'remove' as const, node };
    const cc: ConfChange = { ...change, context: opts.context(change) };
    config = applyChange(config, cc);
    entries.push({ index: ++index, term, type: 'config', data: encodeConfigEntry({ change: cc, config }) });
  }
  if (config.voters.length !== 1 || config.voters[0] !== self || config.learners.length !== 0)
    throw new Error(`force: ended with voters ${config.voters.join(', ')}, learners ${config.learners.join(', ')}`);
  const record: ForcedRecord = { at: opts.at, configIndex: index, term, removed: others, survivorLast: last, snapshotIndex: snapIndex };
  await writeBatch(
    db,
    [
      ...held.map((e) => ({ type: 'del' as const, key: entryKey(e.index) })),
      { type: 'put', key: SNAPSHOT_KEY, value: encodeSnapshot(snapshot) },
      ...entries.map((e) => ({ type: 'put' as const, key: entryKey(e.index), value: encodeEntry(e) })),
      // The snapshot is committed by construction; the removals commit once the node elects itself.
      { type: 'put', key: HARD_STATE_KEY, value: encodeHardState({ term, vote: self, commit: snapIndex }) },
      { type: 'put', key: FORCED_KEY, value: sealJson(record) },
    ],
    true,
  );
  return {
    kind: 'forced',
    previous: cur.config,
    removed: others,
    first: snapIndex + 1,
    last: index,
    term,
    storedCommit: hs.commit,
    survivorLast: last,
    snapshotIndex: snapIndex,
  };
}

async function readRecord(db: Db, dir: string): Promise<ForcedRecord | undefined> {
  const v = await db.get(FORCED_KEY);
  if (v === undefined) return undefined;
  try {
    const o = unsealJson(v);
    const { at, configIndex, term, removed, survivorLast, snapshotIndex } = o;
    if (typeof at !== 'string' || typeof configIndex !== 'number' || typeof term !== 'number' || !Array.isArray(removed)) throw new RecordError('malformed');
    return {
      at,
      configIndex,
      term,
      removed: removed.map(String),
      ...(typeof survivorLast === 'number' ? { survivorLast } : {}),
      ...(typeof snapshotIndex === 'number' ? { snapshotIndex } : {}),
    };
  } catch (e) {
    if (e instanceof RecordError) throw new DataDirError('corrupt', dir, `record ${FORCED_KEY}: ${e.message}`);
    throw e;
  }
}
