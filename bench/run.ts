// `npm run bench -- [--nodes 3|5] [--against etcd] [--lockd-baseline DIR] [--reps 5] [--out results.json] [--profile] [--lockd-api both]`
// Fresh clusters of the built lockd (and of etcd, and of a baseline checkout's lockd), the same
// workloads through the same Node gRPC client pattern against each, repeated and interleaved
// (lockd, etcd, lockd-base; then rotated), each figure the median [min–max] of the repetitions in
// one Markdown table, with CPU per cycle of every process and counters per cycle (messages, disk
// writes) measured over each run's window, the ratios, and the targets of the performance round. lockd's
// uncontended and contended workloads also run over its Session stream (`*_session` keys).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LockdCluster } from './clusters/lockd-cluster.js';
import { BenchTls } from './lib/bench-tls.js';
import { EtcdCluster, ensureEtcd, etcdVersion } from './clusters/etcd-cluster.js';
import type { BenchCluster, ClusterNode } from './clusters/cluster.js';
import { measureFloors, type Floors } from './floors/floors.js';
import { loadAverage } from './lib/cpu.js';
import { WindowMeter, type MeteredProcess, type PerCycle } from './lib/meter.js';
import { estimateMs, interleave, medians, rotation, summarizeReps } from './lib/reps.js';
import { LockdLocker } from './systems/lockd-locker.js';
import { LockdSessionLocker } from './systems/lockd-session-locker.js';
import type { SessionClient } from '../src/client/session-client.js';
import { EtcdMutexLocker, EtcdV3Locker } from './systems/etcd-lockers.js';
import type { Locker } from './systems/locker.js';
import { runUncontended } from './workloads/uncontended.js';
import { runContended } from './workloads/contended.js';
import { runKeepAlive } from './workloads/keepalive.js';
import { runFailover } from './workloads/failover.js';
import type { WorkloadContext } from './workloads/context.js';
import { headline, markdownTable, ratios, targets, type Metered, type SystemResults } from './report.js';
import { profileLockd } from './profile/profile-run.js';

const WORKLOADS = ['floors', 'uncontended', 'contended', 'keepalive', 'failover'] as const;
/** The client counts the report has rows for. */
const UNCONTENDED_CLIENTS = [1, 16, 64];
const CONTENDED_CLIENTS = [16, 2];
type Workload = (typeof WORKLOADS)[number];

const USAGE = `usage: npm run bench -- [--nodes 3|5] [--against etcd] [--out results.json]
  [--warmup-ms 1000] [--window-ms 5000] [--leases 10000] [--trials 3]
  [--reps 5]                         (uncontended/contended repetitions, systems interleaved; each figure their median [min–max])
  [--lockd-baseline DIR]             (also run DIR's built lockd (DIR/dist/src/lockd/main.js) as system "lockd-base")
  [--no-counters]                    (no /metrics scrapes: lockd nodes without --http-listen; CPU per cycle is still measured)
  [--only floors,uncontended,contended,keepalive,failover] [--no-lockd] [--profile]
  [--max-minutes N]                  (watchdog; default: 1.5 × the estimated duration + 3, at least 9)
  [--plan]                           (print the plan and its estimated duration, run nothing)
  [--clients 1,16,64,2]              (only these client counts: uncontended 1, 16, 64; contended 16, 2; default all)
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
      reps: { type: 'string', default: '5' },
      'lockd-baseline': { type: 'string' },
      'no-counters': { type: 'boolean', default: false },
      plan: { type: 'boolean', default: false },
      clients: { type: 'string' },
      only: { type: 'string' },
      'no-lockd': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      'max-minutes': { type: 'string' },
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
  const baseline = values['lockd-baseline'];
  const baselineMain = baseline === undefined ? undefined : join(resolve(baseline), 'dist', 'src', 'lockd', 'main.js');
  if (baselineMain && !existsSync(baselineMain))
    throw new Error(`--lockd-baseline: ${baselineMain} is missing (run \`npm run build\` in ${baseline})\n${USAGE}`);
  const clients = values.clients === undefined ? undefined : values.clients.split(',').map((x) => Number(x.trim()));
  for (const c of clients ?? [])
    if (!UNCONTENDED_CLIENTS.includes(c) && !CONTENDED_CLIENTS.includes(c))
      throw new Error(`--clients: ${c} is none of ${[...new Set([...UNCONTENDED_CLIENTS, ...CONTENDED_CLIENTS])].join(', ')}\n${USAGE}`);
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
    reps: Math.floor(num('reps', 1)),
    baselineMain,
    counters: !values['no-counters'],
    planOnly: values.plan,
    uncontendedClients: UNCONTENDED_CLIENTS.filter((c) => !clients || clients.includes(c)),
    contendedClients: CONTENDED_CLIENTS.filter((c) => !clients || clients.includes(c)),
    only: new Set(only as Workload[]),
    profile: values.profile,
    profileApi,
    maxMinutes: values['max-minutes'] === undefined ? undefined : num('max-minutes', 1),
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
  /** lockd, lockd-base (--lockd-baseline) or etcd: the report's column. */
  readonly name: string;
  /** Which counters its /metrics has (bench/lib/counters.ts). */
  readonly kind: 'lockd' | 'etcd';
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

