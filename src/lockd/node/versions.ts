// What this build is and which formats it reads and writes: `lockd --version`, the version header
// every node states to its peers (transport/metadata.ts VERSION_HEADER) and Cluster.Status.
import { COMMAND_FORMAT_VERSION, SNAPSHOT_FORMAT_VERSION, SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS } from '../state-machine/index.js';
import { BACKUP_FILE_FORMAT } from '../storage/backup-file.js';
import { STORAGE_FORMAT, PREVIOUS_STORAGE_FORMAT } from '../storage/records.js';
import { FRAME_VERSION } from '../transport/frame-codec.js';

/** This build's version (package.json's; test/lockd/node/versions.test.ts keeps them equal). */
export const LOCKD_VERSION = '0.2.0';

export interface BuildFormats {
  /** Data dir layout (storage/records.ts); the previous one is migrated on start. */
  readonly storage: number;
  /** State machine snapshot (state-machine/snapshot-codec.ts), on disk, in InstallSnapshot and in backups. */
  readonly snapshot: number;
  /** Log entry commands (state-machine/command-codec.ts). */
  readonly command: number;
  /** Peer message frame (transport/frame-codec.ts). */
  readonly frame: number;
  /** Backup file (storage/backup-file.ts). */
  readonly backup: number;
}

export const BUILD_FORMATS: BuildFormats = {
  storage: STORAGE_FORMAT,
  snapshot: SNAPSHOT_FORMAT_VERSION,
  command: COMMAND_FORMAT_VERSION,
  frame: FRAME_VERSION,
  backup: BACKUP_FILE_FORMAT,
};

/** The value of the version header: `lockd/0.2.0 storage=3 snapshot=8 command=2 frame=1 backup=1`. */
export function buildLine(version = LOCKD_VERSION, f: BuildFormats = BUILD_FORMATS): string {
  return `lockd/${version} storage=${f.storage} snapshot=${f.snapshot} command=${f.command} frame=${f.frame} backup=${f.backup}`;
}

/** The version in a stated build line ('' if it is not one: then the cluster version treats it as the oldest). */
export function versionInLine(line: string): string {
  const m = /^lockd\/(\S{1,32})(?: |$)/.exec(line);
  return m ? m[1] : '';
}

/** `lockd --version` / `lockctl --version`. */
export function versionText(program: 'lockd' | 'lockctl'): string {
  const f = BUILD_FORMATS;
  return [
    `${program} ${LOCKD_VERSION}`,
    `  storage format   ${f.storage} (reads ${PREVIOUS_STORAGE_FORMAT} and migrates it on start)`,
    `  snapshot format  ${f.snapshot} (reads ${SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS}, and writes it while no quota is in use)`,
    `  command format   ${f.command}`,
    `  peer frame       ${f.frame} (raft.v1)`,
    `  backup file      ${f.backup}`,
    '  client API       lockd.v1',
    '',
  ].join('\n');
}
