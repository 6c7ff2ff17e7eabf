// `npm run bench -- [--nodes 3|5] [--against etcd] [--out results.json] [--profile] [--lockd-api both]`
// Fresh clusters of the built lockd (and of etcd), the same workloads through the same Node gRPC
// client pattern against each, a table, the ratios lockd/etcd, and the targets of issue 6. lockd's
// uncontended and contended workloads also run over its Session stream (`*_session` keys).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { LockdCluster } from './clusters/lockd-cluster.js';
import { BenchTls } from './lib/bench-tls.js';
import { EtcdCluster, ensureEtcd, etcdVersion } from './clusters/etcd-cluster.js';
import type { BenchCluster, ClusterNode } from './clusters/cluster.js';
import { measureFloors, type Floors } from './floors/floors.js';
import { loadAverage } from './lib/cpu.js';
import { LockdLocker } from './systems/lockd-locker.js';
import { LockdSessionLocker } from './systems/lockd-session-locker.js';
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
  [--only floors,uncontended,contended,keepalive,failover] [--no-lockd] [--profile] [--max-minutes 9]
  [--lockd-api unary|session|both]   (lockd's uncontended/contended client: unary calls, Session stream, or both; default both)
  [--profile-api unary|session]      (the client of the --profile load; default unary)
  [--tls]                            (lockd with mutual TLS, client-certificate auth and --acl; clients as admin "bench")`;

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
      'lockd-api': { type: 'string', default: 'both' },
      'profile-api': { type: 'string', default: 'unary' },
      tls: { type: 'boolean', default: false },
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
  const api = values['lockd-api'];
  if (api !== 'unary' && api !== 'session' && api !== 'both') throw new Error(`--lockd-api takes unary, session or both\n${USAGE}`);
  const profileApi = values['profile-api'];
  if (profileApi !== 'unary' && profileApi !== 'session') throw new Error(`--profile-api takes unary or session\n${USAGE}`);
  if (values.tls && values.profile) throw new Error(`--profile runs without TLS; drop --tls\n${USAGE}`);
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
    profileApi,
    maxMinutes: num('max-minutes', 1),
    unary: api !== 'session',
    session: api !== 'unary',
    tls: values.tls ? new BenchTls() : undefined,
  };
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

const ETCD_TIMEOUTS = { heartbeatMs: 100, electionMs: 1000 };
/** lockd flags giving etcd's heartbeat (100 ms) and election timeout (1000 ms) with etcd's tick structure. */
const LOCKD_EQUAL_FLAGS = ['--tick-ms', '100', '--heartbeat-ticks', '1', '--election-ticks', '10'];

type Opts = ReturnType<typeof options>;

interface System {
  readonly name: 'lockd' | 'etcd';
  start(flags?: readonly string[]): Promise<BenchCluster>;
  /** Lock clients to run: the first is used for every workload; the others add contended recipes. */
  readonly lockers: Array<(address: string) => Locker>;
  /** Run uncontended/contended with `lockers` (false: only with `session`). */
  readonly unary: boolean;
  /** lockd: the Session-stream client, for the `*_session` variants of uncontended/contended. */
  readonly session?: (address: string) => Locker;
  /** Failover settings: label and (lockd) node flags. The first is the equal-timeouts one. */
  readonly failover: Array<[setting: string, flags: readonly string[]]>;
}

function systemsFor(o: Opts, etcdBin: string | undefined): System[] {
  const out: System[] = [];
  if (o.lockd) {
    out.push({
      name: 'lockd',
      start: (flags = []) => LockdCluster.start({ size: o.nodes, flags, tls: o.tls }),
      lockers: [(a) => new LockdLocker(a, o.tls)],
      unary: o.unary,
      session: o.session ? (a) => new LockdSessionLocker(a, o.tls) : undefined,
      failover: [
        ['heartbeat 100 ms / election 1000 ms (tick 100 ms × 1 / × 10, as etcd)', LOCKD_EQUAL_FLAGS],
        ['lockd defaults (tick 50 ms, heartbeat 2, election 20 ticks)', []],
      ],
    });
  }
  if (etcdBin) {
    out.push({
      name: 'etcd',
      start: () => EtcdCluster.start(etcdBin, o.nodes, ETCD_TIMEOUTS),
      lockers: [(a) => new EtcdV3Locker(a), (a) => new EtcdMutexLocker(a)],
      unary: true,
      failover: [['heartbeat 100 ms / election 1000 ms (etcd defaults)', []]],
    });
  }
  return out;
}

/**
 * Uncontended, contended and keepalive workloads with every system's cluster up at once, each
 * workload run against one system right after the other, so that load from other processes on the
 * machine shifts both figures of a pair alike.
 */
async function steadyWorkloads(o: Opts, systems: System[], results: Record<string, SystemResults>): Promise<void> {
  const clusters = new Map<string, BenchCluster>();
  try {
    for (const sys of systems) clusters.set(sys.name, await sys.start());
    const leaders = new Map<string, ClusterNode>();
    for (const sys of systems) {
      const leader = await clusters.get(sys.name)!.waitForLeader();
      leaders.set(sys.name, leader);
      log(`[${sys.name}] ${o.nodes} nodes up, leader ${leader.id} at ${leader.clientAddress}`);
    }
    const ctx = (newLocker: (a: string) => Locker): WorkloadContext => ({ log, spec: o.spec, newLocker });
    const at = (sys: System) => leaders.get(sys.name)!.clientAddress;
    if (o.only.has('uncontended')) {
      for (const c of [1, 16, 64]) {
        for (const sys of systems) {
          const r = results[sys.name];
          if (sys.unary) r.uncontended.push(await runUncontended(ctx(sys.lockers[0]), at(sys), c, sys.name));
          if (sys.session) (r.uncontended_session ??= []).push(await runUncontended(ctx(sys.session), at(sys), c, `${sys.name} session`));
        }
      }
    }
    if (o.only.has('contended')) {
      for (const c of [16, 2]) {
        for (const sys of systems) {
          const r = results[sys.name];
          if (sys.unary) for (const mk of sys.lockers) r.contended.push(await runContended(ctx(mk), at(sys), c, sys.name));
          if (sys.session) (r.contended_session ??= []).push(await runContended(ctx(sys.session), at(sys), c, `${sys.name} session`));
        }
      }
    }
    if (o.only.has('keepalive')) {
      // Last: the leases left behind would expire during later workloads, so each cluster stops after its run.
      const spec = { warmupMs: Math.max(2000, o.spec.warmupMs), windowMs: o.spec.windowMs };
      for (const sys of systems) {
        const cluster = clusters.get(sys.name)!;
        const leader = leaders.get(sys.name)!;
        const followers = cluster.nodes.filter((n) => n.id !== leader.id).map((n) => n.proc!.pid);
        results[sys.name].keepalive = await runKeepAlive({ log, spec, newLocker: sys.lockers[0] }, leader.clientAddress, leader.proc!.pid, followers,
          { leases: o.leases, ttlMs: 15_000, intervalMs: 5000, streams: 4 }, sys.name);
        clusters.delete(sys.name);
        await cluster.stop();
      }
    }
  } finally {
    for (const c of clusters.values()) await c.stop();
  }
}

async function failovers(o: Opts, systems: System[], results: Record<string, SystemResults>): Promise<void> {
  for (const sys of systems) {
    for (const [setting, flags] of sys.failover) {
      const cluster = await sys.start(flags);
      try {
        results[sys.name].failover.push(await runFailover({ log, spec: o.spec, newLocker: sys.lockers[0] }, cluster, o.trials, setting, sys.name));
      } finally {
        await cluster.stop();
      }
    }
  }
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
  const sut = systemsFor(o, etcdBin);
  const systems: Record<string, SystemResults> = Object.fromEntries(sut.map((s) => [s.name, { uncontended: [], contended: [], failover: [] }]));
  if (['uncontended', 'contended', 'keepalive'].some((w) => o.only.has(w as Workload))) await steadyWorkloads(o, sut, systems);
  if (o.only.has('failover')) await failovers(o, sut, systems);
  const heads = Object.fromEntries(Object.entries(systems).map(([k, r]) => [k, headline(r)]));
  const rat = heads.lockd && heads.etcd ? ratios(heads.lockd, heads.etcd) : undefined;
  const checks = heads.lockd ? targets(heads.lockd, rat, floors) : [];
  let profile: unknown;
  if (o.profile) {
    const newLocker = o.profileApi === 'session' ? (a: string) => new LockdSessionLocker(a) : (a: string) => new LockdLocker(a);
    profile = { api: o.profileApi, ...(await profileLockd(o.nodes, { warmupMs: o.spec.warmupMs, windowMs: Math.max(o.spec.windowMs, 8000) }, log, newLocker)) };
  }

  const out = process.stdout;
  out.write('\n' + table(heads, rat) + '\n');
  if (floors) {
    out.write(`\nfloors: 4 KiB append+fsync p50 ${floors.fsync_4k_p50_ms} ms (fdatasync ${floors.fdatasync_4k_p50_ms} ms); gRPC unary echo p50 ${floors.grpc_unary_rtt_p50_ms} ms, ` +
      `64 callers ${floors.grpc_unary_64_calls_per_s} calls/s; stream ping-pong p50 ${floors.grpc_stream_rtt_p50_ms} ms\n`);
  }
  if (rat) out.write(`\nratios lockd/etcd: ${Object.entries(rat).map(([k, v]) => `${k}=${v}`).join(', ')}\n`);
  if (checks.length) {
    out.write(`\ntargets (set for 3 nodes${o.nodes !== 3 ? `; this run has ${o.nodes}` : ''}):\n`);
    for (const c of checks) out.write(`  ${c.met === undefined ? '?' : c.met ? 'MET ' : 'MISS'}  ${c.target}: ${c.actual}\n`);
  }
  const after = machine(etcdBin);
  out.write(`\nrun took ${((Date.now() - started) / 1000).toFixed(0)} s; load before ${before.loadavg.join(' ')}, after ${after.loadavg.join(' ')}\n`);
  if (o.out) {
    const json = {
      date: new Date().toISOString(),
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
      machine: { ...before, loadavg_after: after.loadavg, ps_lockd_or_mocha_lines_after: after.ps_lockd_or_mocha_lines },
      config: { nodes: o.nodes, ...o.spec, lockd_api: o.unary && o.session ? 'both' : o.session ? 'session' : 'unary', keepalive_leases: o.leases, tls: o.tls !== undefined, failover_trials: o.trials, etcd_timeouts: ETCD_TIMEOUTS, lockd_equal_flags: LOCKD_EQUAL_FLAGS },
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
  o.tls?.remove();
  clearTimeout(watchdog);
}

main().then(
  () => process.exit(0),
  (e) => {
    log(`bench failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
