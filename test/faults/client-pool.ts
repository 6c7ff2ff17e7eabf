// The workload client processes, from the runner's side: start them, know which one holds a lock
// (their stdout says HOLD / FREE), pause, resume, kill and replace them, and stop them all — each
// by its own PID, also when the run fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FREE, HOLD, type ClientConfig } from './workload-config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(import.meta.dirname, 'workload-client.ts');
const ADVERSARY_SCRIPT = join(import.meta.dirname, 'adversary-client.ts');
const RECIPE_SCRIPT = join(import.meta.dirname, 'recipe-client.ts');
const SCRIPTS: Record<ClientConfig['mode'], string> = { fence: SCRIPT, plain: SCRIPT, adversary: ADVERSARY_SCRIPT, recipe: RECIPE_SCRIPT };

export interface ClientHandle {
  readonly config: ClientConfig;
  readonly proc: ChildProcess;
  holding: string | undefined;
  paused: boolean;
  exited: boolean;
  /** Resolves when the process has exited. */
  readonly exit: Promise<void>;
  /** Resolvers waiting for its next HOLD. */
  readonly holdWaiters: Set<() => void>;
}

export class ClientPool {
  readonly clients: ClientHandle[] = [];
  private readonly log: WriteStream;

  constructor(logFile: string) {
    this.log = createWriteStream(logFile, { flags: 'a' });
  }

  start(config: ClientConfig): ClientHandle {
    const proc = spawn(process.execPath, ['--import', 'tsx', SCRIPTS[config.mode]], {
      cwd: ROOT,
      env: { ...process.env, FAULTS_CLIENT: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const h: ClientHandle = { config, proc, holding: undefined, paused: false, exited: false, exit, holdWaiters: new Set() };
    void exit.then(() => {
      h.exited = true;
      h.holding = undefined;
    });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.startsWith(HOLD)) {
        h.holding = line.split(' ')[1];
        for (const w of [...h.holdWaiters]) w();
      } else if (line === FREE) h.holding = undefined;
    });
    proc.stderr!.on('data', (d: Buffer) => this.log.write(`[${config.id}] ${d}`));
    this.clients.push(h);
    return h;
  }

  running(): ClientHandle[] {
    return this.clients.filter((c) => !c.exited);
  }

  /** Running workload clients (fenced, control and recipe), the ones the nemesis pauses and kills. */
  workers(): ClientHandle[] {
    return this.running().filter((c) => c.config.mode !== 'adversary');
  }

  /** Wait (bounded) until `h` reports holding a lock; false if it did not in time. */
  waitForHold(h: ClientHandle, timeoutMs: number): Promise<boolean> {
    if (h.holding !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        h.holdWaiters.delete(ok);
        resolve(v);
      };
      const ok = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      h.holdWaiters.add(ok);
      void h.exit.then(() => done(false));
    });
  }

  pause(h: ClientHandle): void {
    if (h.exited) return;
    h.proc.kill('SIGSTOP');
    h.paused = true;
  }

  resume(h: ClientHandle): void {
    if (h.exited || !h.paused) return;
    h.proc.kill('SIGCONT');
    h.paused = false;
  }

  async kill(h: ClientHandle): Promise<void> {
    if (h.exited) return;
    h.proc.kill('SIGKILL');
    await h.exit;
  }

  /** Ask every client to finish its current cycle and exit; SIGKILL those still running after `graceMs`. */
  async stopAll(graceMs: number): Promise<void> {
    const live = this.running();
    for (const h of live) {
      this.resume(h);
      h.proc.kill('SIGTERM');
    }
    await Promise.race([Promise.all(live.map((h) => h.exit)), new Promise((r) => setTimeout(r, graceMs))]);
    await Promise.all(this.running().map((h) => this.kill(h)));
    await new Promise<void>((r) => this.log.end(() => r()));
  }

  /** Last resort on failure or exit: SIGCONT and SIGKILL every client still running. */
  killAllNow(): void {
    for (const h of this.running()) {
      try {
        h.proc.kill('SIGCONT');
        h.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