function systemsFor(o: Opts, etcdBin: string | undefined, baselineSession?: typeof SessionClient): System[] {
  const out: System[] = [];
  const lockd = (name: string, main: string | undefined, Session?: typeof SessionClient): System => ({
    name,
    kind: 'lockd',
    start: (flags = []) => LockdCluster.start({ size: o.nodes, flags, tls: o.tls, metrics: o.counters, main }),
    lockers: [(a) => new LockdLocker(a, o.tls)],
    unary: o.unary,
    session: o.session ? (a) => new LockdSessionLocker(a, o.tls, Session) : undefined,
    failover: [
      ['heartbeat 100 ms / election 1000 ms (tick 100 ms × 1 / × 10, as etcd)', LOCKD_EQUAL_FLAGS],
      ['lockd defaults (tick 50 ms, heartbeat 2, election 20 ticks)', []],
    ],
  });
  if (o.lockd) out.push(lockd('lockd', undefined));
  if (o.lockd && o.baselineMain) out.push(lockd('lockd-base', o.baselineMain, baselineSession));
  if (etcdBin) {
    out.push({
      name: 'etcd',
      kind: 'etcd',
      start: () => EtcdCluster.start(etcdBin, o.nodes, ETCD_TIMEOUTS),
      lockers: [(a) => new EtcdV3Locker(a), (a) => new EtcdMutexLocker(a)],
      unary: true,
      failover: [['heartbeat 100 ms / election 1000 ms (etcd defaults)', []]],
    });
  }
  return out;
}

/** Uncontended and contended runs in one repetition (each system, API and recipe). */
function runsPerRep(o: Opts, systems: readonly System[]): number {
  let n = 0;
  for (const s of systems) {
    const unc = (s.unary ? 1 : 0) + (s.session ? 1 : 0);
    const cont = (s.unary ? s.lockers.length : 0) + (s.session ? 1 : 0);
    if (o.only.has('uncontended')) n += o.uncontendedClients.length * unc;
    if (o.only.has('contended')) n += o.contendedClients.length * cont;
  }
  return n;
}

/** Set-up and tear-down of one run (clients, lease grants, revokes, the contended drain, scrapes): ~0.6 s measured. */
const RUN_OVERHEAD_MS = 700;

function estimate(o: Opts, systems: readonly System[]): number {
  let fixed = systems.length * 3000; // cluster starts and elections
  if (o.only.has('floors')) fixed += 3 * (o.spec.warmupMs + o.spec.windowMs) + 5000;
  if (o.only.has('keepalive')) fixed += systems.length * (o.leases / 2 + 2000 + o.spec.windowMs + 5000);
  if (o.only.has('failover')) fixed += systems.reduce((s, x) => s + x.failover.length, 0) * (o.trials * 8000 + 5000);
  if (o.profile) fixed += 30_000;
  return estimateMs({ reps: o.reps, runsPerRep: runsPerRep(o, systems), ...o.spec, overheadMs: RUN_OVERHEAD_MS, fixedMs: fixed });
}

const fmt2 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');

