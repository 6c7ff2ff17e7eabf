// One seeded fault run: a 5-node cluster behind per-link proxies, fenced and control workload
// clients, the nemesis for `timeSec`, then a calm period, final reads, and the checkers.
// Every process and socket it starts is stopped in `finally`, and by `emergencyStop` on exit.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessCluster } from '../support/process-cluster.js';
import { Prng } from '../sim/prng.js';
import { Connections } from '../../src/client/connections.js';
import { loadClientTls } from '../../src/client/tls.js';
import { TestPki } from '../support/test-pki.js';
import { clockSince, type Op } from './history.js';
import { ProxyMesh } from './network.js';
import { ClientPool, type ClientHandle } from './client-pool.js';
import { Nemesis, type FaultKind } from './nemesis.js';
import { LazyFs, lazyFsUnavailable } from './lazyfs/lazyfs.js';
import { PlainStore } from './plain-store.js';
import { decode, type GuardedValue } from './guarded-value.js';
import { guardKey, type AdversaryCall, type ClientConfig } from './workload-config.js';
import type { FinalValue } from './fencing-check.js';
import { checkRun, saveFinals } from './check-run.js';
import { scanNodeLogs } from './node-logs.js';
import { countOps, summarize, type FaultReport } from './report.js';
import { retryCall, unaryCall } from './lockd-calls.js';
import type { FenceReadRequest } from '../../src/proto/gen/lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse__Output } from '../../src/proto/gen/lockd/v1/FenceReadResponse.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface RunOptions {
  readonly timeSec: number;
  readonly seed: number;
  readonly out?: string;
  readonly nodes?: 3 | 5;
  readonly fencedClients?: number;
  readonly controlClients?: number;
  /** Adversary clients (adversary-client.ts) poking at the fenced locks; default 1, 0 for none. */
  readonly adversaries?: number;
  /** Recipe clients (recipe-client.ts: semaphore, read-write, lock-delay, election); default 3, 0 for none. */
  readonly recipeClients?: number;
  /** What the adversary calls besides Inspect (default: all of ADVERSARY_CALLS). */
  readonly adversaryCalls?: readonly AdversaryCall[];
  readonly ttlMs?: number;
  readonly tickMs?: number;
  readonly electionTicks?: number;
  /** Keep the run directory even when the run passes. */
  readonly keep?: boolean;
  readonly kinds?: readonly FaultKind[];
  /** Clients keep a lease's Acquire/Release on one node (ClientConfig.sticky). */
  readonly sticky?: boolean;
  /** Run the cluster with mutual TLS and client-certificate auth (certificates made for the run). */
  readonly tls?: boolean;
  /**
   * The control build: every node runs with --unsafe-no-fsync (nothing synced), so power cuts must
   * lose acknowledged state; the report's noFsyncControl says how much. Needs power-cut in kinds.
   */
  readonly noFsyncControl?: boolean;
  /** Budget of the linearizability search (ms). */
  readonly checkBudgetMs?: number;
  readonly log?: (msg: string) => void;
}

const FENCED_LOCKS = ['a', 'b'];
/** A workload client's attempt timeout (ms); the nemesis sizes its delays around it. */
const ATTEMPT_MS = 1500;
const CONTROL_LOCKS = ['ctl'];

/** Everything started by runs in this process, for a synchronous last-resort stop on exit. */
const live = new Set<{ cluster?: ProcessCluster; pool?: ClientPool }>();

