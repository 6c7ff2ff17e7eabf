// `lockctl snapshot status FILE`: verify a backup as `lockd restore` would (checksum, header, the
// state decoded and swept for invariants) and summarize it. Loaded by lockctl by path
// (src/client/lockctl/tools.ts). Exit 0 when the file is a sound backup, 1 otherwise.
import { readFileSync, statSync } from 'node:fs';
import type { ToolIo } from '../../../client/lockctl/tools.js';
import { READABLE_SNAPSHOT_FORMATS, SnapshotDecodeError, InvariantError, summarizeState } from '../../state-machine/index.js';
import { BackupFileError, MAX_BACKUP_BYTES, backupDigest, decodeBackup } from '../../storage/backup-file.js';

export async function runSnapshotStatus(file: string, io: ToolIo): Promise<number> {
  try {
    const size = statSync(file).size;
    if (size > MAX_BACKUP_BYTES) throw new BackupFileError(`${size} bytes: larger than any backup`);
    const bytes = readFileSync(file);
    const { header: h, state } = decodeBackup(bytes);
    if (!READABLE_SNAPSHOT_FORMATS.includes(h.stateFormat))
      throw new BackupFileError(
        `state format ${h.stateFormat}; this build reads ${READABLE_SNAPSHOT_FORMATS.join(' and ')} (check it with the lockd version that took it)`,
      );
    const s = summarizeState(state);
    if (s.appliedIndex !== h.index) throw new BackupFileError(`the header says index ${h.index}, the state reflects ${s.appliedIndex}`);
    const sha256 = backupDigest(bytes);
    const human = [
      `${file}: a sound lockd backup (checksum ok, state decodes and passes the invariant sweep)`,
      `  index ${h.index} (term ${h.term}), taken by ${h.takenBy} at ${h.takenAt}; ${bytes.length} bytes, sha256 ${sha256.slice(0, 16)}…`,
      `  voters ${h.voters.join(', ')}; learners ${h.learners.join(', ') || 'none'}; removed ${h.removed.join(', ') || 'none'}`,
      `  state (format ${h.stateFormat}): logical now ${s.logicalNowMs} ms, ${s.leases} leases, ${s.locks} locks (${s.holders} grants, ${s.waiters} waiting), ${s.fencedKeys} fenced keys, ${s.aclRules} access rules, ${s.requestIds} request ids; highest token ${s.highestToken}`,
    ];
    io.stdout.write(io.json ? `${JSON.stringify({ file, ok: true, bytes: bytes.length, sha256, ...h, summary: s })}\n` : `${human.join('\n')}\n`);
    return 0;
  } catch (e) {
    const known =
      e instanceof BackupFileError || e instanceof SnapshotDecodeError || e instanceof InvariantError || (e as NodeJS.ErrnoException).code !== undefined;
    if (!known) throw e;
    const message = `${file}: not a usable backup: ${(e as Error).message}`;
    io.stderr.write(io.json ? `${JSON.stringify({ file, ok: false, error: message })}\n` : `lockctl: ${message}\n`);
    return 1;
  }
}
