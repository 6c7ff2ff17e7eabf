// Reading a data dir at start: check whose it is, verify every record, and rebuild the in-memory
// mirror the Raft core reads from. Anything doubtful refuses the start: a node must never run
// with acknowledged entries missing or altered.
import { MemoryStorage } from '../../raft/memory-storage.js';
import type { Entry, HardState, NodeId, Snapshot } from '../../raft/types.js';
import type { BatchOp, KvStore } from './kv.js';
import { DataDirError, FormatError, RecordError } from './data-dir-errors.js';
import { CONFIG_KEY, ENTRY_RANGE, HARD_STATE_KEY, IDENTITY_KEY, PEERS_KEY, SNAPSHOT_KEY, parseEntryKey } from './keys.js';
import {
  type Configuration,
  type Identity,
  type PeerBook,
  decodeConfiguration,
  decodePeerBook,
  decodeEntry,
  decodeHardState,
  decodeIdentity,
  decodeSnapshot,
  encodeConfiguration,
  encodeIdentity,
  STORAGE_FORMAT,
} from './records.js';

export interface Loaded {
  readonly memory: MemoryStorage;
  /** True if this start created the data dir's identity (a brand-new node). */
  readonly created: boolean;
  /** Index of the snapshot on disk (0: none). */
  readonly snapshotIndex: number;
  /**
   * The bootstrap voters this data dir was made for (sorted; empty for one made by --join). Until
   * the log or a snapshot holds a configuration, equal as a set to the ones the start named.
   */
  readonly voters: readonly NodeId[];
  /** The log or the snapshot holds a configuration (a membership change happened): --peers names addresses only. */
  readonly configured: boolean;
  /** Members' addresses as last saved (LevelStorage.savePeers). */
  readonly peerBook: PeerBook;
}

/** The raw records of a data dir, as read from its store: nothing decoded or checked yet. */
export interface DirContents {
  readonly identity?: Buffer;
  readonly snapshot?: Buffer;
  readonly config?: Buffer;
  readonly hardState?: Buffer;
  readonly peers?: Buffer;
  /** The first key of a store without an identity record (it must be empty to be made a data dir). */
  readonly firstKey?: string;
  /** Every key in the entry range, in key order. */
  readonly entries: readonly (readonly [string, Buffer])[];
}

/** What a store must answer for a start (a KvStore is one; the simulator reads its disk synchronously). */
export async function readDataDir(kv: Pick<KvStore, 'get' | 'entries'>): Promise<DirContents> {
  const identity = await kv.get(IDENTITY_KEY);
  if (identity === undefined) {
    for await (const [key] of kv.entries({ limit: 1 })) return { firstKey: key, entries: [] };
    return { entries: [] };
  }
  const entries: [string, Buffer][] = [];
  for await (const kvp of kv.entries(ENTRY_RANGE)) entries.push(kvp);
  return {
    identity,
    snapshot: await kv.get(SNAPSHOT_KEY),
    config: await kv.get(CONFIG_KEY),
    hardState: await kv.get(HARD_STATE_KEY),
    peers: await kv.get(PEERS_KEY),
    entries,
  };
}

/** A data dir's records decoded and checked (verifyDataDir), and the writes the start must make before running. */
export interface Verified extends Omit<Loaded, 'memory'> {
  readonly snapshot?: Snapshot;
  readonly entries: readonly Entry[];
  readonly hardState?: HardState;
  /** Writes (synced) to make before the node runs: a fresh dir's identity and configuration, a missing configuration. */
  readonly writes: readonly BatchOp[];
}

/**
 * Open a data dir's records: read them, check them (verifyDataDir), make the writes the start needs.
 * `voters` and `writer` as for verifyDataDir.
 */
export async function loadDataDir(
  kv: Pick<KvStore, 'get' | 'entries' | 'batch'>,
  dir: string,
  want: Identity,
  voters: readonly NodeId[],
  writer = '',
): Promise<Loaded> {
  const v = verifyDataDir(await readDataDir(kv), dir, want, voters, writer);
  if (v.writes.length > 0) await kv.batch(v.writes, { sync: true });
  return { ...v, memory: mirrorOf(v, v.voters) };
}

