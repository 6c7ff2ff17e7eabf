// Child processes the benchmark starts: spawned with their output in a log file, stopped by their
// own PID (SIGKILL or SIGTERM), never by name.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export { freePort, waitFor } from '../../test/support/process-cluster.js';

/** Every process started and not yet seen to exit: killed (by PID) if the benchmark itself exits. */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export class Proc {
  readonly child: ChildProcess;

  constructor(
    readonly label: string,
    cmd: string,
    args: readonly string[],
    logFile: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const log = createWriteStream(logFile, { flags: 'a' });
    this.child = spawn(cmd, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    this.child.stdout!.pipe(log);
    this.child.stderr!.pipe(log);
    this.child.on('error', (e) => log.write(`spawn error: ${e.message}\n`));
    live.add(this.child);
    this.child.on('exit', () => live.delete(this.child));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.label} did not start`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Send `sig` and wait for the exit (SIGKILL after `graceMs` if it is still running). */
  async stop(sig: NodeJS.Signals = 'SIGKILL', graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill(sig);
    if (sig !== 'SIGKILL') {
      const timer = setTimeout(() => this.running && this.child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    } else {
      await exited;
    }
  }
}
