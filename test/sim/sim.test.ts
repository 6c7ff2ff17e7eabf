// The simulator as part of `npm test`: many seeds clean, exact replay, and proof that the checks can fail
// (planted bugs — in the Raft core, the storage adapter, the start path — are caught by the matching property,
// from random seeds).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'chai';
import type { PlantedBug } from '../../src/raft/types.js';
import type { CheckName } from './checkers.js';
import { runSeeds } from './pool.js';
import { majoritiesCanMiss } from './membership.js';
import { formatViolation, runSim, type SimOptions, type SimReport } from './runner.js';

const SEEDS = 1000;
const STEPS = 2000;
/** A planted bug must be caught within this many seeds (hunted in chunks: most are caught in the first). */
const BUG_SEEDS = 200;
const HUNT_CHUNK = 20;
const root = resolve(import.meta.dirname, '../..');

function sum(reports: SimReport[], f: (r: SimReport) => number): number {
  return reports.reduce((a, r) => a + f(r), 0);
}

/** Run seeds 1, 2, ... in chunks until one reports a violation of `wanted` (at most `seeds`); every report on
 *  the way must name one of `allowed`. Returns the first report of `wanted`. */
async function hunt(
  opts: Omit<SimOptions, 'seed'>,
  wanted: readonly CheckName[],
  allowed: readonly CheckName[] = wanted,
  seeds = BUG_SEEDS,
): Promise<SimReport> {
  for (let start = 1; start <= seeds; start += HUNT_CHUNK) {
    const reports = await runSeeds(start, Math.min(HUNT_CHUNK, seeds + 1 - start), opts);
    const bad = reports.filter((r) => r.violation);
    for (const r of bad) expect(allowed, formatViolation(r)).to.include(r.violation!.check);
    const hit = bad.find((r) => wanted.includes(r.violation!.check));
    if (hit) return hit;
  }
  expect.fail(`no seed in 1..${seeds} reported ${wanted.join(' / ')}`);
}

/** A failing seed replays exactly: same check, same step, same trace. */
function expectReplay(first: SimReport, opts: Omit<SimOptions, 'seed'>): void {
  const again = runSim({ ...opts, seed: first.seed });
  expect(again.violation?.check).to.equal(first.violation!.check);
  expect(again.violation?.step).to.equal(first.violation!.step);
  expect(again.digest).to.equal(first.digest);
}

