// The registry of planted bugs for `npm run sim -- --catch-rates`: every bug name, and how to plant it in a run
// (the run options: which layer's bug field, and the schedule that run uses). Each layer keeps its own list of
// names (Raft core: BUGS in cli.ts; lock adapter: LOCK_BUGS in lock-app.ts; storage adapter: DISK_BUGS in
// sim-storage.ts; start path: START_BUGS in voters.ts; driver adapter: SIM_BUGS in sim-node.ts), and every name
// on those lists is in the registry: adding a bug is one line in its layer's list. A bug that needs a particular
// kind of run (membership changes, the lock app) says so with one line in RUNS below.

import type { PlantedBug } from '../../src/raft/types.js';
import { LOCK_BUGS } from './lock-app.js';
import type { SeedOptions } from './pool.js';
import { SIM_BUGS } from './sim-node.js';
import { DISK_BUGS } from './sim-storage.js';
import { START_BUGS } from './voters.js';

export interface PlantedRun {
  readonly bug: string;
  /** Where the bug lives (for the table). */
  readonly layer: string;
  /** The run that plants it (the correct build runs the same options minus the bug). */
  readonly opts: SeedOptions;
}

/** What every catch-rate run uses unless RUNS says otherwise: the swarm schedule on the hash-chain app. */
const BASE: SeedOptions = { schedule: 'swarm' };

/** Runs some bugs need: the run they can break at all (not a hint where the bug is). */
const RUNS: Readonly<Record<string, SeedOptions>> = {
  // Only membership changes can meet it, and only from an even voter count (4: the change right after an election
  // may then have a majority disjoint from the deposed leader's change); the nemesis times partitions to them.
  'conf-change-before-first-commit': { schedule: 'swarm', membership: true, membershipSchedule: 'nemesis', nodes: 4 },
  // Only a one-voter leader gets a read index in the same batch as the entries under it (with peers the index comes
  // a heartbeat round later, after the batch that applies them): the one shape where answering early shows.
  'read-before-apply': { schedule: 'swarm', nodes: 1 },
  // Only a snapshot taken while a change is in the log differs (the effective configuration is the committed one otherwise).
  'snapshot-effective-config': { schedule: 'swarm', membership: true },
};
/** Lock-adapter bugs need the lock app; they run its default schedule (the lock checks model its lease clock). */
const LOCK_RUN: SeedOptions = { app: 'lock' };

export function plantedRuns(raftBugs: readonly PlantedBug[]): PlantedRun[] {
  const run = (bug: string, layer: string, field: SeedOptions, base: SeedOptions = BASE): PlantedRun => ({
    bug,
    layer,
    opts: { ...(RUNS[bug] ?? base), ...field },
  });
  return [
    ...raftBugs.map((b) => run(b, 'raft core', { plantedBug: b })),
    ...SIM_BUGS.map((b) => run(b, 'driver adapter', { simBug: b })),
    ...DISK_BUGS.map((b) => run(b, 'storage adapter', { diskBug: b })),
    ...START_BUGS.map((b) => run(b, 'start path', { startBug: b })),
    ...LOCK_BUGS.map((b) => run(b, 'lock adapter', { lockBug: b }, LOCK_RUN)),
  ];
}

/** The same run without its bug: what the correct build is checked on. */
export function withoutBug(opts: SeedOptions): SeedOptions {
  const { plantedBug: _p, simBug: _s, diskBug: _d, startBug: _t, lockBug: _l, ...rest } = opts;
  return rest;
}
