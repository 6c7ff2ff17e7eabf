// The cluster a demo runs on: the one ./cluster.sh manages (its dir: $LOCKD_CLUSTER_DIR, else
// .cluster/ next to cluster.sh; ports from $LOCKD_BASE_PORT, as cluster.sh computes them). Every
// fault goes through cluster.sh (kill, pause, resume, restart, isolate, heal, clock-jump), which
// signals only the PIDs it recorded; this class remembers what it broke so the demo can undo it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One cluster.sh call may take this long (start waits up to 30 s for a leader). */
const CLUSTER_SH_TIMEOUT_MS = 60_000;

type Broken = 'paused' | 'killed' | 'isolated';

/** A cluster.sh call that failed: its own words say what went wrong (no stack trace needed). */
export class ClusterShError extends Error {}

/** The verbs that take nodes down, bring them up or inject a fault: story mode draws each as a row. */
const FAULT_VERBS = new Set(['kill', 'power-cut', 'pause', 'resume', 'isolate', 'heal', 'restart', 'start', 'clock-jump']);

/** Told of each fault (story mode): before it runs (may pause the demo), and once cluster.sh did it. */
export interface FaultWatcher {
  before(verb: string): Promise<void>;
  done(verb: string, nodes: readonly string[], args: readonly string[]): void;
}

export class ClusterControl {
  /** Node i (1-based) → what this demo did to it and has not undone. */
  private readonly broken = new Map<number, Broken>();
  watcher: FaultWatcher | undefined;

