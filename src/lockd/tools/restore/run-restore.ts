// `lockd restore --from BACKUP --data-dir DIR --id ID --peers ID=HOST:PORT,... --cluster-id-file FILE
// [--bump-index N]`: make one node's data dir of a NEW cluster from a backup (lockctl snapshot
// save). Run it once per node, with the same backup, --peers, --bump-index and cluster id file
// (the first run makes the file; copy it to the others), then start the nodes as usual.
//
// What the data dir holds: the backup's state as a snapshot at index backup + bump (its log starts
// after it), the voters of --peers as its bootstrap configuration, a new cluster id. Why each is
// safe (docs/design.md §11): every later grant's token is above every token of the backup (and of
// the old cluster, had it committed fewer than `bump` entries after the backup); leases keep their
// deadlines on the logical clock, which resumes at the backup's `now`, so none outlives what the
// backup promised; a cluster id of its own keeps a node of the old cluster from ever joining it.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, NODE_ID_PATTERN, parseBumpIndex, parsePeers } from '../../node/config.js';
import {
  DEFAULT_BUMP,
  MAX_TOKEN_INDEX,
  READABLE_SNAPSHOT_FORMATS,
  SnapshotDecodeError,
  InvariantError,
  firstTokenOf,
  rebaseState,
  summarizeState,
} from '../../state-machine/index.js';
import { BackupFileError, MAX_BACKUP_BYTES, backupDigest, clusterFingerprint, decodeBackup } from '../../storage/backup-file.js';
import { DataDirError, LevelStorage, clearRestoring, makeDataDirPrivate, markRestoring } from '../../storage/index.js';
import { buildLine } from '../../node/versions.js';

/** How far past the backup the restored log starts, by default: state-machine/rebase.ts says why. */
export { DEFAULT_BUMP };

const USAGE = 'usage: lockd restore --from BACKUP --data-dir DIR --id ID --peers ID=PEER_HOST:PORT,... --cluster-id-file FILE [--bump-index N]';

export interface RestoreIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

class Refusal extends Error {}

/** Exit status: 0 done, 2 usage, 3 refused (bad backup, data dir not empty, cluster id file of another restore), 1 failed. */
export async function runRestore(argv: readonly string[], io: RestoreIo): Promise<number> {
  try {
    const text = await restore(argv);
    io.stdout.write(`${text}\n`);
    return 0;
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr.write(`lockd restore: ${e.message}\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof Refusal || e instanceof BackupFileError || e instanceof DataDirError || e instanceof SnapshotDecodeError || e instanceof InvariantError) {
      io.stderr.write(`lockd restore: refused: ${e.message}\n`);
      return 3;
    }
    io.stderr.write(`lockd restore: failed: ${(e as Error).message}\n`);
    return 1;
  }
}

/** restore's flags, checked. */
interface RestoreArgs {
  readonly from: string;
  readonly dir: string;
  readonly id: string;
  readonly peers: ReturnType<typeof parsePeers>;
  readonly idFile: string;
  readonly bump: number;
}

/** The backup as read and checked, and the index the new log starts after. */
interface CheckedBackup extends ReturnType<typeof decodeBackup> {
  readonly bytes: Buffer;
  readonly summary: ReturnType<typeof summarizeState>;
  readonly index: number;
}

async function restore(argv: readonly string[]): Promise<string> {
  const args = parseRestoreArgs(argv);
  const { from, dir, id, idFile, bump } = args;
  const backup = readBackup(from, bump);
  const { header, summary, index } = backup;

  // The restore point every node of the new cluster must share, in its cluster id: nodes restored
  // at different indexes (another backup, another --bump-index) would disagree about what the log
  // holds, so they refuse each other's streams instead (the id differs).
  const point = `restore-${index}-${backupDigest(backup.bytes).slice(0, 12)}`;
  const clusterId = clusterIdFor(idFile, point, header.sourceCluster);

  const voters = await writeDataDir(args, clusterId, backup);
  const lines = [
    `restored ${from} into ${dir}: node ${id} of a new cluster (voters ${voters.join(', ')}; cluster id in ${idFile})`,
    `  backup: index ${header.index} (term ${header.term}) taken by ${header.takenBy} at ${header.takenAt}, from voters ${header.voters.join(', ')}`,
    `  the log starts at ${index + 1} (--bump-index ${bump}): every new fencing token is at least ${firstTokenOf(index + 1)}, above the backup's highest (${summary.highestToken})`,
    `  state: ${summary.leases} leases (kept with their remaining logical time: logical now ${summary.logicalNowMs} ms), ${summary.locks} locks (${summary.holders} grants, ${summary.waiters} waiting), ${summary.fencedKeys} fenced keys, ${summary.aclRules} access rules`,
    `  next: restore every other node the same way (same backup, --peers, --bump-index and cluster id file), then start each with --cluster-id-file ${idFile} and --peers as above`,
  ];
  return lines.join('\n');
}

/** The flags, each checked in turn; a ConfigError names the first one wrong. */
function parseRestoreArgs(argv: readonly string[]): RestoreArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        from: { type: 'string' },
        'data-dir': { type: 'string' },
        id: { type: 'string' },
        peers: { type: 'string' },
        'cluster-id-file': { type: 'string' },
        'bump-index': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const required = (f: string): string => {
    const v = values[f];
    if (typeof v !== 'string' || v === '') throw new ConfigError(`missing --${f}`);
    return v;
  };
  const from = required('from');
  const dir = required('data-dir');
  const id = required('id');
  if (!NODE_ID_PATTERN.test(id)) throw new ConfigError(`--id "${id.slice(0, 80)}": use 1-64 letters, digits, '.', '_' or '-'`);
  const peers = parsePeers(required('peers'));
  if (!peers.has(id)) throw new ConfigError(`--peers must include this node (${id})`);
  if (peers.size % 2 === 0)
    throw new ConfigError(`--peers names ${peers.size} voters: a new cluster needs an odd number (3 or 5) so a majority survives a failure`);
  const idFile = required('cluster-id-file');
  const bump = parseBumpIndex(typeof values['bump-index'] === 'string' ? values['bump-index'] : undefined);
  return { from, dir, id, peers, idFile, bump };
}

