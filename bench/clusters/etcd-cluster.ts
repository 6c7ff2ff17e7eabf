// A fresh etcd cluster (Debian's etcd-server, installed if missing) on free loopback ports with
// temporary data dirs, started and stopped by PID.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { EtcdMaintenance, type StatusResponse } from '../lib/etcd-proto.js';
import { unary } from '../lib/grpc-call.js';
import { Proc, freePort, waitFor } from '../lib/procs.js';
import type { BenchCluster, ClusterNode, TimeoutFlags } from './cluster.js';

/** The etcd binary's path, installing Debian's etcd-server if there is none. */
export function ensureEtcd(log: (line: string) => void): string {
  const which = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  let bin = which();
  if (!bin) {
    log('etcd not found: apt-get install -y etcd-server');
    execFileSync('apt-get', ['install', '-y', 'etcd-server'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
    bin = which();
    if (!bin) throw new Error('etcd-server installed but no etcd on PATH');
  }
  return bin;
}

export function etcdVersion(bin: string): string {
  const out = execFileSync(bin, ['--version'], { encoding: 'utf8' });
  return /etcd Version: (\S+)/.exec(out)?.[1] ?? out.split('\n')[0];
}

interface EtcdNode extends ClusterNode {
  readonly peerUrl: string;
}

export class EtcdCluster implements BenchCluster {
  readonly system = 'etcd' as const;
  readonly nodes: EtcdNode[] = [];
  private readonly baseDir = mkdtempSync(join(tmpdir(), 'etcd-bench-'));
  private readonly token = `bench-${process.pid}-${Date.now()}`;
  private readonly clients = new Map<string, grpc.Client>();

  private constructor(
    private readonly bin: string,
    private readonly timeouts: TimeoutFlags,
  ) {}

  static async start(bin: string, size: number, timeouts: TimeoutFlags): Promise<EtcdCluster> {
    const c = new EtcdCluster(bin, timeouts);
    for (let k = 1; k <= size; k++) {
      const clientAddress = `127.0.0.1:${await freePort()}`;
      c.nodes.push({
        id: `e${k}`,
        clientAddress,
        metricsUrl: `http://${clientAddress}/metrics`,
        peerUrl: `http://127.0.0.1:${await freePort()}`,
        proc: undefined,
      });
    }
    for (const n of c.nodes) c.restart(n.id);
    return c;
  }

  private node(id: string): EtcdNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  restart(id: string): void {
    const n = this.node(id);
    if (n.proc?.running) throw new Error(`${id} is running`);
    const clientUrl = `http://${n.clientAddress}`;
    const args = [
      '--name',
      n.id,
      '--data-dir',
      join(this.baseDir, n.id),
      '--listen-client-urls',
      clientUrl,
      '--advertise-client-urls',
      clientUrl,
      '--listen-peer-urls',
      n.peerUrl,
      '--initial-advertise-peer-urls',
      n.peerUrl,
      '--initial-cluster',
      this.nodes.map((x) => `${x.id}=${x.peerUrl}`).join(','),
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      this.token,
      '--heartbeat-interval',
      String(this.timeouts.heartbeatMs),
      '--election-timeout',
      String(this.timeouts.electionMs),
      '--logger',
      'zap',
      '--log-level',
      'warn',
    ];
    n.proc = new Proc(`etcd ${id}`, this.bin, args, join(this.baseDir, `${id}.log`));
  }

  private client(id: string): grpc.Client {
    let c = this.clients.get(id);
    if (!c) {
      c = new EtcdMaintenance(this.node(id).clientAddress, grpc.credentials.createInsecure());
      this.clients.set(id, c);
    }
    return c;
  }

  status(id: string, timeoutMs = 500): Promise<StatusResponse> {
    return unary<StatusResponse>(this.client(id), 'Status', {}, timeoutMs);
  }

  async waitForLeader(timeoutMs = 20_000): Promise<ClusterNode> {
    return waitFor(
      'an agreed etcd leader',
      async () => {
        const running = this.nodes.filter((n) => n.proc?.running);
        const sts = await Promise.all(running.map((n) => this.status(n.id).catch(() => undefined)));
        if (sts.some((s) => s === undefined)) return undefined;
        const leader = sts[0]!.leader;
        if (leader === '0' || !sts.every((s) => s!.leader === leader && s!.raftTerm === sts[0]!.raftTerm)) return undefined;
        const k = sts.findIndex((s) => s!.header.member_id === leader);
        return k >= 0 ? running[k] : undefined;
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
    rmSync(this.baseDir, { recursive: true, force: true });
  }
}
