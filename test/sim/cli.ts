// npm run sim -- --seed S [--steps M] [--nodes 1-5] [--bug B] [--app hash|lock] [--lock-bug L]   replay one seed, print its trace digest
// npm run sim -- --seeds N [--start K] [--steps M] [--nodes 1-5] [--bug B] [--app hash|lock] [--lock-bug L] [--workers W]
//                                                                   run N seeds; last line: "sim: N seeds, V violations"
// npm run sim -- --catch-rates [--seeds N] [--start K] [--json] [--workers W] [--only BUG,BUG] [--correct-only]
//                                                                   every planted bug (planted.ts): seeds caught of N, first seed, median step; correct build
// Planted bugs: --bug (Raft core), --sim-bug (driver adapter), --lock-bug (one replica's lock adapter), --disk-bug (storage adapter), --start-bug (start path).
// npm run sim -- --app node (--seed S | --seeds N | --catch-rates) [--bug B]: the whole-node world (node/node-cli.ts, test/sim/README.md).
import type { PlantedBug } from '../../src/raft/types.js';
import { LOCK_BUGS, type LockBug } from './lock-app.js';
import { MEMBERSHIP_SCHEDULES, type MembershipSchedule } from './conf-nemesis.js';
import { CLUSTER_SHAPES, type ClusterShape } from './faults.js';
import type { LockStats } from './lock-checkers.js';
import type { MembershipStats } from './membership.js';
import { defaultWorkers, runSeeds, type SeedOptions } from './pool.js';
import { DEFAULT_STEPS, SIM_APPS, formatViolation, runSim, type SimApp, type SimReport } from './runner.js';
import { DISK_BUGS, type DiskBug } from './sim-storage.js';
import { nodeMain, parseNodeArgs } from './node/node-cli.js';
import { START_BUGS, type StartBug } from './voters.js';
import { SIM_BUGS, type SimBug } from './sim-node.js';
import { SCHEDULES, type Schedule } from './swarm.js';
import { plantedRuns } from './planted.js';
import { catchRates, catchRatesJson, formatCatchRates } from './catch-rates.js';

export const BUGS: readonly PlantedBug[] = [
  'grant-two-votes-per-term',
  'commit-previous-term-by-count',
  'read-without-quorum',
  'snapshot-fast-forward-overclaim',
  'conf-change-before-first-commit',
];
/** `--bug` also takes the storage layer's bugs (adapters of the simulated disk: sim-storage.ts, sim-load.ts), as `--disk-bug`. */
const BUG_FLAG_NAMES: readonly string[] = [...BUGS, ...DISK_BUGS.filter((b) => b !== 'ignore-sync')];
const USAGE =
  `usage: npm run sim -- (--seed S | --seeds N [--start K]) [--steps M] [--nodes 1-5] [--bug ${BUG_FLAG_NAMES.join('|')}] ` +
  `[--membership [--membership-schedule ${MEMBERSHIP_SCHEDULES.join('|')}]] [--app hash|lock] [--lock-bug ${LOCK_BUGS.join('|')}] [--disk-bug ${DISK_BUGS.join('|')}] [--start-bug ${START_BUGS.join('|')}] ` +
  `[--schedule ${SCHEDULES.join('|')}] [--sim-bug ${SIM_BUGS.join('|')}] [--workers W] [--no-liveness] [--trace-lines L]\n` +
  `       npm run sim -- --catch-rates [--seeds N] [--start K] [--json] [--workers W] [--only BUG,BUG] [--correct-only]`;

interface Args {
  seed?: number;
  seeds?: number;
  start: number;
  opts: SeedOptions;
  workers: number;
  catchRates: boolean;
  json: boolean;
  /** --catch-rates --only a,b: just these planted bugs (and the correct build on their runs). */
  only?: string[];
  /** --catch-rates --correct-only: the correct build on every run kind, no planted bug. */
  correctOnly: boolean;
}