export function emergencyStop(): void {
  for (const r of live) {
    r.pool?.killAllNow();
    for (const n of r.cluster?.nodes ?? []) {
      try {
        n.proc?.kill('SIGCONT');
        n.proc?.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  LazyFs.unmountAllNow();
}

export async function runFaults(o: RunOptions): Promise<FaultReport> {
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  if (o.noFsyncControl && !o.kinds?.includes('power-cut')) throw new Error('the no-fsync control needs power-cut in the kinds');
  const size = o.nodes ?? 5;
  const ttlMs = o.ttlMs ?? 1500;
  const tickMs = o.tickMs ?? 25;
  const electionTicks = o.electionTicks ?? 20;
  const electionTimeoutMs = tickMs * electionTicks;
  const rng = new Prng(o.seed);
  const startedAt = new Date();
  const originNs = process.hrtime.bigint();
  const now = clockSince(originNs);
  const runDir = join(ROOT, '.faults', `run-${o.seed}-${startedAt.toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  const problems: string[] = [];
  const handles: { cluster?: ProcessCluster; pool?: ClientPool } = {};
  live.add(handles);

  let cluster: ProcessCluster | undefined;
  let mesh: ProxyMesh | undefined;
  let store: PlainStore | undefined;
  let pool: ClientPool | undefined;
  let nemesis: Nemesis | undefined;
  // Power cuts: each node's data dir on a lazyfs mount of its own (its "disk"), outside the cluster's
  // dir (which stop() deletes) so that it is unmounted first.
  const powerCuts = (o.kinds ?? []).includes('power-cut');
  const disks = new Map<string, LazyFs>();
  let diskDir: string | undefined;
  const finals = new Map<string, FinalValue>();
  const plainFinals = new Map<string, FinalValue>();
  let clientSeq = 0;
  try {
    let pki: TestPki | undefined;
    let clientTls: ClientConfig['tls'];
    if (o.tls) {
      mkdirSync(join(runDir, 'tls'));
      pki = TestPki.create(join(runDir, 'tls'));
      const workload = pki.client('workload');
      clientTls = { cacert: pki.caCert, cert: workload.cert, key: workload.key };
    }
    cluster = handles.cluster = await ProcessCluster.start({
      size,
      clusterId: `faults-${o.seed}`,
      startNodes: false,
      ...(pki ? { tls: pki, clientCertAuth: true } : {}),
      // Each node tells clients (Status, lockd-leader) its client link, so clients stay behind it.
      nodeFlags: (id) => ({
        '--peers': mesh!.peersFlagFor(id),
        '--advertise-client': mesh!.clientAddress(id),
        '--tick-ms': String(tickMs),
        '--election-ticks': String(electionTicks),
        ...(disks.has(id) ? { '--data-dir': join(disks.get(id)!.mountpoint, 'data') } : {}),
      }),
      ...(o.noFsyncControl ? { extraArgs: ['--unsafe-no-fsync'] } : {}),
    });
    if (powerCuts) {
      const why = lazyFsUnavailable();
      if (why) throw new Error(`power-cut needs lazyfs (test/faults/lazyfs): ${why}`);
      diskDir = mkdtempSync(join(tmpdir(), 'lockd-lazyfs-'));
      for (const n of cluster.nodes) disks.set(n.id, await LazyFs.mount(join(diskDir, n.id)));
      log(
        `faults: every node's data dir on lazyfs (unsynced writes lost on a power cut) under ${diskDir}${o.noFsyncControl ? '; CONTROL BUILD: nodes run with --unsafe-no-fsync' : ''}`,
      );
    }
    mesh = await ProxyMesh.start(new Map(cluster.nodes.map((n) => [n.id, n.peerAddress])), new Map(cluster.nodes.map((n) => [n.id, n.address])));
    for (const n of cluster.nodes) cluster.startNode(n.id);
    const leader = await cluster.waitForLeader(undefined, 30_000);
    log(`faults: cluster of ${size} up (leader ${leader}), data in ${cluster.baseDir}, run dir ${runDir}`);
    store = await PlainStore.start();
    pool = handles.pool = new ClientPool(join(runDir, 'clients.log'));
    // Clients dial the nodes through their client links; the runner's own final reads do not.
    const endpoints = cluster.nodes.map((n) => mesh!.clientAddress(n.id));
    const clientConfig = (mode: ClientConfig['mode'], admin = false): ClientConfig => {
      const id = `${{ fence: 'f', plain: 'p', adversary: 'x', recipe: 'r' }[mode]}${++clientSeq}`;
      return {
        id,
        mode,
        endpoints,
        ...(clientTls ? { tls: clientTls } : {}),
        // Recipe clients use the RECIPE names (workload-config.ts), which the adversary leaves alone.
        locks: mode === 'plain' ? CONTROL_LOCKS : mode === 'fence' ? FENCED_LOCKS : mode === 'recipe' ? [] : [...FENCED_LOCKS, ...CONTROL_LOCKS],
        plainStore: store!.address,
        ttlMs,
        historyPath: join(runDir, `history-${id}.jsonl`),
        originNs: originNs.toString(),
        seed: rng.u32(),
        workMs: [20, 80],
        writesPerHold: [1, 3],
        opBudgetMs: 4000,
        attemptMs: ATTEMPT_MS,
        acquireWaitMs: 4000,
        waitShare: 0.6,
        sticky: o.sticky ?? false,
        adversaryCalls: o.adversaryCalls,
        ...(admin ? { admin } : {}),
      };
    };
    for (let i = 0; i < (o.fencedClients ?? 4); i++) pool.start(clientConfig('fence'));
    for (let i = 0; i < (o.controlClients ?? 2); i++) pool.start(clientConfig('plain'));
    for (let i = 0; i < (o.adversaries ?? 1); i++) pool.start(clientConfig('adversary'));

    nemesis = new Nemesis({
      cluster,
      mesh,
      pool,
      rng: rng.fork('nemesis'),
      now,
      until: now() + o.timeSec * 1000,
      electionTimeoutMs,
      ttlMs,
      attemptMs: ATTEMPT_MS,
      replaceClient: (killed: ClientHandle) => pool!.start(clientConfig(killed.config.mode, killed.config.admin)),
      log,
      kinds: o.kinds,
      ...(powerCuts ? { disks } : {}),
    });
    // Recipe clients draw their seeds after the nemesis forked its PRNG: the nemesis's stream and the
    // first clients' seeds stay what they were before recipe clients existed (a client pause or kill
    // may now pick a recipe client, so later faults can still differ).
    for (let i = 0; i < (o.recipeClients ?? 3); i++) pool.start(clientConfig('recipe', i === 0));
    await nemesis.run();
    log('faults: nemesis done, everything healed; a calm period, then the clients stop');
    await new Promise((r) => setTimeout(r, 3000));
    await pool.stopAll(20_000);

    // Final values, once a leader is back (every node restarted and the network healed).
    await cluster.waitForLeader(undefined, 60_000).catch((e: Error) => problems.push(`no leader after the run: ${e.message}`));
    const conns = new Connections(loadClientTls(clientTls));
    try {
      for (const lock of FENCED_LOCKS) {
        const key = guardKey(lock);
        const real = cluster.nodes.map((n) => n.address);
        const r = await retryCall(
          (i, t) => unaryCall<FenceReadRequest, FenceReadResponse__Output>((q, opt, cb) => conns.get(real[i]).fence.Read(q, opt, cb), { key }, t),
          { budgetMs: 30_000, attemptMs: 2000, firstEndpoint: 0, endpoints: real.length, final: () => false },
        );
        if (r.last.kind !== 'ok') problems.push(`final read of ${key} failed: ${r.last.code} ${r.last.message}`);
        else finals.set(key, { value: decode(r.last.value.value), token: r.last.value.fencingToken });
      }
    } finally {
      conns.close();
    }
    for (const lock of CONTROL_LOCKS) {
      const key = guardKey(lock);
      const v: GuardedValue = decode(store.values.get(key) ?? Buffer.alloc(0));
      plainFinals.set(key, { value: v, token: undefined });
    }
  } catch (e) {
    problems.push(`run failed: ${(e as Error)?.stack ?? String(e)}`);
    nemesis?.abort();
  } finally {
    nemesis?.abort();
    pool?.killAllNow();
    if (cluster) {
      for (const n of cluster.nodes) if (existsSync(n.logFile)) copyFileSync(n.logFile, join(runDir, `${n.id}.log`));
      await cluster.stop(false).catch((e: Error) => problems.push(`stopping the cluster: ${e.message}`));
    }
    for (const d of disks.values()) await d.unmount().catch((e: Error) => problems.push(`unmounting ${d.mountpoint}: ${e.message}`));
    await mesh?.close();
    await store?.close();
    live.delete(handles);
  }

  // Checks.
  saveFinals(runDir, { fence: Object.fromEntries(finals), plain: Object.fromEntries(plainFinals) });
  const {
    ops,
    fenced,
    control,
    exclusion,
    lin,
    flood,
    recipes,
    problems: found,
  } = checkRun(runDir, { fence: Object.fromEntries(finals), plain: Object.fromEntries(plainFinals) }, o.checkBudgetMs ?? Math.max(60_000, o.timeSec * 500));
  problems.push(...found);
  writeFileSync(join(runDir, 'ops.json'), JSON.stringify(ops.map(serializableOp)));
  const nodeLogs = scanNodeLogs(new Map((cluster?.nodes ?? []).map((n) => [n.id, join(runDir, `${n.id}.log`)])));
  if (nodeLogs.fatal || nodeLogs.stray.length)
    problems.push(`node logs: ${nodeLogs.fatal} fatal entries, ${nodeLogs.stray.length} non-log lines (crash?): ${nodeLogs.stray.slice(0, 2).join(' | ')}`);
  const overlaps = (locks: string[]) => locks.reduce((s, l) => s + (exclusion.overlaps[l] ?? 0), 0);
  const faultsByKind: Record<string, number> = {};
  for (const f of nemesis?.faults ?? []) faultsByKind[f.kind] = (faultsByKind[f.kind] ?? 0) + 1;

  const report: FaultReport = {
    seed: o.seed,
    timeSec: o.timeSec,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(now()),
    config: {
      nodes: size,
      ttlMs,
      tickMs,
      electionTicks,
      fencedClients: o.fencedClients ?? 4,
      controlClients: o.controlClients ?? 2,
      adversaries: o.adversaries ?? 1,
      recipeClients: o.recipeClients ?? 3,
      adversaryCalls: o.adversaryCalls ?? 'all',
      sticky: o.sticky ?? false,
      fencedLocks: FENCED_LOCKS,
      controlLocks: CONTROL_LOCKS,
    },
    ops: countOps(ops),
    faults: { byKind: faultsByKind, list: nemesis?.faults ?? [] },
    fenced: {
      writes: fenced.writes,
      violations: fenced.violations,
      lostAcknowledgedWrites: fenced.lostAcknowledged.length,
      staleWindowLosses: fenced.staleWindowLosses.length,
      tokenRegressions: fenced.tokenRegressions,
      chainLength: fenced.chainLength,
      overlappingHolders: overlaps(FENCED_LOCKS),
    },
    exclusion: { grants: exclusion.grants, violations: exclusion.violations },
    recipes,
    adversary: { ops: countOps(ops, (p) => p.startsWith('x')), flood },
    nodeLogs,
    linearizable: lin.verdict === 'ok' ? true : lin.verdict === 'illegal' ? false : 'unknown',
    linearizability: lin,
    control: {
      writes: control.writes,
      lostAcknowledgedWrites: control.lostAcknowledged.length + control.staleWindowLosses.length,
      tokenRegressions: control.tokenRegressions,
      overlappingHolders: overlaps(CONTROL_LOCKS),
      anomaly: control.lostAcknowledged.length + control.staleWindowLosses.length + control.tokenRegressions > 0,
      examples: [...control.lostAcknowledged, ...control.staleWindowLosses].slice(0, 5),
    },
    ...(powerCuts ? { powerCuts: nemesis?.powerCuts } : {}),
    problems,
    verdict: problems.length ? 'fail' : 'pass',
  };
  if (o.noFsyncControl) report.noFsyncControl = noFsyncVerdict(report);
  if (report.verdict === 'fail' || o.keep) report.keptAt = runDir;
  else rmSync(runDir, { recursive: true, force: true });
  // The disks' durable contents go with a kept run; the mounts are gone by now.
  if (diskDir && report.keptAt) report.disksAt = diskDir;
  else if (diskDir) rmSync(diskDir, { recursive: true, force: true });
  if (report.keptAt) writeFileSync(join(runDir, 'report.json'), JSON.stringify(report, null, 2));
  if (o.out) writeFileSync(o.out, JSON.stringify(report, null, 2));
  log(summarize(report));
  return report;
}

function serializableOp(op: Op): unknown {
  return { ...op, complete: op.complete === Infinity ? null : op.complete };
}

/**
 * The no-fsync control's verdict: acknowledged state lost means some checker found an acknowledged
 * effect missing or contradicted — a fenced write acknowledged and not in the final value, a token
 * or write order broken, a grant given twice within its lease, a history no order explains, a recipe
 * promise broken. Problems that are not findings (a final read that failed) do not count.
 */
function noFsyncVerdict(r: FaultReport): NonNullable<FaultReport['noFsyncControl']> {
  const found = {
    lostAcknowledgedWrites: r.fenced.lostAcknowledgedWrites,
    fencingViolations: r.fenced.violations.length,
    tokenRegressions: r.fenced.tokenRegressions,
    exclusionViolations: r.exclusion.violations.length,
    notLinearizable: r.linearizable === false,
    recipeViolations: r.recipes.violations.length,
  };
  const lost =
    found.lostAcknowledgedWrites + found.fencingViolations + found.tokenRegressions + found.exclusionViolations + found.recipeViolations > 0 ||
    found.notLinearizable;
  return { ...found, lostAcknowledgedState: lost };
}
