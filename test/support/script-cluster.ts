// A cluster started by ./cluster.sh itself (what `lockctl demo` drives), for tests: its own temp dir
// (LOCKD_CLUSTER_DIR) and a free block of ports (LOCKD_BASE_PORT: BASE+0.., BASE+100.., BASE+200..),
// never the user's .cluster/. It runs the build the tests made (LOCKD_SKIP_BUILD=1). stop() runs
// `cluster.sh clean`; if mocha exits first, the nodes in its PID files are killed on the way out.
// A cluster during whose life a test failed keeps its dir (node logs) and prints where.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './build.js';
import { failuresSoFar } from './failures.js';
import { freeClusterShBase } from './process-cluster.js';

const CLUSTER_SH = join(ROOT, 'cluster.sh');

export interface ShResult {
  readonly code: number | null;
  readonly output: string;
}

export class ScriptCluster {
  private readonly failuresAtStart = failuresSoFar();
  private readonly onExit = (): void => this.killRecorded();

  private constructor(
    readonly dir: string,
    readonly basePort: number,
    readonly size: number,
  ) {
    process.once('exit', this.onExit);
  }

  /**
   * Start `size` nodes with ./cluster.sh start (test faults on unless testFaults is false; `tls`: --tls;
   * `env`: more of cluster.sh's variables, e.g. LOCKD_LAZYFS=1); waits for a leader.
   */
  static async start(
    size: 3 | 5,
    { testFaults = true, tls = false, env = {} }: { testFaults?: boolean; tls?: boolean; env?: Record<string, string> } = {},
  ): Promise<ScriptCluster> {
    await ensureBuilt();
    const c = new ScriptCluster(mkdtempSync(join(tmpdir(), 'lockd-script-')), await freeClusterShBase(size), size);
    const r = await c.sh(['start', String(size), ...(tls ? ['--tls'] : [])], { LOCKD_TEST_FAULTS: testFaults ? '1' : '0', ...env });
    if (r.code !== 0) {
      await c.stop();
      throw new Error(`./cluster.sh start failed (exit ${r.code}):\n${r.output}`);
    }
    return c;
  }

  /** What a process needs in its environment to work on this cluster (cluster.sh, lockctl demo). */
  get env(): Record<string, string> {
    return { LOCKD_CLUSTER_DIR: this.dir, LOCKD_BASE_PORT: String(this.basePort), LOCKD_SKIP_BUILD: '1' };
  }

  get endpoints(): string[] {
    return Array.from({ length: this.size }, (_, k) => `127.0.0.1:${this.basePort + k}`);
  }

  /** Run ./cluster.sh ARGS (bounded by timeoutMs). */
  sh(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ShResult> {
    return new Promise((resolve) => {
      const proc = spawn('bash', [CLUSTER_SH, ...args], { cwd: ROOT, env: { ...process.env, ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      proc.stdout.on('data', (d) => (output += d));
      proc.stderr.on('data', (d) => (output += d));
      const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      proc.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  /** The recorded pid of node i, if its file is there. */
  pid(i: number): number | undefined {
    const f = join(this.dir, `n${i}.pid`);
    return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || undefined : undefined;
  }

  /** Stop every node (cluster.sh clean), then delete the dir unless a test failed while it ran. */
  async stop(): Promise<void> {
    const failed = failuresSoFar() > this.failuresAtStart;
    const r = await this.sh([failed ? 'stop' : 'clean']);
    this.killRecorded(); // in case cluster.sh could not
    process.removeListener('exit', this.onExit);
    if (failed) process.stderr.write(`lockd test cluster kept (a test failed while it ran) at ${this.dir}\n`);
    else rmSync(this.dir, { recursive: true, force: true });
    if (r.code !== 0) throw new Error(`./cluster.sh ${failed ? 'stop' : 'clean'} failed:\n${r.output}`);
  }

  /** SIGCONT + SIGKILL every node whose PID file is here, if that process is still this cluster's node. */
  private killRecorded(): void {
    for (let i = 1; i <= this.size; i++) {
      const pid = this.pid(i);
      if (!pid) continue;
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(this.dir, `n${i}`))) continue;
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
      // A LOCKD_LAZYFS=1 cluster: its disk's daemon and mount too.
      const disk = join(this.dir, `n${i}.lazyfs.pid`);
      if (!existsSync(disk)) continue;
      spawnSync('fusermount3', ['-u', '-z', join(this.dir, `n${i}`)]);
      try {
        const daemon = Number(readFileSync(disk, 'utf8').trim());
        if (daemon && readFileSync(`/proc/${daemon}/cmdline`, 'utf8').includes('lazyfs.py')) process.kill(daemon, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}