/** The backup: checksum, header, and the state as a node would restore it (decode, invariant sweep). */
function readBackup(from: string, bump: number): CheckedBackup {
  let size: number;
  try {
    const st = statSync(from);
    if (!st.isFile())
      throw new Refusal(
        `--from ${from}: not a file (${st.isDirectory() ? 'a directory' : 'not a regular file'}); pass the backup file lockctl snapshot save wrote`,
      );
    size = st.size;
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(`--from ${from}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (size > MAX_BACKUP_BYTES) throw new Refusal(`--from ${from}: ${size} bytes, larger than any backup`);
  const bytes = readFileSync(from);
  const { header, state } = decodeBackup(bytes);
  if (!READABLE_SNAPSHOT_FORMATS.includes(header.stateFormat))
    throw new Refusal(
      `${from} holds state format ${header.stateFormat}; this build reads ${READABLE_SNAPSHOT_FORMATS.join(' and ')}: restore it with the lockd version that took it`,
    );
  const summary = summarizeState(state);
  if (summary.appliedIndex !== header.index) throw new Refusal(`${from}: the header says index ${header.index}, the state reflects ${summary.appliedIndex}`);
  const index = header.index + bump;
  if (index >= MAX_TOKEN_INDEX - 1)
    throw new Refusal(`--bump-index ${bump}: the log would start at ${index + 1}, past the last index that can mint a fencing token (${MAX_TOKEN_INDEX})`);
  return { bytes, header, state, summary, index };
}

/** The new data dir, made only where none is: the backup's state as its snapshot at `index`. Returns the voters. */
async function writeDataDir({ dir, id, peers }: RestoreArgs, clusterId: string, { header, state, index }: CheckedBackup): Promise<string[]> {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0))
    throw new Refusal(`--data-dir ${dir} exists and is not an empty directory: restore makes a new data dir and never writes over one`);
  makeDataDirPrivate(dir);
  // Marked until complete: an interrupted restore must not leave a dir that boots as an empty cluster.
  markRestoring(dir);
  const voters = [...peers.keys()].sort();
  const storage = await LevelStorage.open({ dir, clusterId, nodeId: id, voters, restoring: true, writer: buildLine() });
  try {
    if (!storage.created) throw new Refusal(`--data-dir ${dir} already held a data dir`);
    await storage.persist({
      hardState: { term: header.term, vote: '', commit: index },
      entries: [],
      snapshot: { metadata: { index, term: header.term, voters }, data: rebaseState(state, index) },
    });
    await storage.savePeers(Object.fromEntries([...peers].map(([p, peer]) => [p, { peer }])));
  } finally {
    await storage.close();
  }
  clearRestoring(dir); // persist() synced the snapshot and hard state: the dir is complete (the address book is --peers again at start)
  return voters;
}

/** The new cluster's id: made (and written, 0600) on the first node's run, else read and checked against this restore point. */
function clusterIdFor(file: string, point: string, sourceFingerprint: string): string {
  if (!existsSync(file)) {
    const id = `${randomBytes(16).toString('hex')}.${point}`;
    try {
      writeFileSync(file, `${id}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      throw new Refusal(`--cluster-id-file ${file}: cannot create it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return id;
  }
  const mode = statSync(file).mode;
  if ((mode & 0o077) !== 0)
    throw new Refusal(`--cluster-id-file ${file} is readable by others (mode ${(mode & 0o777).toString(8)}): the cluster id is a secret; chmod 600 it`);
  const id = readFileSync(file, 'utf8').trim();
  if (clusterFingerprint(id) === sourceFingerprint)
    throw new Refusal(
      `--cluster-id-file ${file} holds the id of the cluster the backup came from: a restored cluster needs a new id (give a path that does not exist yet, and restore makes one)`,
    );
  const m = /^[0-9a-f]{32}\.(restore-\d+-[0-9a-f]{12})$/.exec(id);
  if (!m)
    throw new Refusal(
      `--cluster-id-file ${file} was not made by lockd restore: give a path that does not exist yet on the first node (restore makes the id), and that file on the others`,
    );
  if (m[1] !== point)
    throw new Refusal(
      `--cluster-id-file ${file} was made for another restore (${m[1]}, this one is ${point}): every node of a restored cluster needs the same backup and --bump-index`,
    );
  return id;
}