/** The in-memory mirror the Raft core reads, holding exactly the verified records; `voters`: its bootstrap voters. */
export function mirrorOf(v: Pick<Verified, 'snapshot' | 'entries' | 'hardState'>, voters: readonly NodeId[]): MemoryStorage {
  const memory = new MemoryStorage([...voters]);
  if (v.snapshot) memory.applySnapshot(v.snapshot);
  memory.append([...v.entries]);
  if (v.hardState) memory.setHardState(v.hardState);
  return memory;
}

/**
 * Pure: check whose the data dir is, verify every record (checksums, keys, contiguity, terms, the
 * commit index), and say what the start must write. Throws DataDirError on anything doubtful.
 * The bootstrap voters are stored beside the identity (m:config) and checked on every start: a
 * node that reopened a 3-voter data dir as one of 5 would count majorities of 5 while its old
 * peers count majorities of 3, and two leaders could be elected in one term. Membership changes
 * go through the log (config entries, snapshots' metadata), never through flags: once the data dir
 * holds a configuration of its own, that is the one in effect and --peers only tells addresses.
 * `voters` empty (--join on a fresh data dir): the node learns the configuration from the cluster.
 * `writer`: this build's line (node/versions.ts), recorded in a fresh dir's identity.
 */
export function verifyDataDir(c: DirContents, dir: string, want: Identity, voters: readonly NodeId[], writer = ''): Verified {
  const corrupt = (detail: string): DataDirError => new DataDirError('corrupt', dir, detail);
  const decode = <T>(key: string, value: Buffer, fn: (v: Buffer) => T): T => {
    try {
      return fn(value);
    } catch (e) {
      if (e instanceof FormatError) throw new DataDirError('format', dir, e.message);
      if (e instanceof RecordError) throw corrupt(`record ${key}: ${e.message}`);
      throw e;
    }
  };

  const named: Configuration = { voters: sortedIds(voters) };
  const idValue = c.identity;
  if (idValue === undefined) {
    if (c.firstKey !== undefined) throw corrupt(`holds data (key ${c.firstKey}) but no identity record`);
    if (named.voters.length % 2 === 0 && named.voters.length > 0)
      throw new DataDirError(
        'voters',
        dir,
        `a new cluster of ${named.voters.length} voters (--peers): use an odd number (3 or 5) so a majority survives a failure (or --join to join an existing cluster)`,
      );
    const writes: BatchOp[] = [
      { type: 'put', key: IDENTITY_KEY, value: encodeIdentity(want, writer) },
      { type: 'put', key: CONFIG_KEY, value: encodeConfiguration(named) },
    ];
    return { created: true, snapshotIndex: 0, voters: named.voters, configured: false, peerBook: {}, entries: [], writes };
  }
  const have = decode(IDENTITY_KEY, idValue, decodeIdentity);
  // LevelStorage.open and --force-new-cluster migrate first (migrate.ts): the previous format reaches here only by a bug.
  if (have.format !== STORAGE_FORMAT)
    throw new DataDirError('format', dir, `storage format ${have.format} has not been migrated to ${STORAGE_FORMAT} (open it with LevelStorage.open)`);
  // The cluster ids themselves are never in the message: it goes to the log, and the id is the secret a peer stream needs.
  if (have.clusterId !== want.clusterId)
    throw new DataDirError('foreign', dir, `it belongs to another cluster (its cluster id is not this node's --cluster-id-file / --cluster-id)`);
  if (have.nodeId !== want.nodeId) throw new DataDirError('foreign', dir, `it belongs to node "${have.nodeId}", not "${want.nodeId}"`);

  const snapValue = c.snapshot;
  const snap: Snapshot | undefined = snapValue && decode(SNAPSHOT_KEY, snapValue, decodeSnapshot);
  const snapConfigured = (snap?.metadata.configIndex ?? 0) > 0;
  const configValue = c.config;
  // A data dir made before the configuration was stored: its snapshot's voters if it has one,
  // else (nothing recorded to compare with) the ones this start names; recorded below.
  const stored: Configuration = configValue
    ? decode(CONFIG_KEY, configValue, decodeConfiguration)
    : { voters: sortedIds(snap && snap.metadata.voters.length > 0 ? snap.metadata.voters : voters) };
  // A snapshot from before any membership change has the bootstrap voters (a joined node's may
  // have any: it came from the cluster).
  if (snap && !snapConfigured && stored.voters.length > 0 && snap.metadata.voters.length > 0 && !sameIds(snap.metadata.voters, stored.voters))
    throw corrupt(`the snapshot at ${snap.metadata.index} has voters ${show(snap.metadata.voters)}, the stored configuration ${show(stored.voters)}`);
  const hsValue = c.hardState;
  const hs: HardState | undefined = hsValue && decode(HARD_STATE_KEY, hsValue, decodeHardState);
  const entries = checkEntries(c.entries, snap?.metadata.index ?? 0, snap?.metadata.term ?? 0, corrupt, decode);
  const configured = snapConfigured || entries.some((e) => e.type === 'config');
  checkStartVoters(dir, stored.voters, named.voters, configured);

  const lastIndex = entries.length > 0 ? entries[entries.length - 1].index : (snap?.metadata.index ?? 0);
  if (hs && hs.commit > lastIndex) {
    throw corrupt(`hard state says entries up to ${hs.commit} are committed, but the log ends at ${lastIndex}`);
  }
  const writes: BatchOp[] = configValue ? [] : [{ type: 'put', key: CONFIG_KEY, value: encodeConfiguration(stored) }];
  const peerBook = c.peers ? decode(PEERS_KEY, c.peers, decodePeerBook) : {};
  return {
    created: false,
    snapshotIndex: snap?.metadata.index ?? 0,
    voters: stored.voters,
    configured,
    peerBook,
    writes,
    entries,
    ...(snap ? { snapshot: snap } : {}),
    ...(hs ? { hardState: hs } : {}),
  };
}

