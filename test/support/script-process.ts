// A helper script (e.g. lock-holder.ts) run as a child process: its JSON-line reports collected,
// stdin commands, signals by its own PID, and a bounded wait for a report.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { reapOnExit } from './reaper.js';

const ROOT = join(import.meta.dirname, '..', '..');

export type Report = Record<string, unknown> & { event: string };

export interface Program {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

export class ScriptProcess {
  readonly reports: Report[] = [];
  stderr = '';
  private readonly proc: ChildProcess;
  private readonly listeners = new Set<() => void>();

  /** `script`: a file of test/support run with tsx, or any program (a packaged client's, in a scratch project). */
  constructor(script: string | Program, args: readonly string[] = []) {
    this.proc =
      typeof script === 'string'
        ? spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'support', script), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(script.command, script.args, { cwd: script.cwd, env: script.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    reapOnExit(this.proc);
    createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      try {
        this.reports.push(JSON.parse(line) as Report);
      } catch {
        this.stderr += `unparsed stdout: ${line}\n`;
      }
      for (const l of [...this.listeners]) l();
    });
    this.proc.stderr!.on('data', (d) => (this.stderr += String(d)));
    this.proc.on('exit', () => {
      for (const l of [...this.listeners]) l();
    });
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** The first report matching `pred` (already received or upcoming), or an error after `timeoutMs`. */
  waitFor(pred: (r: Report) => boolean, timeoutMs: number, what = 'a report'): Promise<Report> {
    return new Promise((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < this.reports.length; seen++) {
          if (pred(this.reports[seen])) return done(() => resolve(this.reports[seen]));
        }
        if (!this.running)
          done(() => reject(new Error(`script exited (${this.proc.exitCode ?? this.proc.signalCode}) before ${what}; stderr:\n${this.stderr}`)));
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; reports: ${JSON.stringify(this.reports)}; stderr:\n${this.stderr}`)),
          ),
        timeoutMs,
      );
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        fn();
      };
      this.listeners.add(check);
      check();
    });
  }

  send(line: string): void {
    this.proc.stdin!.write(line + '\n');
  }

  signal(sig: NodeJS.Signals): void {
    if (this.running) this.proc.kill(sig);
  }

  /** Its exit code (a signal: null), once it exits; rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<number | null> {
    return new Promise((resolve, reject) => {
      if (!this.running) return resolve(this.proc.exitCode);
      const timer = setTimeout(
        () => reject(new Error(`still running after ${timeoutMs} ms; reports: ${JSON.stringify(this.reports)}; stderr:\n${this.stderr}`)),
        timeoutMs,
      );
      this.proc.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  /** SIGCONT (in case it is paused), SIGKILL, and wait for the exit. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGCONT');
    this.proc.kill('SIGKILL');
    await exited;
  }
}
