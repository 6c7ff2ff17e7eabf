// A simulated node's start on its data dir: the real loader (src/lockd/storage/load-data-dir.ts: identity, voters,
// every record's CRC, the log's shape) over the node's byte store (sim-kv.ts), read synchronously. A start
// the loader refuses as corrupt is a fail-stop (the node stays down, with the loader's error); the
// simulated operator then repairs the store (back to what it held before the damage) and starts it again.
// A start that succeeds must have read exactly what the simulator knows was written (the disk's image):
// anything else is a node serving state that was never written, the check 'Storage Integrity'.
//
// Planted bug 'torn-record-accepted' (an adapter of this loader, never in src/): records whose CRC fails
// are resealed before the loader sees them, so a torn or flipped value is taken as valid. The start path's
// 'skip-voter-check' (voters.ts) reads no stored configuration here (see loadSimDir).

import { crc32 } from 'node:zlib';
import { DataDirError } from '../../src/lockd/storage/data-dir-errors.js';
import { CONFIG_KEY, ENTRY_RANGE, HARD_STATE_KEY, IDENTITY_KEY, PEERS_KEY, SNAPSHOT_KEY } from '../../src/lockd/storage/keys.js';
import { type DirContents, type Verified, verifyDataDir } from '../../src/lockd/storage/load-data-dir.js';
import type { NodeId } from '../../src/raft/types.js';
import type { LogImage } from './disk.js';
import type { SimKv } from './sim-kv.js';
import type { StartBug } from './voters.js';

export type LoadBug = 'torn-record-accepted';

/** The cluster id every simulated data dir carries. */
export const SIM_CLUSTER = 'sim';
/** The build line a simulated node records in its identity (node/versions.ts's format for a real one). */
export const SIM_WRITER = 'lockd sim';

/** What load-data-dir.ts's readDataDir reads, from the simulated store, synchronously. */
export function readSimDir(kv: SimKv): DirContents {
  const identity = kv.getSync(IDENTITY_KEY);
  if (identity === undefined) {
    const first = kv.entriesSync({ limit: 1 })[0];
    return first ? { firstKey: first[0], entries: [] } : { entries: [] };
  }
  const opt = (key: string): Buffer | undefined => kv.getSync(key);
  return {
    identity,
    snapshot: opt(SNAPSHOT_KEY),
    config: opt(CONFIG_KEY),
    hardState: opt(HARD_STATE_KEY),
    peers: opt(PEERS_KEY),
    entries: kv.entriesSync(ENTRY_RANGE),
  };
}

export type SimLoad = { readonly ok: true; readonly verified: Verified } | { readonly ok: false; readonly error: DataDirError };

/**
 * Load `node`'s data dir as a real start would (voters: what --peers names; [] skips the voter check).
 * `startBug` 'skip-voter-check' (voters.ts) is the start path before the voter check existed, when no data dir
 * recorded its voters: the loader sees no stored configuration (and records none), so it cannot compare the
 * voters of a snapshot the bug's wrong set wrote with the ones the dir was made for.
 */
export function loadSimDir(kv: SimKv, node: NodeId, voters: readonly NodeId[], bug?: LoadBug, startBug?: StartBug): SimLoad {
  let contents = readSimDir(kv);
  if (bug === 'torn-record-accepted') contents = resealed(contents);
  if (startBug === 'skip-voter-check') contents = { ...contents, config: undefined };
  try {
    const verified = verifyDataDir(contents, `(${node}'s simulated data dir)`, { clusterId: SIM_CLUSTER, nodeId: node }, voters, SIM_WRITER);
    const writes = startBug === 'skip-voter-check' ? verified.writes.filter((w) => w.key !== CONFIG_KEY) : verified.writes;
    if (writes.length > 0) kv.writeSync(writes, true);
    return { ok: true, verified };
  } catch (e) {
    if (e instanceof DataDirError) return { ok: false, error: e };
    throw e;
  }
}

/** How what a start read differs from the image the simulator knows was written (undefined: it does not). */
export function integrityProblem(v: Verified, img: LogImage): string | undefined {
  const hs = v.hardState ?? { term: 0, vote: '', commit: 0 };
  const want = img.hardState;
  if (hs.term !== want.term || hs.vote !== want.vote || hs.commit !== want.commit)
    return `hard state read back as ${JSON.stringify(hs)}, written ${JSON.stringify(want)}`;
  if (v.snapshotIndex !== img.snapshotIndex) return `snapshot at ${v.snapshotIndex} read back, written at ${img.snapshotIndex}`;
  if (v.snapshot && (v.snapshot.metadata.term !== img.snapshot.metadata.term || !Buffer.from(v.snapshot.data).equals(Buffer.from(img.snapshot.data))))
    return `the snapshot at ${v.snapshotIndex} read back differs from the one written`;
  if (v.entries.length !== img.entries.length) return `${v.entries.length} entries read back after the snapshot, ${img.entries.length} written`;
  for (let k = 0; k < v.entries.length; k++) {
    const a = v.entries[k];
    const b = img.entries[k];
    if (a.index !== b.index || a.term !== b.term || (a.type ?? 'normal') !== (b.type ?? 'normal') || !Buffer.from(a.data).equals(Buffer.from(b.data)))
      return `entry ${b.index} read back as (term ${a.term}, ${a.data.length} bytes), written (term ${b.term}, ${b.data.length} bytes)`;
  }
  return undefined;
}

/** Every value whose CRC word does not match its payload, given a matching one: the bug's loader sees no damage. */
function resealed(c: DirContents): DirContents {
  const fix = (v: Buffer | undefined): Buffer | undefined => {
    if (!v || v.length < 4) return v;
    const crc = crc32(v.subarray(4));
    if (v.readUInt32BE(0) === crc) return v;
    const out = Buffer.from(v);
    out.writeUInt32BE(crc, 0);
    return out;
  };
  return {
    ...c,
    identity: fix(c.identity),
    snapshot: fix(c.snapshot),
    config: fix(c.config),
    hardState: fix(c.hardState),
    peers: fix(c.peers),
    entries: c.entries.map(([k, v]) => [k, fix(v)!] as const),
  };
}