  private constructor(
    private readonly script: string,
    readonly dir: string,
    private readonly basePort: number,
    readonly size: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The cluster.sh cluster of this checkout, or an Error saying why there is none. */
  static open(env: NodeJS.ProcessEnv): ClusterControl {
    const root = findRoot();
    const dir = resolve(env.LOCKD_CLUSTER_DIR || join(root, '.cluster'));
    const base = Number(env.LOCKD_BASE_PORT || 7001);
    if (!Number.isInteger(base) || base < 1 || base > 65_535 - 300)
      throw new Error(`LOCKD_BASE_PORT must be a port number, got ${JSON.stringify(env.LOCKD_BASE_PORT)}`);
    const sizeFile = join(dir, 'size');
    const size = existsSync(sizeFile) ? Number(readFileSync(sizeFile, 'utf8').trim()) : 0;
    if (size !== 3 && size !== 5)
      throw new Error(`no cluster.sh cluster in ${dir}: start one with ./cluster.sh start (demos need a live 3- or 5-node cluster)`);
    return new ClusterControl(join(root, 'cluster.sh'), dir, base, size, env);
  }

  /** 1..size */
  get nodes(): number[] {
    return Array.from({ length: this.size }, (_, k) => k + 1);
  }

  clientAddress(i: number): string {
    return `127.0.0.1:${this.basePort + i - 1}`;
  }

  httpAddress(i: number): string {
    return `127.0.0.1:${this.basePort + 200 + i - 1}`;
  }

  get endpoints(): string[] {
    return this.nodes.map((i) => this.clientAddress(i));
  }

  /** cluster.sh names node i `n<i>`. */
  indexOf(nodeId: string): number {
    const i = /^n(\d+)$/.exec(nodeId) ? Number(nodeId.slice(1)) : NaN;
    if (!this.nodes.includes(i)) throw new Error(`node id ${JSON.stringify(nodeId)} is not one of cluster.sh's n1..n${this.size}`);
    return i;
  }

  /** Whether the nodes run with test faults (LOCKD_TEST_FAULTS=1 ./cluster.sh start). */
  get testFaults(): boolean {
    return existsSync(join(this.dir, 'test-faults')) && this.withoutTestFaults().length === 0;
  }

  /**
   * Why a demo needing test faults cannot run here, with what to do (undefined: it can): the
   * cluster was not started with them, or some running nodes were started before they were asked for.
   */
  testFaultsProblem(what: string): string | undefined {
    const how = 'LOCKD_TEST_FAULTS=1 ./cluster.sh start';
    const env = this.dir === join(findRoot(), '.cluster') ? '' : `LOCKD_CLUSTER_DIR=${this.dir} LOCKD_BASE_PORT=${this.basePort} `;
    if (!existsSync(join(this.dir, 'test-faults')))
      return `this demo ${what} through a test-only fault, and the nodes run without them: run \`${env}${how}\` (it restarts the running nodes with --unsafe-test-faults; for tests and demos only), then the demo again`;
    const missing = this.withoutTestFaults();
    if (missing.length > 0)
      return `this demo ${what} through a test-only fault, but ${missing.map((i) => `n${i}`).join(', ')} ${missing.length > 1 ? 'run' : 'runs'} without them (started before they were asked for): run \`${env}${how}\` again to restart ${missing.length > 1 ? 'them' : 'it'} with --unsafe-test-faults`;
    return undefined;
  }

  /** Running nodes (by their PID file) whose command line lacks --unsafe-test-faults. */
  private withoutTestFaults(): number[] {
    return this.nodes.filter((i) => {
      try {
        const pid = readFileSync(join(this.dir, `n${i}.pid`), 'utf8').trim();
        if (!/^\d+$/.test(pid)) return false;
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (!argv.includes(join(this.dir, `n${i}`))) return false; // not this cluster's node (a stale PID file)
        return !argv.includes('--unsafe-test-faults');
      } catch {
        return false; // not running: cluster.sh starts it with the flags the cluster has now
      }
    });
  }

  /** Whether the data dirs are lazyfs mounts (LOCKD_LAZYFS=1 ./cluster.sh start): power cuts lose unsynced writes. */
  get lazyfs(): boolean {
    return existsSync(join(this.dir, 'lazyfs'));
  }

  /** Whether the nodes run the control build that syncs nothing (LOCKD_UNSAFE_NO_FSYNC=1). */
  get noFsync(): boolean {
    return existsSync(join(this.dir, 'unsafe-no-fsync'));
  }

  /** TLS files cluster.sh made (./cluster.sh start --tls), as the admin client root; undefined without TLS. */
  get tls(): { cacert: string; cert: string; key: string } | undefined {
    const t = join(this.dir, 'tls');
    return existsSync(join(t, 'ca.crt')) ? { cacert: join(t, 'ca.crt'), cert: join(t, 'root.crt'), key: join(t, 'root.key') } : undefined;
  }

  kill(i: number): Promise<string> {
    return this.fault(i, 'killed', 'kill');
  }

  /** cluster.sh power-cut all: every node killed -9, every lazyfs disk loses what was not fsynced; restart with startAll. */
  async powerCutAll(): Promise<string> {
    const out = await this.sh('power-cut', 'all');
    for (const i of this.nodes) this.broken.set(i, 'killed');
    return out;
  }

  pause(i: number): Promise<string> {
    return this.fault(i, 'paused', 'pause');
  }

  isolate(i: number): Promise<string> {
    return this.fault(i, 'isolated', 'isolate');
  }

  async resume(i: number): Promise<string> {
    this.broken.delete(i);
    return this.sh('resume', String(i));
  }

  async heal(i: number): Promise<string> {
    this.broken.delete(i);
    return this.sh('heal', String(i));
  }

  async restart(i: number): Promise<string> {
    this.broken.delete(i);
    return this.sh('restart', String(i));
  }

  /** Start every node that is not running and wait for a leader (cluster.sh start). */
  async startAll(): Promise<string> {
    const out = await this.sh('start', String(this.size));
    this.broken.clear();
    return out;
  }

  clockJump(i: number, ms: number): Promise<string> {
    return this.sh('clock-jump', String(i), String(ms));
  }

  /** Undo every fault this demo left in place: resume, heal, restart. Errors are collected, not thrown. */
  async restore(): Promise<string[]> {
    const problems: string[] = [];
    for (const [i, what] of [...this.broken]) {
      try {
        if (what === 'paused') await this.resume(i);
        else if (what === 'isolated') await this.heal(i);
        else await this.restart(i);
      } catch (e) {
        problems.push(`n${i} (${what}): ${(e as Error).message}`);
      }
    }
    return problems;
  }

  private async fault(i: number, what: Broken, verb: string): Promise<string> {
    const out = await this.sh(verb, String(i));
    this.broken.set(i, what);
    return out;
  }

  /** Run cluster.sh VERB ARGS (bounded); its output, or an Error with it. A fault verb is told to the watcher. */
  async sh(...args: string[]): Promise<string> {
    const fault = FAULT_VERBS.has(args[0]) ? this.watcher : undefined;
    await fault?.before(args[0]);
    const out = await this.run(args);
    if (fault) {
      const which = args[0] === 'start' || args[1] === 'all' ? this.nodes : [Number(args[1])];
      fault.done(
        args[0],
        which.map((i) => `n${i}`),
        args,
      );
    }
    return out;
  }

  private run(args: readonly string[]): Promise<string> {
    return new Promise((resolveRun, reject) => {
      const proc = spawn('bash', [this.script, ...args], {
        env: { ...this.env, LOCKD_CLUSTER_DIR: this.dir, LOCKD_BASE_PORT: String(this.basePort) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      proc.stdout.on('data', (d) => (out += d));
      proc.stderr.on('data', (d) => (out += d));
      const timer = setTimeout(() => proc.kill('SIGKILL'), CLUSTER_SH_TIMEOUT_MS);
      proc.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolveRun(out.trim());
        else reject(new ClusterShError(`cluster.sh ${args.join(' ')} failed (${signal ?? `exit ${code}`}): ${out.trim()}`));
      });
    });
  }
}

/** The checkout: the nearest directory above this file holding cluster.sh (works from src/ and dist/src/). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'cluster.sh')) && existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find cluster.sh above lockctl: run the demos from a lockd checkout');
    dir = up;
  }
}
