// Real lockd node processes on 127.0.0.1 for integration and fault tests: free ports, a temporary
// data dir per node, logs to files, and every process stopped (by its own PID) in stop(). Nodes run
// from the build (dist/, built once per mocha process: test/support/build.ts). A cluster that saw a
// test or hook fail while it ran keeps its data dirs and logs and prints where; otherwise stop()
// deletes them. If mocha exits first, its nodes are killed on the way out (test/support/reaper.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { StatusResponse__Output } from '../../src/proto/gen/lockd/v1/StatusResponse.js';
import type { ClusterClient } from '../../src/proto/gen/lockd/v1/Cluster.js';
import type { TransferLeaderResponse__Output } from '../../src/proto/gen/lockd/v1/TransferLeaderResponse.js';
import { ensureBuilt, NODE_MAIN, ROOT } from './build.js';
import { failuresSoFar } from './failures.js';
import { killNow, reapOnExit } from './reaper.js';
import type { CertFiles, TestPki } from './test-pki.js';

export interface ClusterOptions {
  readonly size: 3 | 5;
  readonly clusterId?: string;
  /** Extra flags for every node, e.g. ['--snapshot-every', '50']. */
  readonly extraArgs?: readonly string[];
  /** Per-node flag overrides applied at every start of that node (e.g. a --peers list through proxies). */
  readonly nodeFlags?: (id: string) => Record<string, string>;
  /** false: assign addresses and data dirs but start no node (the caller starts them with startNode). */
  readonly startNodes?: boolean;
  /** Start every node with TLS from this PKI (node certificates issued on first start). */
  readonly tls?: TestPki;
  /** With tls: also --client-cert-auth; the cluster's own status calls then present a client certificate (CN=root). */
  readonly clientCertAuth?: boolean;
  /** Flags of the node runtime itself, before the entry point (e.g. ['--cpu-prof']). */
  readonly nodeArgs?: readonly string[];
}

export interface NodeHandle {
  readonly id: string;
  /** The client address (--listen): what clients and tests dial. */
  readonly address: string;
  /** The peer address (--peer-listen), as other nodes' --peers name it. */
  readonly peerAddress: string;
  readonly dataDir: string;
  readonly logFile: string;
  proc: ChildProcess | undefined;
  /** Settles once the running process's output is all in logFile (its pipes closed, the file written). */
  logFlushed?: Promise<void>;
}

/** Ports this process has handed out: never twice, even once released. */
const handedOut = new Set<number>();

/**
 * Claim `port` for this process: never handed out here before and, in a parallel run, not claimed
 * by another worker (an exclusive create in the run's ports dir, root-hooks.ts). A worker's node
 * that stops and restarts on its port leaves it unbound meanwhile: without the claim the other
 * worker's canBind would find it free and take it.
 */
function claim(port: number): boolean {
  if (handedOut.has(port)) return false;
  const dir = process.env.LOCKD_TEST_PORTS_DIR;
  if (dir) {
    try {
      closeSync(openSync(join(dir, String(port)), 'wx'));
    } catch {
      return false;
    }
  }
  handedOut.add(port);
  return true;
}

/** The kernel's ephemeral port range (what listen(0) and outgoing connections draw from). */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return [lo, hi];
  } catch {
    // not Linux: assume the IANA range
  }
  return [49152, 65535];
}

export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1 for a process to bind later. Drawn BELOW the ephemeral range: a
 * port released by "bind to 0" could be taken, before our node binds it, by anything that binds
 * port 0 (the fault suite's proxies do) or opens an outgoing connection — a CI run once started a
 * node on the port a proxy had just taken. Never the same port twice in one process.
 */
/**
 * A BASE below the ephemeral range whose cluster.sh ports for `size` nodes — clients BASE+I-1,
 * peers BASE+100+I-1, HTTP BASE+200+I-1 — are all free (for tests that run ./cluster.sh).
 */
export async function freeClusterShBase(size: number): Promise<number> {
  const [lo] = ephemeralRange();
  const max = Math.min(lo, 65_536) - 300;
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 10_000 + Math.floor(Math.random() * (max - 10_000));
    const ports = [0, 100, 200].flatMap((off) => Array.from({ length: size }, (_, k) => base + off + k));
    if (!(await Promise.all(ports.map(canBind))).every(Boolean)) continue;
    if (ports.every(claim)) return base;
  }
  throw new Error('no free block of ports for a cluster.sh cluster');
}

