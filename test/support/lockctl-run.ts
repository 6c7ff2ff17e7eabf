// Run the built lockctl as a process (from a temp dir, so it never picks up a ./cluster.sh
// cluster's .cluster/tls/), bounded: its exit code, stdout and stderr.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { LOCKCTL_MAIN } from './build.js';

export interface LockctlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function lockctl(args: readonly string[], timeoutMs = 30_000): Promise<LockctlRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [LOCKCTL_MAIN, ...args], { cwd: tmpdir(), timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}
