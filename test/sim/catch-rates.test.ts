// A CI-sized slice of `npm run sim -- --catch-rates`: the swarm schedule clean on the correct build, a few planted
// bugs caught on a handful of seeds, every registered bug runnable, and the --json shape. The full figure (100
// seeds, every bug) is in docs/testing.md §2.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { catchRates } from './catch-rates.js';
import { plantedRuns, withoutBug } from './planted.js';
import { runSeeds } from './pool.js';
import { formatViolation } from './runner.js';

const root = resolve(import.meta.dirname, '../..');
const RAFT_BUGS = [
  'grant-two-votes-per-term',
  'commit-previous-term-by-count',
  'read-without-quorum',
  'snapshot-fast-forward-overclaim',
  'conf-change-before-first-commit',
] as const;

describe('simulator: swarm schedule and catch rates', function () {
  this.timeout(120_000);

  it('the swarm schedule: 50 seeds clean on the correct build, with replays, pauses, second partitions, calm windows and the fig. 8 nemesis', async () => {
    const reports = await runSeeds(1, 50, { schedule: 'swarm' }, { workers: 1 });
    const bad = reports.filter((r) => r.violation);
    expect(bad.map(formatViolation).join('\n\n'), `${bad.length} seeds violated a check`).to.equal('');
    const sum = (f: (r: (typeof reports)[number]) => number) => reports.reduce((a, r) => a + f(r), 0);
    expect(
      sum((r) => r.stats.replays),
      'old messages replayed',
    ).to.be.greaterThan(100);
    expect(
      sum((r) => r.stats.pauses),
      'nodes paused',
    ).to.be.greaterThan(20);
    expect(
      sum((r) => r.stats.heals),
      'calm windows with liveness checked during the run',
    ).to.be.greaterThan(50);
    expect(
      sum((r) => r.stats.fig8Cuts),
      'leaders cut off by the fig. 8 nemesis (fig8-nemesis.ts)',
    ).to.be.greaterThan(50);
    expect(new Set(reports.map((r) => r.nodes))).to.deep.equal(new Set([1, 3, 4, 5]));
    expect(reports.filter((r) => r.profile.includes('checkQuorum false')).length, 'CheckQuorum off').to.be.greaterThan(5);
    expect(reports.filter((r) => r.profile.includes('preVote false')).length, 'preVote off').to.be.greaterThan(5);
  });

  it("planted bugs of three layers (core, driver adapter, storage) caught in seeds 1..12; the registry has every layer's bugs", async () => {
    const all = plantedRuns(RAFT_BUGS);
    for (const name of ['read-before-apply', 'snapshot-effective-config', 'ignore-sync', 'skip-voter-check', 'release-any-token', ...RAFT_BUGS]) {
      expect(
        all.map((r) => r.bug),
        name,
      ).to.include(name);
    }
    const some = all.filter((r) => ['grant-two-votes-per-term', 'snapshot-effective-config', 'read-before-apply', 'ignore-sync'].includes(r.bug));
    const c = await catchRates(some, 12);
    for (const b of c.bugs) {
      expect(b.caught, `${b.bug} caught in seeds 1..12`).to.be.greaterThan(0);
      expect(b.firstSeed).to.be.a('number');
    }
    expect(c.correct.violations, JSON.stringify(c.correct.failing)).to.equal(0);
    expect(withoutBug({ schedule: 'swarm', simBug: 'read-before-apply' })).to.deep.equal({ schedule: 'swarm' });
  });

  // The worlds that set up a split configuration (conf-nemesis.ts: four voters kept, the shift to a disjoint majority,
  // removed nodes running on until told) and a start that counts another voter set (faults.ts: wrong sets that can
  // split a term, drawn at restarts of nodes with no snapshot yet). Before them: 0 and 4 of seeds 1..12.
  it('membership and start-path bugs caught in at least 5 of seeds 1..12, the correct build clean on the same runs', async () => {
    const some = plantedRuns(RAFT_BUGS).filter((r) => ['conf-change-before-first-commit', 'skip-voter-check'].includes(r.bug));
    const c = await catchRates(some, 12);
    for (const b of c.bugs) expect(b.caught, `${b.bug} caught in seeds 1..12`).to.be.at.least(5);
    expect(c.correct.violations, JSON.stringify(c.correct.failing)).to.equal(0);
  });

  it('npm run sim -- --catch-rates --json: exactly one JSON object on stdout', () => {
    // Two seeds keep it short; the shape is what is checked.
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'test/sim/cli.ts', '--catch-rates', '--seeds', '2', '--json', '--workers', '1', '--steps', '300'],
      { cwd: root, encoding: 'utf8', timeout: 100_000 },
    );
    const out = JSON.parse(r.stdout) as { seeds: number; bugs: { bug: string; caught: number; firstSeed: number | null }[]; correct: { violations: number } };
    expect(Object.keys(out)).to.deep.equal(['seeds', 'bugs', 'correct']);
    expect(out.seeds).to.equal(2);
    expect(out.bugs.length).to.be.greaterThan(10);
    for (const b of out.bugs) {
      expect(Object.keys(b)).to.deep.equal(['bug', 'caught', 'firstSeed']);
      expect(b.firstSeed === null || Number.isInteger(b.firstSeed)).to.equal(true);
    }
    expect(r.status).to.equal(out.correct.violations > 0 ? 1 : 0);
  });

  it('--catch-rates --correct-only runs the correct build on every run kind and no planted bug', async () => {
    const all = plantedRuns(RAFT_BUGS);
    const c = await catchRates(all, 2, 1, 1, undefined, true);
    expect(c.bugs).to.deep.equal([]);
    expect(c.correct.runs).to.equal(new Set(all.map((r) => JSON.stringify(withoutBug(r.opts)))).size);
    expect(c.correct.violations).to.equal(0);
  });
});
