// The whole-node world (test/sim/node, README "The whole-node world"): simulated lockd nodes
// running the real driver, lease clock and lock API on simulated time, simulated clients calling
// them. A CI-sized slice: a few seeds of the correct build are clean and do the things the checks
// are about (grants, stale writes refused, waits, snapshot installs, Observe streams), a seed
// replays exactly, and each planted bug of node/bugs.ts is caught (at the first seed that caught
// it in the measured catch rates: replay is exact, so this is that very run).
import { expect } from 'chai';
import { NODE_BUGS, type NodeBug } from './node/bugs.js';
import { runNodeSeed, type NodeRunReport } from './node/run.js';

const CLEAN_SEEDS = [1, 2, 3, 4, 5, 6];
/** First seed that caught each bug (npm run sim -- --app node --catch-rates; docs/testing.md §2). */
const FIRST_CAUGHT: Record<NodeBug, number> = {
  'snapshot-install-no-events': 1,
  'wait-not-settled': 5,
  'lease-clock-wall-time': 1,
  'forwarder-drops-request-id': 1,
  'shared-token-release': 1,
};

const show = (r: NodeRunReport) =>
  r.violations
    .slice(0, 3)
    .map((v) => `seed ${r.seed}: ${v.kind} at ${v.at} ms: ${v.message}`)
    .join('\n');

describe('simulator, whole node: lockd nodes and clients on simulated time', function () {
  this.timeout(60_000);

  it(`seeds ${CLEAN_SEEDS.join(', ')}: no violation, and grants, waits, stale writes, snapshot installs and Observe events happened`, async () => {
    const reports: NodeRunReport[] = [];
    for (const seed of CLEAN_SEEDS) reports.push(await runNodeSeed({ seed }));
    expect(reports.map(show).filter(Boolean).join('\n')).to.equal('');
    const sum = (k: string) => reports.reduce((n, r) => n + (r.stats[k] ?? 0), 0);
    expect(sum('acquired'), 'Acquires answered acquired').to.be.greaterThan(100);
    expect(sum('waits'), 'waiting Acquires').to.be.greaterThan(50);
    expect(sum('staleWrites'), 'writes by stale actors').to.be.greaterThan(10);
    expect(sum('staleWrites') - sum('staleWritesAccepted'), 'stale writes refused').to.be.greaterThan(0);
    expect(sum('snapshotInstalls'), 'snapshot installs').to.be.greaterThan(0);
    expect(sum('observedEvents'), 'Observe events delivered').to.be.greaterThan(50);
    expect(sum('leaseLosses'), 'leases that ended under their holders').to.be.greaterThan(0);
  });

  it('a seed replays exactly (same digest, same stats)', async () => {
    const a = await runNodeSeed({ seed: 7 });
    const b = await runNodeSeed({ seed: 7 });
    expect(b.digest).to.equal(a.digest);
    expect(b.stats).to.deep.equal(a.stats);
  });

  for (const bug of NODE_BUGS) {
    it(`planted bug ${bug} is caught (seed ${FIRST_CAUGHT[bug]})`, async () => {
      const r = await runNodeSeed({ seed: FIRST_CAUGHT[bug], bug });
      expect(r.violations.length, `${bug} went unnoticed in seed ${r.seed}`).to.be.greaterThan(0);
    });
  }
});