export async function freePort(): Promise<number> {
  const [lo] = ephemeralRange();
  const min = 10_000;
  const max = Math.min(lo, 65_536) - 1;
  for (let attempt = 0; max > min && attempt < 500; attempt++) {
    const port = min + Math.floor(Math.random() * (max - min + 1));
    if (!(await canBind(port)) || !claim(port)) continue;
    return port;
  }
  // No room below the ephemeral range: fall back to bind-to-0, still never handing a port out twice.
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port: p } = srv.address() as { port: number };
        srv.close(() => resolve(p));
      });
    });
    if (claim(port)) return port;
  }
  throw new Error('no free TCP port found on 127.0.0.1');
}

/** Poll `probe` until it returns a value (not undefined) or `timeoutMs` passes; never a blind sleep. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export class ProcessCluster {
  readonly nodes: NodeHandle[] = [];
  readonly baseDir: string;
  readonly clusterId: string;
  private readonly clients = new Map<string, ClusterClient>();
  private rootCert: CertFiles | undefined;
  /** Failures counted before this cluster started: more at stop() means one happened while it ran. */
  private readonly failuresAtStart = failuresSoFar();

  private constructor(private readonly opts: ClusterOptions) {
    this.baseDir = mkdtempSync(join(tmpdir(), 'lockd-test-'));
    this.clusterId = opts.clusterId ?? `test-${process.pid}`;
    // Passed by file, as an operator should (docs/security.md §1): never on a command line.
    this.clusterIdFile = join(this.baseDir, 'cluster-id');
    writeFileSync(this.clusterIdFile, `${this.clusterId}\n`, { mode: 0o600 });
  }

  /** The 0600 file the nodes read the cluster id from (--cluster-id-file). */
  readonly clusterIdFile: string;

  static async start(opts: ClusterOptions): Promise<ProcessCluster> {
    await ensureBuilt();
    const c = new ProcessCluster(opts);
    try {
      for (let k = 1; k <= opts.size; k++) {
        const id = `n${k}`;
        c.nodes.push({
          id,
          address: `127.0.0.1:${await freePort()}`,
          peerAddress: `127.0.0.1:${await freePort()}`,
          dataDir: join(c.baseDir, id),
          logFile: join(c.baseDir, `${id}.log`),
          proc: undefined,
        });
      }
      if (opts.startNodes !== false) for (const n of c.nodes) c.startNode(n.id);
    } catch (e) {
      await c.stop(true);
      throw e;
    }
    return c;
  }

  /**
   * A handle (fresh ports, data dir) for a node that joins later (membership tests): it is in
   * peersFlag() from now on; start it with startNode(id, {}, ['--join']).
   */
  async addNode(id: string): Promise<NodeHandle> {
    if (this.nodes.some((n) => n.id === id)) throw new Error(`node ${id} exists`);
    const n: NodeHandle = {
      id,
      address: `127.0.0.1:${await freePort()}`,
      peerAddress: `127.0.0.1:${await freePort()}`,
      dataDir: join(this.baseDir, id),
      logFile: join(this.baseDir, `${id}.log`),
      proc: undefined,
    };
    this.nodes.push(n);
    return n;
  }

  /** --peers: every node's PEER address. */
  peersFlag(): string {
    return this.nodes.map((n) => `${n.id}=${n.peerAddress}`).join(',');
  }

  /** Credentials the cluster's own clients (status) use: TLS trusting the test CA when on. */
  clientCredentials(): grpc.ChannelCredentials {
    const pki = this.opts.tls;
    if (!pki) return grpc.credentials.createInsecure();
    if (this.opts.clientCertAuth) this.rootCert ??= pki.client('root');
    return pki.channelCredentials(this.rootCert);
  }

  node(id: string): NodeHandle {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** Arguments a node is started with (tests may start one by hand, e.g. with a foreign cluster id). */
  argsFor(id: string, overrides: Record<string, string> = {}, extraSwitches: readonly string[] = []): string[] {
    const n = this.node(id);
    const flags: Record<string, string> = {
      '--id': id,
      '--listen': n.address,
      '--peer-listen': n.peerAddress,
      '--peers': this.peersFlag(),
      '--data-dir': n.dataDir,
      '--cluster-id-file': this.clusterIdFile,
      '--tick-ms': '20',
      '--heartbeat-ticks': '2',
      '--election-ticks': '20',
      ...this.opts.tls?.nodeFlags(id),
      ...this.opts.nodeFlags?.(id),
      ...overrides,
    };
    // A test naming a cluster id on the command line (e.g. a foreign one) gets it instead of the file.
    if ('--cluster-id' in overrides) delete flags['--cluster-id-file'];
    const switches = this.opts.tls && this.opts.clientCertAuth ? ['--client-cert-auth'] : [];
    return [...Object.entries(flags).flat(), ...switches, ...extraSwitches, ...(this.opts.extraArgs ?? [])];
  }

  /**
   * Start node `id` from this build, or from another build's entry point (`build`: the rolling
   * upgrade test runs the previous release's dist/ on the same data dir).
   */
  startNode(
    id: string,
    overrides: Record<string, string> = {},
    extraSwitches: readonly string[] = [],
    build?: { readonly main: string; readonly cwd: string },
  ): ChildProcess {
    const n = this.node(id);
    if (n.proc && n.proc.exitCode === null && n.proc.signalCode === null) throw new Error(`${id} is already running`);
    const log = createWriteStream(n.logFile, { flags: 'a' });
    const proc = spawn(process.execPath, [...(this.opts.nodeArgs ?? []), build?.main ?? NODE_MAIN, ...this.argsFor(id, overrides, extraSwitches)], {
      cwd: build?.cwd ?? ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapOnExit(proc);
    // The output reaches the file through this process's loop, after the child wrote it: a line the
    // node logged before answering an RPC, or before exiting, may not be in the file yet. Tests
    // read it with waitForLog (running) or exitedLog (stopped). Both pipes feed one file, which ends
    // once both have closed ('close' on the child), not when the first does.
    proc.stdout!.pipe(log, { end: false });
    proc.stderr!.pipe(log, { end: false });
    n.logFlushed = new Promise((resolve) => {
      proc.once('close', () => log.end(resolve));
    });
    n.proc = proc;
    return proc;
  }

  /** Start a node process that is expected to exit; resolves with its exit code and output. */
  runToExit(args: string[], timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, [NODE_MAIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      reapOnExit(proc);
      let output = '';
      proc.stdout!.on('data', (d) => (output += d));
      proc.stderr!.on('data', (d) => (output += d));
      const timer = setTimeout(() => {
        killNow(proc, false);
        reject(new Error(`node did not exit within ${timeoutMs} ms; output:\n${output}`));
      }, timeoutMs);
      proc.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  isRunning(id: string): boolean {
    const p = this.node(id).proc;
    return !!p && p.exitCode === null && p.signalCode === null;
  }

  signal(id: string, sig: NodeJS.Signals): void {
    const p = this.node(id).proc;
    if (!p || p.pid === undefined) throw new Error(`${id} was never started`);
    p.kill(sig);
  }

  /** SIGKILL a node and wait until the process is gone. */
  async kill(id: string): Promise<void> {
    const p = this.node(id).proc;
    if (!p || !this.isRunning(id)) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  }

  client(id: string): ClusterClient {
    let c = this.clients.get(id);
    if (!c) {
      c = new lockdProto.lockd.v1.Cluster(this.node(id).address, this.clientCredentials());
      this.clients.set(id, c);
    }
    return c;
  }

  status(id: string, timeoutMs = 1000): Promise<StatusResponse__Output> {
    return new Promise((resolve, reject) =>
      this.client(id).Status({}, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res!))),
    );
  }

  /** Cluster.TransferLeader asked of node `id` (a follower forwards it); target '' = the server's pick. */
  transferLeader(id: string, targetId = '', timeoutMs = 5000): Promise<TransferLeaderResponse__Output> {
    return new Promise((resolve, reject) =>
      this.client(id).TransferLeader({ targetId }, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res!))),
    );
  }

  /** Statuses of the running, responsive nodes. */
  async statuses(ids = this.nodes.map((n) => n.id)): Promise<StatusResponse__Output[]> {
    const all = await Promise.all(ids.filter((id) => this.isRunning(id)).map((id) => this.status(id, 500).catch(() => undefined)));
    return all.filter((s): s is StatusResponse__Output => s !== undefined);
  }

  /** Wait until exactly one leader is seen and every responsive node among `ids` agrees on it; returns its id. */
  async waitForLeader(ids = this.nodes.map((n) => n.id), timeoutMs = 20_000): Promise<string> {
    return waitFor(
      'a single agreed leader',
      async () => {
        const sts = await this.statuses(ids);
        const running = ids.filter((id) => this.isRunning(id));
        if (sts.length < running.length) return undefined;
        const leaders = sts.filter((s) => s.role === 'leader');
        if (leaders.length !== 1) return undefined;
        const leader = leaders[0];
        return sts.every((s) => s.leaderId === leader.nodeId && s.term === leader.term) ? leader.nodeId : undefined;
      },
      timeoutMs,
    );
  }

  /** Wait until every running node among `ids` has applied at least `index`. */
  async waitForApplied(index: number, ids = this.nodes.map((n) => n.id), timeoutMs = 20_000): Promise<void> {
    await waitFor(
      `applied index ≥ ${index} on ${ids.join(',')}`,
      async () => {
        const sts = await this.statuses(ids);
        const running = ids.filter((id) => this.isRunning(id));
        return sts.length === running.length && sts.every((s) => s.appliedIndex >= index) ? true : undefined;
      },
      timeoutMs,
    );
  }

  /** What node `id` has logged so far and this process has written down (see startNode). */
  log(id: string): string {
    const f = this.node(id).logFile;
    return existsSync(f) ? readFileSync(f, 'utf8') : '';
  }

  /** Wait until node `id`'s log matches `pattern` (a line logged a moment ago may still be on its way). */
  waitForLog(id: string, pattern: RegExp | string, timeoutMs = 5000): Promise<string> {
    const matches = (text: string): boolean => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
    return waitFor(
      `${id}'s log to show ${String(pattern)}`,
      () => {
        const text = this.log(id);
        return matches(text) ? text : undefined;
      },
      timeoutMs,
    );
  }

  /** The whole log of node `id`, whose process has exited (or is exiting): waits until all of it is written. */
  async exitedLog(id: string): Promise<string> {
    await this.node(id).logFlushed;
    return this.log(id);
  }

  /** True if a test or hook has failed since this cluster started. */
  sawFailure(): boolean {
    return failuresSoFar() > this.failuresAtStart;
  }

  /**
   * Stop every process this cluster started (SIGCONT first, so a paused one can die), then delete
   * the data — unless kept (`keepData`, or a failure seen while it ran), in which case say where.
   */
  async stop(keepData = false): Promise<void> {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    await Promise.all(
      this.nodes.map(async (n) => {
        if (!this.isRunning(n.id)) return;
        n.proc!.kill('SIGCONT');
        await this.kill(n.id);
      }),
    );
    if (keepData || this.sawFailure()) process.stderr.write(`lockd test cluster kept (data dirs and node logs) at ${this.baseDir}\n`);
    else rmSync(this.baseDir, { recursive: true, force: true });
  }
}