/**
 * The start's voter check on its own (pure, so the simulator starts its nodes through it too):
 * refuses (DataDirError 'voters') a start naming other voter ids than the data dir was made for.
 * It yields once the data dir holds a configuration of its own (`configured`: a config entry in
 * the log or a snapshot made after one), and for a data dir made by --join (stored empty): the
 * configuration in effect is then the stored one, and --peers only tells where members are.
 */
export function checkStartVoters(dir: string, stored: readonly NodeId[], named: readonly NodeId[], configured = false): void {
  // named empty: --join, which means something only to a fresh data dir.
  if (configured || stored.length === 0 || named.length === 0) return;
  if (!sameIds(stored, named)) {
    throw new DataDirError(
      'voters',
      dir,
      `it was made for the voters ${show(stored)}, but this start names ${show(named)} (--peers): voter ids may not change (addresses may) until a membership change; use lockctl member add/remove`,
    );
  }
}

const sortedIds = (ids: readonly NodeId[]): NodeId[] => [...ids].sort();
const sameIds = (a: readonly NodeId[], b: readonly NodeId[]): boolean => sortedIds(a).join('\u0000') === sortedIds(b).join('\u0000');
const show = (ids: readonly NodeId[]): string => `{${sortedIds(ids).join(', ')}}`;

/** All entries in index order, checking checksum, key/index agreement, contiguity and term order. */
function checkEntries(
  pairs: readonly (readonly [string, Buffer])[],
  snapIndex: number,
  snapTerm: number,
  corrupt: (detail: string) => DataDirError,
  decode: <T>(key: string, value: Buffer, fn: (v: Buffer) => T) => T,
): Entry[] {
  const entries: Entry[] = [];
  let prevIndex = snapIndex;
  let prevTerm = snapTerm;
  for (const [key, value] of pairs) {
    const keyIndex = parseEntryKey(key);
    if (keyIndex === undefined) throw corrupt(`malformed entry key ${JSON.stringify(key)}`);
    const e = decode(key, value, decodeEntry);
    if (e.index !== keyIndex) throw corrupt(`record ${key} holds entry ${e.index}`);
    if (e.index !== prevIndex + 1) {
      throw corrupt(
        e.index <= snapIndex
          ? `entry ${e.index} is covered by the snapshot at ${snapIndex} but was not deleted`
          : `gap in the log: entry ${e.index} follows ${prevIndex}`,
      );
    }
    if (e.term < prevTerm) throw corrupt(`entry ${e.index} has term ${e.term} below the previous term ${prevTerm}`);
    entries.push(e);
    prevIndex = e.index;
    prevTerm = e.term;
  }
  return entries;
}
