// A lazyfs mount (lazyfs.py beside this file: a FUSE file system that keeps unsynced writes in memory
// and drops them on command) driven from the tests: mount, power cut, unmount. Each mount is its own
// daemon, so a power cut of one node's "disk" leaves the others' alone. Every daemon and mount this
// process made is undone by `unmountAllNow` on exit (synchronously: fusermount3 -u -z, then SIGKILL).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dirname, 'lazyfs.py');
/** Debian's python3-pyfuse3 is for the system interpreter, not a pyenv one earlier on PATH. */
const PYTHON = '/usr/bin/python3';

/** What a crash (or sync) answered: what was pending before it. */
export interface PendingStats {
  readonly files: number;
  readonly ops: number;
  readonly bytes: number;
  /** crash-torn: operations (the last maybe cut short) that reached the backing dir anyway. */
  readonly tornOpsKept?: number;
}

const live = new Set<LazyFs>();

/** Why lazyfs cannot run here (undefined: it can): /dev/fuse, fusermount3, Debian's pyfuse3. */
export function lazyFsUnavailable(): string | undefined {
  if (!existsSync('/dev/fuse')) return 'no /dev/fuse';
  if (spawnSync('fusermount3', ['-V']).error) return 'no fusermount3 (Debian package fuse3)';
  const py = spawnSync(PYTHON, ['-c', 'import pyfuse3, trio']);
  if (py.error || py.status !== 0) return `${PYTHON} cannot import pyfuse3 (Debian package python3-pyfuse3)`;
  return undefined;
}

export class LazyFs {
  private exited: Promise<void>;
  private gone = false;

  private constructor(
    /** Where the mount's files really are (durable ones only, plus metadata). */
    readonly backing: string,
    /** Where processes use it. */
    readonly mountpoint: string,
    readonly socket: string,
    private readonly proc: ChildProcess,
    private stderr: () => string,
  ) {
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    void this.exited.then(() => (this.gone = true));
  }

  /** Mount a fresh lazyfs in `dir` (created): dir/backing, seen at dir/mnt; control socket dir/ctl.sock. */
  static async mount(dir: string, timeoutMs = 15_000): Promise<LazyFs> {
    const backing = join(dir, 'backing');
    const mountpoint = join(dir, 'mnt');
    const socket = join(dir, 'ctl.sock');
    mkdirSync(backing, { recursive: true });
    mkdirSync(mountpoint, { recursive: true });
    const proc = spawn(PYTHON, [SCRIPT, backing, mountpoint, socket], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const fs = new LazyFs(backing, mountpoint, socket, proc, () => err);
    live.add(fs);
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`lazyfs at ${mountpoint} not ready within ${timeoutMs} ms: ${err}`)), timeoutMs);
        proc.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('ready\n')) {
            clearTimeout(timer);
            resolve();
          }
        });
        proc.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`lazyfs at ${mountpoint} exited (${code}) before it was ready: ${err}`));
        });
      });
    } catch (e) {
      await fs.unmount();
      throw e;
    }
    return fs;
  }

  /** One control command, its JSON answer. */
  async command(line: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    if (this.gone) throw new Error(`lazyfs at ${this.mountpoint} has exited: ${this.stderr()}`);
    const text = await new Promise<string>((resolve, reject) => {
      const s = connect(this.socket);
      let data = '';
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`lazyfs ${line}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      s.on('data', (d: Buffer) => (data += d.toString()));
      s.on('end', () => {
        clearTimeout(timer);
        resolve(data);
      });
      s.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      s.write(`${line}\n`);
    });
    const answer = JSON.parse(text) as Record<string, unknown>;
    if (typeof answer.error === 'string') throw new Error(`lazyfs ${line}: ${answer.error}`);
    return answer;
  }

  /**
   * A power cut of this disk: every write not fsynced is lost (with `tornSeed`, a random prefix of
   * each file's unsynced writes, the last maybe cut short, reaches the disk instead). Run it only
   * once every process using the mount is dead, as the power would have taken them too.
   */
  async crash(tornSeed?: number): Promise<PendingStats> {
    return (await this.command(tornSeed === undefined ? 'crash' : `crash-torn ${tornSeed >>> 0}`)) as unknown as PendingStats;
  }

  /** Make everything pending durable (a clean shutdown's last step). */
  async syncAll(): Promise<PendingStats> {
    return (await this.command('sync')) as unknown as PendingStats;
  }

  async stats(): Promise<PendingStats> {
    return (await this.command('stats')) as unknown as PendingStats;
  }

  /** Unmount and stop the daemon (what was pending is lost). Processes using the mount must be gone. */
  async unmount(): Promise<void> {
    live.delete(this);
    if (!this.gone) {
      this.proc.kill('SIGTERM');
      const t = setTimeout(() => this.forceNow(), 5000);
      await this.exited;
      clearTimeout(t);
    }
    // The daemon unmounts on its way out; a lazy unmount is the fallback (a killed daemon leaves
    // a dead mount that answers ENOTCONN).
    if (isMounted(this.mountpoint)) spawnSync('fusermount3', ['-u', '-z', this.mountpoint]);
  }

  private forceNow(): void {
    spawnSync('fusermount3', ['-u', '-z', this.mountpoint]);
    try {
      this.proc.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Synchronous last resort for process exit. */
  static unmountAllNow(): void {
    for (const fs of live) fs.forceNow();
    live.clear();
  }
}

/** From /proc/self/mountinfo: stat() of a dead FUSE mount fails (ENOTCONN), the table still lists it. */
function isMounted(mountpoint: string): boolean {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .some((l) => l.split(' ')[4] === mountpoint);
  } catch {
    return false;
  }
}