describe('simulator: Raft safety and liveness under a seeded faulty network', function () {
  this.timeout(170_000);

  it(`${SEEDS} seeds × ${STEPS} steps, 1 to 5 voters: no violation`, async () => {
    const reports = await runSeeds(1, SEEDS, { steps: STEPS });
    expect(reports.map((r) => r.seed)).to.deep.equal(Array.from({ length: SEEDS }, (_, i) => i + 1));
    const bad = reports.filter((r) => r.violation);
    expect(bad.map(formatViolation).join('\n\n'), `${bad.length} seeds violated a check`).to.equal('');

    // The runs really exercised what they claim to.
    for (const [n, share] of [
      [1, 0.1],
      [2, 0.1],
      [3, 0.35],
      [4, 0.1],
      [5, 0.35],
    ]) {
      expect(reports.filter((r) => r.nodes === n).length, `runs of ${n} voters`).to.be.within(SEEDS * share * 0.7, SEEDS * share * 1.3);
    }
    expect(reports.filter((r) => r.profile.startsWith('churn')).length).to.be.greaterThan(SEEDS * 0.15);
    expect(sum(reports, (r) => r.stats.leaderTerms)).to.be.greaterThan(SEEDS * 5);
    expect(sum(reports, (r) => r.stats.crashes)).to.be.greaterThan(SEEDS * 2);
    expect(sum(reports, (r) => r.stats.lostBatches)).to.be.greaterThan(SEEDS / 10);
    // Power cuts struck. The driver writes nothing unsynced (a commit-only hard state is not written
    // at all), so they lose nothing of it; the ignore-sync bug below shows they would catch it.
    expect(sum(reports, (r) => r.stats.powerCuts)).to.be.greaterThan(SEEDS);
    expect(sum(reports, (r) => r.stats.unsyncedLost)).to.equal(0);
    // Restarts with a wrong --peers happened, and the voter check refused every one of them.
    expect(sum(reports, (r) => r.stats.misconfiguredStarts)).to.be.greaterThan(SEEDS);
    expect(sum(reports, (r) => r.stats.refusedStarts)).to.equal(sum(reports, (r) => r.stats.misconfiguredStarts));
    // Reads went to deposed leaders that still believed they led, too.
    expect(sum(reports, (r) => r.stats.readsAskedOfStaleLeaders)).to.be.greaterThan(0);
    expect(sum(reports, (r) => r.stats.partitions)).to.be.greaterThan(SEEDS);
    expect(sum(reports, (r) => r.stats.snapshotsSent)).to.be.greaterThan(SEEDS);
    expect(sum(reports, (r) => r.stats.readsAnswered)).to.be.greaterThan(SEEDS);
    expect(sum(reports, (r) => r.stats.transfers)).to.be.greaterThan(0);
    expect(
      sum(reports, (r) => r.stats.oldTermCommits),
      'leaders committed an old-term entry by counting',
    ).to.equal(0);
    // Every run reached its calm phase and passed the liveness checks.
    expect(reports.every((r) => r.stats.healToLeaderSteps >= 0 && r.stats.proposeToAppliedSteps >= 0)).to.equal(true);
  });

  it('a seed replays exactly: the same trace digest in-process and in worker threads', async () => {
    const a = runSim({ seed: 4242 });
    const b = runSim({ seed: 4242 });
    expect(b.digest).to.equal(a.digest);
    expect(b.stats).to.deep.equal(a.stats);
    expect(runSim({ seed: 4243 }).digest).to.not.equal(a.digest);

    const pooled = await runSeeds(4242, 8, {}, { workers: 2 });
    for (const r of pooled) expect(r.digest, `seed ${r.seed}`).to.equal(runSim({ seed: r.seed }).digest);
  });

  const planted: [PlantedBug, CheckName[]][] = [
    ['grant-two-votes-per-term', ['Election Safety']],
    ['commit-previous-term-by-count', ['Leader Completeness', 'State Machine Safety']],
    // A deposed leader that still believes it leads serves a read without a quorum round.
    ['read-without-quorum', ['Linearizable Read']],
    // A follower holding a snapshot's last entry behind a stale older-term tail acks the tail. Reached where leaders
    // answer a rejection with their snapshot (RaftConfig.snapshotOnReject, drawn per seed; README, simulator).
    ['snapshot-fast-forward-overclaim', ['Ack Matches Leader']],
  ];
  for (const [bug, checks] of planted) {
    it(`planted bug ${bug}: reported as ${checks.join(' / ')} within ${BUG_SEEDS} seeds, and replayed exactly`, async () => {
      const opts = { steps: STEPS, plantedBug: bug };
      expectReplay(await hunt(opts, checks), opts);
    });
  }

  it(`planted storage bug ignore-sync (every write unsynced): reported as Durability within ${BUG_SEEDS} seeds`, async () => {
    const opts = { steps: STEPS, diskBug: 'ignore-sync' } as const;
    expectReplay(await hunt(opts, ['Durability']), opts);
  });

  it(`planted start bug skip-voter-check (a wrong --peers is not refused): two leaders in one term within ${BUG_SEEDS} seeds`, async () => {
    // A node that counts majorities of another voter set breaks whatever it breaks first; Election Safety must be among.
    const safety: CheckName[] = [
      'Election Safety',
      'Leader Completeness',
      'State Machine Safety',
      'Log Matching',
      'Ack Matches Leader',
      'Linearizable Read',
      'Commit Monotonic',
      'Liveness',
    ];
    const opts = { steps: STEPS, startBug: 'skip-voter-check' } as const;
    const hit = await hunt(opts, ['Election Safety'], safety);
    expect(hit.violation!.detail).to.match(/were both leader of term \d+/);
    expectReplay(hit, opts);
  });

  it('membership changes (spares added as learners, promoted, members removed) under the same faults: 200 seeds clean, lock app too', async () => {
    for (const app of ['hash', 'lock'] as const) {
      const reports = await runSeeds(1, 100, { steps: STEPS, membership: true, app });
      const bad = reports.filter((r) => r.violation);
      expect(bad.map(formatViolation).join('\n\n'), `${app}: ${bad.length} seeds violated a check`).to.equal('');
      const m = (k: keyof NonNullable<SimReport['membership']>) => sum(reports, (r) => r.membership![k]);
      expect(m('committed'), `${app}: changes committed`).to.be.greaterThan(300);
      expect(m('retired'), `${app}: removed nodes retired`).to.be.greaterThan(100);
      expect(m('refused'), `${app}: changes refused (one at a time, none before the leader's first commit)`).to.be.greaterThan(100);
      expect(reports.every((r) => r.stats.healToLeaderSteps >= 0 && r.stats.proposeToAppliedSteps >= 0)).to.equal(true);
    }
  });

  it('membership schedule nemesis (a leader cut off right after a change, the partition shifted to the next leader): 60 seeds clean', async () => {
    const reports = await runSeeds(1, 60, { steps: STEPS, membership: true, membershipSchedule: 'nemesis' });
    const bad = reports.filter((r) => r.violation);
    expect(bad.map(formatViolation).join('\n\n'), `${bad.length} seeds violated a check`).to.equal('');
    expect(
      sum(reports, (r) => r.nemesis!.cuts),
      'changing leaders cut off',
    ).to.be.greaterThan(150);
    // (Fewer where a run starts with one voter: no second leader to shift to until a learner is promoted.)
    expect(
      sum(reports, (r) => r.nemesis!.shifts),
      'partitions shifted to a new leader asking for a change at once',
    ).to.be.greaterThan(100);
    expect(reports.every((r) => r.stats.healToLeaderSteps >= 0 && r.stats.proposeToAppliedSteps >= 0)).to.equal(true);
  });

  // Hunted under the nemesis schedule (conf-nemesis.ts), which sets the scene on purpose: 70 seeds in 1..100 with
  // clusters of 1 to 5 voters, the first at 1, since it keeps four voters (s14; it was 16 in 1..300, first at 4).
  // Random membership changes alone reach it 2 times in 1..1500 (first at 1278; it was 3 in 1500, first 519,
  // before the driver wrote the hard state of a batch committing a config entry).
  const CONF_BUG_SEEDS = 100;
  it(`planted bug conf-change-before-first-commit (membership runs, nemesis schedule): two leaders in a term or a committed entry lost, within ${CONF_BUG_SEEDS} seeds, and replayed exactly`, async () => {
    // Ongaro's single-server-change bug: a deposed leader's change and a newer leader's change have disjoint
    // majorities. It breaks whatever it breaks first (a log that can no longer be repaired stalls liveness too).
    const safety: CheckName[] = [
      'Election Safety',
      'Leader Completeness',
      'State Machine Safety',
      'Log Matching',
      'Ack Matches Leader',
      'Linearizable Read',
      'Commit Monotonic',
      'Liveness',
      'Core Invariant',
    ];
    const opts = { steps: STEPS, membership: true, membershipSchedule: 'nemesis', plantedBug: 'conf-change-before-first-commit' } as const;
    const hit = await hunt(opts, ['Election Safety', 'Leader Completeness', 'State Machine Safety'], safety, CONF_BUG_SEEDS);
    expectReplay(hit, opts);
  });

  it('the configuration overlap check: single-server steps always overlap, two voters at once may not', () => {
    const s = (...ids: string[]) => new Set(ids);
    expect(majoritiesCanMiss(s('a', 'b', 'c'), s('a', 'b', 'c', 'd'))).to.equal(false);
    expect(majoritiesCanMiss(s('a', 'b', 'c', 'd'), s('a', 'b', 'c'))).to.equal(false);
    expect(majoritiesCanMiss(s('a', 'b', 'c'), s('a', 'b', 'c', 'd', 'e'))).to.equal(true); // {a,b} and {c,d,e}
    expect(majoritiesCanMiss(s('a', 'b', 'c'), s('a', 'd', 'e'))).to.equal(true);
    expect(majoritiesCanMiss(s('a', 'b', 'c', 'd'), s('a', 'b', 'c', 'e'))).to.equal(false); // 3 of 4 and 3 of 4 among 5 ids always meet
    expect(majoritiesCanMiss(s('a', 'b', 'c', 'd'), s('a', 'b', 'e', 'f'))).to.equal(true); // {a,c,d} and {b,e,f}
  });

  it('npm run sim: one summary line, exit status, replay of a failing seed', () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'test/sim/cli.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const ok = cli('--seeds', '12', '--steps', '300', '--workers', '1');
    expect(ok.status, ok.stderr).to.equal(0);
    expect(ok.stdout.trimEnd().split('\n').at(-1)).to.equal('sim: 12 seeds, 0 violations');

    const bad = cli('--seed', '1', '--bug', 'grant-two-votes-per-term');
    expect(bad.status).to.equal(1);
    expect(bad.stdout).to.match(/VIOLATION seed 1 step \d+: Election Safety/);
    expect(bad.stdout).to.contain('replay: npm run sim -- --seed 1');
    expect(bad.stdout.trimEnd().split('\n').at(-1)).to.equal('sim: 1 seeds, 1 violations');

    const usage = cli('--seeds', 'x');
    expect(usage.status).to.equal(2);
    expect(usage.stderr).to.contain('--seeds needs an integer');
  });
});