function parse(argv: string[]): Args {
  const args: Args = { start: 1, opts: {}, workers: defaultWorkers(), catchRates: false, json: false, correctOnly: false };
  const opts: { -readonly [K in keyof SeedOptions]: SeedOptions[K] } = { steps: DEFAULT_STEPS };
  const int = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}, got ${v ?? 'nothing'}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const v = argv[i + 1];
    switch (flag) {
      case '--seed':
        args.seed = int(flag, v, 0);
        i++;
        break;
      case '--seeds':
        args.seeds = int(flag, v, 1);
        i++;
        break;
      case '--start':
        args.start = int(flag, v, 0);
        i++;
        break;
      case '--steps':
        opts.steps = int(flag, v, 1);
        i++;
        break;
      case '--workers':
        args.workers = int(flag, v, 1);
        i++;
        break;
      case '--trace-lines':
        opts.traceLines = int(flag, v, 1);
        i++;
        break;
      case '--no-liveness':
        opts.liveness = false;
        break;
      case '--catch-rates':
        args.catchRates = true;
        break;
      case '--json':
        args.json = true;
        break;
      case '--correct-only':
        args.correctOnly = true;
        break;
      case '--only':
        args.only = (v ?? '').split(',').filter(Boolean);
        i++;
        break;
      case '--schedule':
        if (!SCHEDULES.includes(v as Schedule)) throw new Error(`--schedule must be one of ${SCHEDULES.join(', ')}, got ${v ?? 'nothing'}`);
        opts.schedule = v as Schedule;
        i++;
        break;
      case '--sim-bug':
        if (!SIM_BUGS.includes(v as SimBug)) throw new Error(`--sim-bug must be one of ${SIM_BUGS.join(', ')}, got ${v ?? 'nothing'}`);
        opts.simBug = v as SimBug;
        i++;
        break;
      case '--membership':
        opts.membership = true;
        break;
      case '--membership-schedule':
        if (!MEMBERSHIP_SCHEDULES.includes(v as MembershipSchedule)) {
          throw new Error(`--membership-schedule must be one of ${MEMBERSHIP_SCHEDULES.join(', ')}, got ${v ?? 'nothing'}`);
        }
        opts.membershipSchedule = v as MembershipSchedule;
        i++;
        break;
      case '--nodes': {
        const n = int(flag, v, 1);
        if (!CLUSTER_SHAPES.includes(n as ClusterShape)) throw new Error(`--nodes must be one of ${CLUSTER_SHAPES.join(', ')}, got ${n}`);
        opts.nodes = n as ClusterShape;
        i++;
        break;
      }
      case '--bug':
        if (!BUG_FLAG_NAMES.includes(v ?? '')) throw new Error(`--bug must be one of ${BUG_FLAG_NAMES.join(', ')}, got ${v ?? 'nothing'}`);
        if (DISK_BUGS.includes(v as DiskBug)) opts.diskBug = v as DiskBug;
        else opts.plantedBug = v as PlantedBug;
        i++;
        break;
      case '--app':
        if (!SIM_APPS.includes(v as SimApp)) throw new Error(`--app must be one of ${SIM_APPS.join(', ')}, got ${v ?? 'nothing'}`);
        opts.app = v as SimApp;
        i++;
        break;
      case '--disk-bug':
        if (!DISK_BUGS.includes(v as DiskBug)) throw new Error(`--disk-bug must be one of ${DISK_BUGS.join(', ')}, got ${v ?? 'nothing'}`);
        opts.diskBug = v as DiskBug;
        i++;
        break;
      case '--start-bug':
        if (!START_BUGS.includes(v as StartBug)) throw new Error(`--start-bug must be one of ${START_BUGS.join(', ')}, got ${v ?? 'nothing'}`);
        opts.startBug = v as StartBug;
        i++;
        break;
      case '--lock-bug':
        if (!LOCK_BUGS.includes(v as LockBug)) throw new Error(`--lock-bug must be one of ${LOCK_BUGS.join(', ')}, got ${v ?? 'nothing'}`);
        opts.lockBug = v as LockBug;
        i++;
        break;
      case '-h':
      case '--help':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (args.catchRates) {
    if (args.seed !== undefined) throw new Error('--catch-rates takes --seeds N, not --seed');
    const fixed = (['plantedBug', 'simBug', 'diskBug', 'startBug', 'lockBug', 'nodes', 'app', 'membership', 'schedule'] as const).filter(
      (k) => opts[k] !== undefined,
    );
    if (fixed.length > 0) throw new Error(`--catch-rates picks each bug's run itself (test/sim/planted.ts); drop ${fixed.join(', ')}`);
    args.seeds ??= 100;
  } else if ((args.seed === undefined) === (args.seeds === undefined)) throw new Error('give exactly one of --seed or --seeds');
  if (args.json && !args.catchRates) throw new Error('--json goes with --catch-rates');
  if (args.only && !args.catchRates) throw new Error('--only goes with --catch-rates');
  if (args.correctOnly && !args.catchRates) throw new Error('--correct-only goes with --catch-rates');
  if (opts.lockBug && opts.app !== 'lock') throw new Error('--lock-bug needs --app lock');
  if (opts.membershipSchedule && !opts.membership) throw new Error('--membership-schedule needs --membership');
  args.opts = opts;
  return args;
}

