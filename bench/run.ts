// `npm run bench -- [--nodes 3|5] [--against etcd] [--out results.json] [--profile]`
// Fresh clusters of the built lockd (and of etcd), the same workloads through the same Node gRPC
// client pattern against each, a table, the ratios lockd/etcd, and the targets of issue 6.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { LockdCluster } from './clusters/lockd-cluster.js';
import { EtcdCluster, ensureEtcd, etcdVersion } from './clusters/etcd-cluster.js';
import type { BenchCluster } from './clusters/cluster.js';
import { measureFloors, type Floors } from './floors/floors.js';
import { loadAverage } from './lib/cpu.js';
import { LockdLocker } from './systems/lockd-locker.js';
import { EtcdMutexLocker, EtcdV3Locker } from './systems/etcd-lockers.js';
import type { Locker } from './systems/locker.js';
import { runUncontended } from './workloads/uncontended.js';
import { runContended } from './workloads/contended.js';
import { runKeepAlive } from './workloads/keepalive.js';
import { runFailover } from './workloads/failover.js';
import type { WorkloadContext } from './workloads/context.js';
import { headline, ratios, table, targets, type SystemResults } from './report.js';
import { profileLockd } from './profile/profile-run.js';

const WORKLOADS = ['floors', 'uncontended', 'contended', 'keepalive', 'failover'] as const;
type Workload = (typeof WORKLOADS)[number];

const USAGE = `usage: npm run bench -- [--nodes 3|5] [--against etcd] [--out results.json]
  [--warmup-ms 1000] [--window-ms 5000] [--leases 10000] [--trials 3]
  [--only floors,uncontended,contended,keepalive,failover] [--no-lockd] [--profile] [--max-minutes 9]`;

