// A fresh lockd cluster of the BUILT server (`node dist/src/lockd/main.js`) on free loopback ports
// with temporary data dirs. `npm run bench` builds first.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { ClusterClient } from '../../src/proto/gen/lockd/v1/Cluster.js';
import type { StatusResponse__Output } from '../../src/proto/gen/lockd/v1/StatusResponse.js';
import { Proc, freePort, waitFor } from '../lib/procs.js';
import type { BenchCluster, ClusterNode } from './cluster.js';
import type { BenchTls } from '../lib/bench-tls.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const LOCKD_MAIN = join(ROOT, 'dist', 'src', 'lockd', 'main.js');

export interface LockdClusterOptions {
  readonly size: number;
  /** Extra node flags, e.g. ['--tick-ms', '100', '--heartbeat-ticks', '1', '--election-ticks', '10']. */
  readonly flags?: readonly string[];
  /** Write a V8 CPU profile per node here (node --cpu-prof) when the node exits on SIGTERM. */
  readonly cpuProfDir?: string;
  /** Run with mutual TLS, client-certificate auth and --acl (bench/lib/bench-tls.ts). */
  readonly tls?: BenchTls;
  /** Serve /metrics on a free port per node (--http-listen; HTTPS with tls). */
  readonly metrics?: boolean;
  /** The server to run (default: this checkout's build, LOCKD_MAIN); e.g. a baseline checkout's dist/src/lockd/main.js. */
  readonly main?: string;
}

export class LockdCluster implements BenchCluster {
  readonly system = 'lockd' as const;
  readonly nodes: ClusterNode[] = [];
  private readonly baseDir = mkdtempSync(join(tmpdir(), 'lockd-bench-'));
  private readonly clusterId = `bench-${process.pid}-${Date.now()}`;
  private readonly clients = new Map<string, ClusterClient>();
  /** Each node's --peer-listen (Raft and forwarding); clients only ever see clientAddress. */
  private readonly peerAddresses = new Map<string, string>();
  private readonly httpAddresses = new Map<string, string>();

  private constructor(private readonly opts: LockdClusterOptions) {}

  static async start(opts: LockdClusterOptions): Promise<LockdCluster> {
    const main = opts.main ?? LOCKD_MAIN;
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` ${opts.main ? 'in that checkout' : ''} first`);
    const c = new LockdCluster(opts);
    for (let k = 1; k <= opts.size; k++) {
      const id = `n${k}`;
      const http = opts.metrics ? `127.0.0.1:${await freePort()}` : undefined;
      c.nodes.push({
        id,
        clientAddress: `127.0.0.1:${await freePort()}`,
        proc: undefined,
        ...(http ? { metricsUrl: `${opts.tls ? 'https' : 'http'}://${http}/metrics` } : {}),
      });
      c.peerAddresses.set(id, `127.0.0.1:${await freePort()}`);
      if (http) c.httpAddresses.set(id, http);
    }
    for (const n of c.nodes) c.restart(n.id);
    return c;
  }

  private node(id: string): ClusterNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  restart(id: string): void {
    const n = this.node(id);
    if (n.proc?.running) throw new Error(`${id} is running`);
    const peers = this.nodes.map((x) => `${x.id}=${this.peerAddresses.get(x.id)!}`).join(',');
    const prof = this.opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', this.opts.cpuProfDir, '--cpu-prof-name', `${id}-${Date.now()}.cpuprofile`] : [];
    const http = this.httpAddresses.get(id);
    const args = [
      ...prof,
      this.opts.main ?? LOCKD_MAIN,
      '--id',
      id,
      '--listen',
      n.clientAddress,
      '--peer-listen',
      this.peerAddresses.get(id)!,
      '--peers',
      peers,
      '--data-dir',
      join(this.baseDir, id),
      '--cluster-id',
      this.clusterId,
      ...(this.opts.tls?.nodeFlags(id) ?? []),
      ...(http ? ['--http-listen', http] : []),
      ...(this.opts.flags ?? []),
    ];
    n.proc = new Proc(`lockd ${id}`, process.execPath, args, join(this.baseDir, `${id}.log`));
  }

  private client(id: string): ClusterClient {
    let c = this.clients.get(id);
    if (!c) {
      c = new lockdProto.lockd.v1.Cluster(this.node(id).clientAddress, this.opts.tls?.credentials() ?? grpc.credentials.createInsecure());
      this.clients.set(id, c);
    }
    return c;
  }

  status(id: string, timeoutMs = 500): Promise<StatusResponse__Output> {
    return new Promise((resolve, reject) =>
      this.client(id).Status({}, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res!))),
    );
  }

  async waitForLeader(timeoutMs = 20_000): Promise<ClusterNode> {
    return waitFor(
      'an agreed lockd leader',
      async () => {
        const running = this.nodes.filter((n) => n.proc?.running);
        const sts = await Promise.all(running.map((n) => this.status(n.id).catch(() => undefined)));
        if (sts.some((s) => s === undefined)) return undefined;
        const leaders = sts.filter((s) => s!.role === 'leader');
        if (leaders.length !== 1) return undefined;
        const l = leaders[0]!;
        if (!sts.every((s) => s!.leaderId === l.nodeId && s!.term === l.term)) return undefined;
        return this.node(l.nodeId);
      },
      timeoutMs,
      20,
    );
  }

  async kill(id: string): Promise<void> {
    await this.node(id).proc?.stop('SIGKILL');
  }

  async stop(): Promise<void> {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    await Promise.all(this.nodes.map((n) => n.proc?.stop('SIGTERM', 10_000)));
    // BENCH_KEEP=1 keeps data dirs and node logs for a look afterwards.
    if (process.env.BENCH_KEEP === '1') process.stderr.write(`lockd bench cluster kept at ${this.baseDir}\n`);
    else rmSync(this.baseDir, { recursive: true, force: true });
  }
}