function replay(seed: number, opts: SeedOptions): number {
  const t0 = performance.now();
  const r = runSim({ ...opts, seed, traceLines: opts.traceLines ?? 200 });
  const ms = performance.now() - t0;
  console.log(`seed ${seed}: ${r.profile}`);
  console.log(`  stats: ${JSON.stringify(r.stats)}`);
  if (r.lock) console.log(`  lock: ${JSON.stringify(r.lock)}`);
  console.log(`  trace digest ${r.digest}, ${ms.toFixed(0)} ms`);
  if (r.violation) console.log(formatViolation(r));
  console.log(`sim: 1 seeds, ${r.violation ? 1 : 0} violations`);
  return r.violation ? 1 : 0;
}

async function many(args: Args, count: number): Promise<number> {
  const t0 = performance.now();
  const every = count >= 2000 ? 500 : count >= 400 ? 100 : 0;
  let violations = 0;
  const reports = await runSeeds(args.start, count, args.opts, {
    workers: args.workers,
    onReport: (r: SimReport, done: number) => {
      if (r.violation) {
        violations++;
        console.error(`sim: seed ${r.seed} violates ${r.violation.check} at step ${r.violation.step}`);
      }
      if (every && done % every === 0) {
        console.error(`sim: ${done}/${count} seeds, ${violations} violations, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    },
  });
  const bad = reports.filter((r) => r.violation);
  for (const r of bad.slice(0, 3)) console.log(formatViolation(r));
  for (const r of bad.slice(3)) console.log(`VIOLATION seed ${r.seed} step ${r.violation!.step}: ${r.violation!.check}: ${r.violation!.detail}`);
  console.log(summarize(reports, performance.now() - t0, args.workers));
  console.log(`sim: ${count} seeds, ${bad.length} violations`);
  return bad.length > 0 ? 1 : 0;
}

function summarize(reports: SimReport[], ms: number, workers: number): string {
  const ok = reports.filter((r) => !r.violation);
  const sum = (f: (r: SimReport) => number) => ok.reduce((a, r) => a + f(r), 0);
  const max = (f: (r: SimReport) => number) => ok.reduce((a, r) => Math.max(a, f(r)), 0);
  const shapes = CLUSTER_SHAPES.map((n) => `${reports.filter((r) => r.nodes === n).length} of ${n}`).join(', ');
  const lock = (k: keyof LockStats) => sum((r) => r.lock?.[k] ?? 0);
  const lockLine = ok.some((r) => r.lock)
    ? [
        `lock app: ${lock('entries')} entries (${lock('ticks')} ticks, ${lock('grants')} grants), ${lock('acquired')} acquired, ` +
          `${lock('handoffs')} hand-offs to waiters (${lock('expiryHandoffs')} on expiry), ${lock('tryHeld')} try-locks refused, ${lock('queued')} queued, ` +
          `${lock('releases')} releases (${lock('staleReleases')} stale), ${lock('leaseExpiries')} lease expiries (${lock('lockExpiries')} locks), ` +
          `${lock('revokes')} revokes, ${lock('waiterRemovals')} waiters removed, ${lock('waitCancels')} waits cancelled, ` +
          `${lock('fenceWrites')} fence writes (${lock('staleFenceRejected')} stale rejected), ${lock('duplicates')} request-id replays, ` +
          `${lock('digestChecks')} replica digests compared; recipes: ${lock('semaphoreGrants')} semaphore and ${lock('sharedGrants')} shared grants beside ` +
          `another holder, ${lock('downgrades')} downgrades, ${lock('setPermits')} SetPermits, ${lock('agreementRefusals')} permit disagreements refused, ` +
          `${lock('delaysStarted')} lock-delays started (${lock('delayGrants')} grants at their end)`,
      ]
    : [];
  const change = (k: keyof MembershipStats) => sum((r) => r.membership?.[k] ?? 0);
  const membershipLine = ok.some((r) => r.membership)
    ? [
        `membership: ${change('proposed')} changes appended (${change('refused')} refused), ${change('committed')} committed, ${change('retired')} removed nodes retired` +
          (ok.some((r) => r.nemesis)
            ? `; nemesis: ${sum((r) => r.nemesis?.cuts ?? 0)} changing leaders cut off, ${sum((r) => r.nemesis?.shifts ?? 0)} partitions shifted to the next leader`
            : ''),
      ]
    : [];
  return [
    `time ${(ms / 1000).toFixed(1)} s on ${workers} worker(s); runs by voters at start: ${shapes}`,
    `totals: ${sum((r) => r.stats.leaderTerms)} leader terms, ${sum((r) => r.stats.crashes)} crashes ` +
      `(${sum((r) => r.stats.lostBatches)} with writes in flight, ${sum((r) => r.stats.lostWrites)} writes lost), ` +
      `${sum((r) => r.stats.powerCuts)} power cuts (${sum((r) => r.stats.unsyncedLost)} unsynced writes lost), ` +
      `${sum((r) => r.stats.misconfiguredStarts)} starts with a wrong --peers (${sum((r) => r.stats.refusedStarts)} refused), ` +
      `disk faults ${['torn-write', 'bit-flip', 'write-error', 'start-refused', 'damage-unseen'].map((k) => `${sum((r) => r.stats.diskFaults[k] ?? 0)} ${k}`).join(', ')}, ` +
      `${sum((r) => r.stats.partitions)} partitions, ` +
      `${sum((r) => r.stats.sent)} messages (${sum((r) => r.stats.dropped)} lost), ${sum((r) => r.stats.proposals)} proposals accepted, ` +
      `${sum((r) => r.stats.committed)} entries committed, ${sum((r) => r.stats.appSnapshots)} app snapshots, ` +
      `${sum((r) => r.stats.snapshotsSent)} InstallSnapshots, ${sum((r) => r.stats.readsAnswered)}/${sum((r) => r.stats.readsAsked)} reads answered ` +
      `(${sum((r) => r.stats.readsAskedOfStaleLeaders)} asked of a deposed leader), ` +
      `${sum((r) => r.stats.transfers)} transfers`,
    ...lockLine,
    ...membershipLine,
    `liveness: heal→stable leader max ${max((r) => r.stats.healToLeaderSteps)} steps, propose→applied everywhere max ${max((r) => r.stats.proposeToAppliedSteps)} steps`,
  ].join('\n');
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[argv.indexOf('--app') + 1] === 'node' && argv.includes('--app')) {
    try {
      return await nodeMain(parseNodeArgs(argv));
    } catch (e) {
      console.error(`sim: ${(e as Error).message}`);
      return 2;
    }
  }
  let args: Args;
  try {
    args = parse(process.argv.slice(2));
  } catch (e) {
    console.error(`sim: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.catchRates) return rates(args);
  return args.seed !== undefined ? replay(args.seed, args.opts) : many(args, args.seeds!);
}

/** Exit 0 when the correct build is clean (catch rates are a figure to read, not a pass/fail here). */
async function rates(args: Args): Promise<number> {
  const t0 = performance.now();
  const all = plantedRuns(BUGS);
  const unknown = (args.only ?? []).filter((b) => !all.some((r) => r.bug === b));
  if (unknown.length > 0) {
    console.error(`sim: --only names no planted bug: ${unknown.join(', ')} (known: ${all.map((r) => r.bug).join(', ')})`);
    return 2;
  }
  const runs = all.filter((r) => !args.only || args.only.includes(r.bug)).map((r) => ({ ...r, opts: { ...r.opts, steps: args.opts.steps } }));
  const c = await catchRates(runs, args.seeds!, args.start, args.workers, (l) => console.error(l), args.correctOnly);
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  if (args.json) console.log(catchRatesJson(c));
  else console.log(`${formatCatchRates(c)}\ntime ${secs} s on ${args.workers} worker(s)`);
  if (args.json) console.error(`catch-rates: ${secs} s on ${args.workers} worker(s)`);
  return c.correct.violations > 0 ? 1 : 0;
}

process.exitCode = await main();