function options() {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '3' },
      against: { type: 'string' },
      out: { type: 'string' },
      'warmup-ms': { type: 'string', default: '1000' },
      'window-ms': { type: 'string', default: '5000' },
      leases: { type: 'string', default: '10000' },
      trials: { type: 'string', default: '3' },
      only: { type: 'string' },
      'no-lockd': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      'max-minutes': { type: 'string', default: '9' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    process.exit(0);
  }
  const num = (k: keyof typeof values, min: number) => {
    const n = Number(values[k]);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${k} must be a number ≥ ${min}\n${USAGE}`);
    return n;
  };
  const nodes = num('nodes', 1);
  if (nodes !== 3 && nodes !== 5) throw new Error(`--nodes must be 3 or 5\n${USAGE}`);
  if (values.against !== undefined && values.against !== 'etcd') throw new Error(`--against takes only "etcd"\n${USAGE}`);
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...WORKLOADS];
  for (const w of only) if (!(WORKLOADS as readonly string[]).includes(w)) throw new Error(`unknown workload "${w}"\n${USAGE}`);
  return {
    nodes,
    etcd: values.against === 'etcd',
    lockd: !values['no-lockd'],
    out: values.out,
    spec: { warmupMs: num('warmup-ms', 0), windowMs: num('window-ms', 100) },
    leases: num('leases', 1),
    trials: num('trials', 1),
    only: new Set(only as Workload[]),
    profile: values.profile,
    maxMinutes: num('max-minutes', 1),
  };
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const ETCD_TIMEOUTS = { heartbeatMs: 100, electionMs: 1000 };
/** lockd flags giving etcd's heartbeat (100 ms) and election timeout (1000 ms) with etcd's tick structure. */
const LOCKD_EQUAL_FLAGS = ['--tick-ms', '100', '--heartbeat-ticks', '1', '--election-ticks', '10'];

type Opts = ReturnType<typeof options>;

async function steadyWorkloads(o: Opts, cluster: BenchCluster, lockers: Array<(a: string) => Locker>, label: string, r: SystemResults): Promise<void> {
  const leader = await cluster.waitForLeader();
  log(`[${label}] ${cluster.nodes.length} nodes up, leader ${leader.id} at ${leader.clientAddress}`);
  const ctx = (newLocker: (a: string) => Locker): WorkloadContext => ({ log, spec: o.spec, newLocker });
  if (o.only.has('uncontended')) {
    for (const c of [1, 16, 64]) r.uncontended.push(await runUncontended(ctx(lockers[0]), leader.clientAddress, c, label));
  }
  if (o.only.has('contended')) {
    for (const c of [16, 2]) for (const mk of lockers) r.contended.push(await runContended(ctx(mk), leader.clientAddress, c, label));
  }
  if (o.only.has('keepalive')) {
    const followers = cluster.nodes.filter((n) => n.id !== leader.id).map((n) => n.proc!.pid);
    const spec = { warmupMs: Math.max(2000, o.spec.warmupMs), windowMs: o.spec.windowMs };
    r.keepalive = await runKeepAlive({ log, spec, newLocker: lockers[0] }, leader.clientAddress, leader.proc!.pid, followers,
      { leases: o.leases, ttlMs: 15_000, intervalMs: 5000, streams: 4 }, label);
  }
}

async function withCluster<T>(start: () => Promise<BenchCluster>, fn: (c: BenchCluster) => Promise<T>): Promise<T> {
  const c = await start();
  try {
    return await fn(c);
  } finally {
    await c.stop();
  }
}

async function benchLockd(o: Opts): Promise<SystemResults> {
  const r: SystemResults = { uncontended: [], contended: [], failover: [] };
  const mk = (a: string) => new LockdLocker(a);
  if (['uncontended', 'contended', 'keepalive'].some((w) => o.only.has(w as Workload))) {
    await withCluster(() => LockdCluster.start({ size: o.nodes }), (c) => steadyWorkloads(o, c, [mk], 'lockd', r));
  }
  if (o.only.has('failover')) {
    const settings: Array<[string, string[]]> = [
      ['heartbeat 100 ms / election 1000 ms (tick 100 ms × 1 / × 10, as etcd)', LOCKD_EQUAL_FLAGS],
      ['lockd defaults (tick 50 ms, heartbeat 2, election 20 ticks)', []],
    ];
    for (const [setting, flags] of settings) {
      r.failover.push(await withCluster(() => LockdCluster.start({ size: o.nodes, flags }), (c) =>
        runFailover({ log, spec: o.spec, newLocker: mk }, c, o.trials, setting, 'lockd')));
    }
  }
  return r;
}

async function benchEtcd(o: Opts, bin: string): Promise<SystemResults> {
  const r: SystemResults = { uncontended: [], contended: [], failover: [] };
  const v3 = (a: string) => new EtcdV3Locker(a);
  const mutex = (a: string) => new EtcdMutexLocker(a);
  const start = () => EtcdCluster.start(bin, o.nodes, ETCD_TIMEOUTS);
  if (['uncontended', 'contended', 'keepalive'].some((w) => o.only.has(w as Workload))) {
    await withCluster(start, (c) => steadyWorkloads(o, c, [v3, mutex], 'etcd', r));
  }
  if (o.only.has('failover')) {
    r.failover.push(await withCluster(start, (c) =>
      runFailover({ log, spec: o.spec, newLocker: v3 }, c, o.trials, 'heartbeat 100 ms / election 1000 ms (etcd defaults)', 'etcd')));
  }
  return r;
}

function machine(etcdBin: string | undefined) {
  const competing = (() => {
    try {
      return Number(execFileSync('sh', ['-c', 'ps aux | grep -c "lockd\\|mocha"'], { encoding: 'utf8' }).trim());
    } catch {
      return NaN;
    }
  })();
  return {
    nproc: cpus().length,
    cpu: /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model,
    node: process.version,
    etcd: etcdBin ? etcdVersion(etcdBin) : undefined,
    loadavg: loadAverage(),
    ps_lockd_or_mocha_lines: competing,
  };
}

async function main(): Promise<void> {
  const o = options();
  const watchdog = setTimeout(() => {
    log(`watchdog: the run exceeded ${o.maxMinutes} minutes; stopping every process it started`);
    process.exit(3);
  }, o.maxMinutes * 60_000);
  watchdog.unref();
  const etcdBin = o.etcd ? ensureEtcd(log) : undefined;
  const before = machine(etcdBin);
  log(`machine: ${before.nproc} × ${before.cpu}, node ${before.node}${before.etcd ? `, etcd ${before.etcd}` : ''}, load ${before.loadavg.join(' ')}, ps lines matching lockd|mocha: ${before.ps_lockd_or_mocha_lines}`);
  const started = Date.now();

  const floors: Floors | undefined = o.only.has('floors') ? await measureFloors(o.spec, log) : undefined;
  const systems: Record<string, SystemResults> = {};
  if (o.lockd) systems.lockd = await benchLockd(o);
  if (etcdBin) systems.etcd = await benchEtcd(o, etcdBin);
  const heads = Object.fromEntries(Object.entries(systems).map(([k, r]) => [k, headline(r)]));
  const rat = heads.lockd && heads.etcd ? ratios(heads.lockd, heads.etcd) : undefined;
  const checks = heads.lockd ? targets(heads.lockd, rat, floors) : [];
  let profile: unknown;
  if (o.profile) profile = await profileLockd(o.nodes, { warmupMs: o.spec.warmupMs, windowMs: Math.max(o.spec.windowMs, 8000) }, log);

  const out = process.stdout;
  out.write('\n' + table(heads, rat) + '\n');
  if (floors) {
    out.write(`\nfloors: 4 KiB append+fsync p50 ${floors.fsync_4k_p50_ms} ms (fdatasync ${floors.fdatasync_4k_p50_ms} ms); gRPC unary echo p50 ${floors.grpc_unary_rtt_p50_ms} ms, ` +
      `64 callers ${floors.grpc_unary_64_calls_per_s} calls/s; stream ping-pong p50 ${floors.grpc_stream_rtt_p50_ms} ms\n`);
  }
  if (rat) out.write(`\nratios lockd/etcd: ${Object.entries(rat).map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
  if (checks.length) {
    out.write('\ntargets (3 nodes):\n');
    for (const c of checks) out.write(`  ${c.met === undefined ? '?' : c.met ? 'MET ' : 'MISS'}  ${c.target}: ${c.actual}\n`);
  }
  const after = machine(etcdBin);
  out.write(`\nrun took ${((Date.now() - started) / 1000).toFixed(0)} s; load before ${before.loadavg.join(' ')}, after ${after.loadavg.join(' ')}\n`);
  if (o.out) {
    const json = {
      date: new Date().toISOString(),
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
      machine: { ...before, loadavg_after: after.loadavg, ps_lockd_or_mocha_lines_after: after.ps_lockd_or_mocha_lines },
      config: { nodes: o.nodes, ...o.spec, keepalive_leases: o.leases, failover_trials: o.trials, etcd_timeouts: ETCD_TIMEOUTS, lockd_equal_flags: LOCKD_EQUAL_FLAGS },
      floors,
      ...Object.fromEntries(Object.entries(heads)),
      ratios: rat,
      targets: checks,
      details: systems,
      profile,
    };
    writeFileSync(o.out, JSON.stringify(json, null, 2) + '\n');
    log(`wrote ${o.out}`);
  }
  clearTimeout(watchdog);
}

main().then(
  () => process.exit(0),
  (e) => {
    log(`bench failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