function perCycleLine(p: PerCycle): string {
  const c = p.counters;
  const n = (k: string, d = 2) => (c[k] === undefined ? undefined : c[k]!.toFixed(d));
  const msgs =
    n('msgs_sent') === undefined ? '' : `; msgs ${n('msgs_sent')} (App ${n('msgs_App')}, AppResp ${n('msgs_AppResp')}, Heartbeat ${n('msgs_Heartbeat')})`;
  const disk =
    n('disk_synced') === undefined
      ? ''
      : `; synced writes ${n('disk_synced')}${n('disk_unsynced') === undefined ? '' : `, unsynced ${n('disk_unsynced')}`}${n('entries_per_persist') === undefined ? '' : `, ${n('entries_per_persist')} entries/persist`}`;
  const followers = p.followers.map((f, k) => `${f} ${fmt2(p.cpu_followers_ms[k])}`).join(', ');
  return `per cycle (${p.cycles} cycles): CPU ms leader ${p.leader} ${fmt2(p.cpu_leader_ms)}, followers ${followers}, servers ${fmt2(p.cpu_servers_ms)}, load gen ${fmt2(p.cpu_loadgen_ms)}${msgs}${disk}`;
}

/**
 * Uncontended and contended workloads with every system's cluster up at once, repeated `o.reps`
 * times: in each repetition every workload runs against each system right after the other, in an
 * order rotated per repetition, so that load from other processes shifts every system's figures
 * alike. Each run is metered over its window (CPU of every process, counters). Keepalive runs once.
 */
async function steadyWorkloads(o: Opts, systems: System[], reps: Record<string, SystemResults[]>): Promise<void> {
  const clusters = new Map<string, BenchCluster>();
  const scrapeTls = o.tls?.scrapeTls();
  try {
    for (const sys of systems) clusters.set(sys.name, await sys.start());
    const leaders = new Map<string, ClusterNode>();
    const findLeaders = async () => {
      for (const sys of systems) {
        const leader = await clusters.get(sys.name)!.waitForLeader();
        const was = leaders.get(sys.name);
        if (!was) log(`[${sys.name}] ${o.nodes} nodes up, leader ${leader.id} at ${leader.clientAddress}`);
        else if (was.id !== leader.id) log(`[${sys.name}] the leader moved from ${was.id} to ${leader.id}`);
        leaders.set(sys.name, leader);
      }
    };
    await findLeaders();
    const at = (sys: System) => leaders.get(sys.name)!.clientAddress;
    const procs = (sys: System): MeteredProcess[] =>
      clusters.get(sys.name)!.nodes.map((n) => ({
        name: n.id,
        leader: n.id === leaders.get(sys.name)!.id,
        pid: n.proc!.pid,
        ...(o.counters && n.metricsUrl ? { metricsUrl: n.metricsUrl } : {}),
      }));
    const metered = async <T extends { cycles: number }>(
      sys: System,
      newLocker: (a: string) => Locker,
      run: (ctx: WorkloadContext) => Promise<T>,
      label: string,
    ): Promise<Metered<T>> => {
      const meter = new WindowMeter(sys.kind, procs(sys), scrapeTls, (line) => log(`[${label}] ${line}`));
      try {
        const res = await run({ log, spec: o.spec, newLocker, onWindow: (w) => void meter.attach(w) });
        const per_cycle = await meter.perCycle(res.cycles).catch((e: unknown) => void log(`[${label}] not metered: ${(e as Error).message}`));
        if (per_cycle) log(`[${label}] ${perCycleLine(per_cycle)}`);
        return per_cycle ? { ...res, per_cycle } : res;
      } finally {
        meter.cancel();
      }
    };
    const workloads: Array<['uncontended' | 'contended', number]> = [
      ...(o.only.has('uncontended') ? o.uncontendedClients.map((c): ['uncontended', number] => ['uncontended', c]) : []),
      ...(o.only.has('contended') ? o.contendedClients.map((c): ['contended', number] => ['contended', c]) : []),
    ];
    let rep = -1;
    for (const run of interleave(systems, workloads, o.reps)) {
      if (run.rep !== rep) {
        rep = run.rep;
        log(
          `repetition ${rep + 1}/${o.reps}: ${rotation(systems, rep)
            .map((s) => s.name)
            .join(', ')}`,
        );
        if (rep > 0) await findLeaders();
      }
      const sys = run.system;
      const [kind, c] = run.workload;
      const r = reps[sys.name][rep];
      if (kind === 'uncontended') {
        if (sys.unary) r.uncontended.push(await metered(sys, sys.lockers[0], (ctx) => runUncontended(ctx, at(sys), c, sys.name), sys.name));
        if (sys.session)
          (r.uncontended_session ??= []).push(
            await metered(sys, sys.session, (ctx) => runUncontended(ctx, at(sys), c, `${sys.name} session`), `${sys.name} session`),
          );
      } else {
        if (sys.unary) for (const mk of sys.lockers) r.contended.push(await metered(sys, mk, (ctx) => runContended(ctx, at(sys), c, sys.name), sys.name));
        if (sys.session)
          (r.contended_session ??= []).push(
            await metered(sys, sys.session, (ctx) => runContended(ctx, at(sys), c, `${sys.name} session`), `${sys.name} session`),
          );
      }
    }
    if (o.only.has('keepalive')) {
      // Last, and once: the leases left behind would expire during later workloads, so each cluster stops after its run.
      const spec = { warmupMs: Math.max(2000, o.spec.warmupMs), windowMs: o.spec.windowMs };
      for (const sys of systems) {
        const cluster = clusters.get(sys.name)!;
        const leader = leaders.get(sys.name)!;
        const followers = cluster.nodes.filter((n) => n.id !== leader.id).map((n) => n.proc!.pid);
        reps[sys.name][0].keepalive = await runKeepAlive(
          { log, spec, newLocker: sys.lockers[0] },
          leader.clientAddress,
          leader.proc!.pid,
          followers,
          { leases: o.leases, ttlMs: 15_000, intervalMs: 5000, streams: 4 },
          sys.name,
        );
        clusters.delete(sys.name);
        await cluster.stop();
      }
    }
  } finally {
    for (const c of clusters.values()) await c.stop();
  }
}

