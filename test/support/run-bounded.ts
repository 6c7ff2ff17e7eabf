// One command run to its end with a bound: its exit code and output (stdout and stderr together),
// killed with its whole process group at the bound (npm and pip start children of their own).
import { spawn } from 'node:child_process';
import { killNow, reapOnExit } from './reaper.js';

export interface Finished {
  readonly code: number | null;
  /** stdout and stderr as they came. */
  readonly output: string;
  /** stdout alone (what a --json run prints). */
  readonly stdout: string;
}

export function runBounded(command: string, args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    reapOnExit(proc, true);
    let output = '';
    let stdout = '';
    proc.stdout!.on('data', (d) => {
      output += String(d);
      stdout += String(d);
    });
    proc.stderr!.on('data', (d) => (output += String(d)));
    const timer = setTimeout(() => {
      killNow(proc, true);
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${opts.timeoutMs} ms; output:\n${output}`));
    }, opts.timeoutMs);
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout });
    });
  });
}

/** runBounded, failing unless it exits 0. */
export async function runOk(command: string, args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Finished> {
  const r = await runBounded(command, args, opts);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.code}) in ${opts.cwd}:\n${r.output}`);
  return r;
}