async function failovers(o: Opts, systems: System[], reps: Record<string, SystemResults[]>): Promise<void> {
  for (const sys of systems) {
    for (const [setting, flags] of sys.failover) {
      const cluster = await sys.start(flags);
      try {
        reps[sys.name][0].failover.push(await runFailover({ log, spec: o.spec, newLocker: sys.lockers[0] }, cluster, o.trials, setting, sys.name));
      } finally {
        await cluster.stop();
      }
    }
  }
}

async function baselineSessionClient(main: string): Promise<typeof SessionClient> {
  const file = join(dirname(main), '..', 'client', 'session-client.js');
  if (!existsSync(file)) throw new Error(`--lockd-baseline: ${file} is missing`);
  const mod = (await import(pathToFileURL(file).href)) as { SessionClient?: typeof SessionClient };
  if (typeof mod.SessionClient !== 'function') throw new Error(`--lockd-baseline: ${file} exports no SessionClient`);
  return mod.SessionClient;
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
  const etcdBin = o.etcd ? ensureEtcd(log) : undefined;
  // The baseline's Session client is its own build, so lockd-base is the old code end to end
  // (the unary client is the bench's own grpc-js calls, the same for every system).
  const baselineSession = o.baselineMain ? await baselineSessionClient(o.baselineMain) : undefined;
  const sut = systemsFor(o, etcdBin, baselineSession);
  const estimatedMs = estimate(o, sut);
  const maxMinutes = o.maxMinutes ?? Math.max(9, Math.ceil((1.5 * estimatedMs) / 60_000) + 3);
  log(
    `plan: ${sut.map((s) => s.name).join(', ')}; ${o.reps} repetition(s) of ${runsPerRep(o, sut)} runs (${o.spec.warmupMs} ms warm-up + ${o.spec.windowMs} ms window each); ` +
      `estimated ${(estimatedMs / 60_000).toFixed(1)} min; watchdog ${maxMinutes} min${o.counters ? '' : '; counters off'}`,
  );
  if (estimatedMs > maxMinutes * 60_000) log(`warning: the estimate exceeds --max-minutes ${maxMinutes}: the watchdog will stop the run`);
  if (o.planOnly) return;
  const watchdog = setTimeout(() => {
    log(`watchdog: the run exceeded ${maxMinutes} minutes; stopping every process it started`);
    process.exit(3);
  }, maxMinutes * 60_000);
  watchdog.unref();
  const before = machine(etcdBin);
  log(
    `machine: ${before.nproc} × ${before.cpu}, node ${before.node}${before.etcd ? `, etcd ${before.etcd}` : ''}, load ${before.loadavg.join(' ')}, ps lines matching lockd|mocha: ${before.ps_lockd_or_mocha_lines}`,
  );
  const started = Date.now();

  const floors: Floors | undefined = o.only.has('floors') ? await measureFloors(o.spec, log) : undefined;
  const reps: Record<string, SystemResults[]> = Object.fromEntries(
    sut.map((s) => [s.name, Array.from({ length: o.reps }, (): SystemResults => ({ uncontended: [], contended: [], failover: [] }))]),
  );
  if (['uncontended', 'contended', 'keepalive'].some((w) => o.only.has(w as Workload))) await steadyWorkloads(o, sut, reps);
  if (o.only.has('failover')) await failovers(o, sut, reps);
  const summaries = Object.fromEntries(Object.entries(reps).map(([k, rs]) => [k, summarizeReps(rs.map(headline))]));
  const heads = Object.fromEntries(Object.entries(summaries).map(([k, s]) => [k, medians(s)]));
  const rat = heads.lockd && heads.etcd ? ratios(heads.lockd, heads.etcd) : undefined;
  const checks = heads.lockd ? targets(heads.lockd, rat, floors, heads['lockd-base'], heads.etcd) : [];
  let profile: unknown;
  if (o.profile) {
    const newLocker = o.profileApi === 'session' ? (a: string) => new LockdSessionLocker(a) : (a: string) => new LockdLocker(a);
    profile = { api: o.profileApi, ...(await profileLockd(o.nodes, { warmupMs: o.spec.warmupMs, windowMs: Math.max(o.spec.windowMs, 8000) }, log, newLocker)) };
  }

  const out = process.stdout;
  out.write('\n' + markdownTable({ systems: summaries, medians: heads, followers: o.nodes - 1, reps: o.reps }) + '\n');
  if (floors) {
    out.write(
      `\nfloors: 4 KiB append+fsync p50 ${floors.fsync_4k_p50_ms} ms (fdatasync ${floors.fdatasync_4k_p50_ms} ms); gRPC unary echo p50 ${floors.grpc_unary_rtt_p50_ms} ms, ` +
        `64 callers ${floors.grpc_unary_64_calls_per_s} calls/s; stream ping-pong p50 ${floors.grpc_stream_rtt_p50_ms} ms\n`,
    );
  }
  if (checks.length) {
    out.write(`\ntargets (the performance round, set for 3 nodes${o.nodes !== 3 ? `; this run has ${o.nodes}` : ''}; medians):\n`);
    for (const c of checks) out.write(`  ${c.met === undefined ? '?   ' : c.met ? 'MET ' : 'MISS'}  ${c.target}: ${c.actual}\n`);
  }
  const after = machine(etcdBin);
  out.write(
    `\nrun took ${((Date.now() - started) / 1000).toFixed(0)} s (estimated ${(estimatedMs / 1000).toFixed(0)} s); load before ${before.loadavg.join(' ')}, after ${after.loadavg.join(' ')}\n`,
  );
  if (o.out) {
    const json = {
      date: new Date().toISOString(),
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
      machine: { ...before, loadavg_after: after.loadavg, ps_lockd_or_mocha_lines_after: after.ps_lockd_or_mocha_lines },
      config: {
        nodes: o.nodes,
        ...o.spec,
        reps: o.reps,
        systems: sut.map((s) => s.name),
        lockd_baseline: o.baselineMain,
        counters: o.counters,
        lockd_api: o.unary && o.session ? 'both' : o.session ? 'session' : 'unary',
        keepalive_leases: o.leases,
        tls: o.tls !== undefined,
        failover_trials: o.trials,
        etcd_timeouts: ETCD_TIMEOUTS,
        lockd_equal_flags: LOCKD_EQUAL_FLAGS,
      },
      floors,
      ...heads,
      ratios: rat,
      targets: checks,
      spreads: summaries,
      repetitions: reps,
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
