// The swarm schedule (`--schedule swarm`): on top of the drawn fault mix (faults.ts), each seed switches whole
// fault kinds on or off and draws their rates (swarm testing: a run without some faults reaches states that a
// run with all of them at once never does). The extra kinds: replay of old messages (from many terms back),
// paused nodes (a GC pause: no ticks, no turns, messages pile up in the inbox) while peers move on, a second
// partition overlapping the first, reads at every node that believes it leads (and right after an election),
// and calm windows every few hundred steps in which liveness is checked (bounded time to a stable leader and
// to proposals applied everywhere), then the faults resume.
// It also redraws node settings: CheckQuorum off in a third of the seeds, preVote on or off at even odds, and
// the cluster shape among 1, 3, 4 and 5 voters. Its own PRNG stream (forked last): the default schedule
// draws exactly as before.

import { churnOf, type ClusterShape, type PartitionKind, type Profile } from './faults.js';
import type { Prng } from './prng.js';

export type Schedule = 'default' | 'swarm';
export const SCHEDULES: readonly Schedule[] = ['default', 'swarm'];

export interface SwarmMix {
  /** Per-step chance to deliver again an old message taken from the whole history of the run (most are terms old). */
  readonly replayRate: number;
  /** Per-step chance to pause an up node, and for how many steps. */
  readonly pauseRate: number;
  readonly pauseSteps: readonly [number, number];
  /** Share of pauses in which messages to the node are lost, not queued (its peers' connections to it time out). */
  readonly stalledShare: number;
  /** Chance that a leader whose batch advanced its commit is paused right then (before it could tell anyone). */
  readonly pauseOnCommit: number;
  /** Per-step chance to start a second partition (while none of its own holds), overlapping the schedule's. */
  readonly extraPartitionRate: number;
  readonly extraPartitionSteps: readonly [number, number];
  /** A read goes to every node that believes it leads; and a new leader is read from at once, at this chance. */
  readonly readAllLeaders: boolean;
  readonly readOnElection: number;
  /** Steps between calm windows that check liveness (0: only the final one). */
  readonly healEvery: readonly [number, number] | undefined;
}

// The leader cut off both ways twice as often: with CheckQuorum off it keeps leading (and answering) while the rest elect.
const EXTRA_KINDS: readonly PartitionKind[] = ['minority', 'asymmetric', 'mute-node', 'deaf-leader', 'random-links', 'isolated-leader', 'isolated-leader'];
export const SWARM_EXTRA_KINDS = EXTRA_KINDS;

/** Extra share of runs turned into leader churn (on top of the drawn family's 25%). */
export const CHURN = 0;

/** Shapes the swarm draws (even-sized 4 is where single-server changes and split votes bite). */
const SWARM_SHAPES: readonly ClusterShape[] = [1, 3, 3, 4, 4, 5, 5];

export function drawSwarm(prng: Prng): SwarmMix {
  const on = (p: number) => prng.chance(p);
  return {
    replayRate: on(0.5) ? prng.pick([0.01, 0.05, 0.2]) : 0,
    pauseRate: on(0.7) ? prng.pick([0.002, 0.005, 0.01]) : 0,
    pauseSteps: prng.pick([
      [5, 30],
      [20, 120],
      [50, 300],
    ] as const),
    stalledShare: prng.pick([0, 0.5, 1]),
    pauseOnCommit: on(0.6) ? prng.pick([0.02, 0.1]) : 0,
    extraPartitionRate: on(0.6) ? prng.pick([0.005, 0.02]) : 0,
    extraPartitionSteps: prng.pick([
      [10, 60],
      [30, 200],
    ] as const),
    readAllLeaders: on(0.9),
    readOnElection: prng.pick([0.5, 1]),
    healEvery: on(0.7)
      ? prng.pick([
          [200, 400],
          [300, 800],
        ] as const)
      : undefined,
  };
}

/** The swarm's changes to the drawn profile: node settings and shape redrawn, fault kinds switched off at random. */
export function swarmProfile(drawn: Profile, prng: Prng, fixedNodes: ClusterShape | undefined, membership: boolean): Profile {
  const nodes = prng.pick(SWARM_SHAPES);
  const n = fixedNodes ?? nodes;
  const off = (rate: number) => (prng.chance(0.25) ? 0 : rate);
  // Leader churn (faults.ts) beyond the drawn family's share: tried at 0.5 and 0.25, it cut the catch of
  // read-without-quorum from 38 to 13-18 in 100 seeds (leaders die before anyone reads from them) and barely moved
  // fig. 8 (1-2 in 100), so it is 0; the knob stays to say so.
  const churn = prng.chance(CHURN);
  const p = churn && drawn.family !== 'churn' ? churnOf({ ...drawn, nodes: n }, prng.pick([1, 2, 4])) : drawn;
  // Without preVote, a node left on a stale configuration (an uncommitted change naming other voters) can keep
  // outbidding the real candidates' terms for ever (seed 6 of --membership --schedule swarm, found so); lockd runs
  // preVote on (raft-driver.ts), so membership runs keep it on.
  const preVote = prng.chance(0.5) || membership;
  return {
    ...p,
    nodes: n,
    maxDown: p.maxDown >= p.nodes ? n : Math.max(1, Math.floor((n - 1) / 2)),
    // The disk fails writes too (EIO/ENOSPC: sim-node.ts NodeSettings.writeErrors), at the rate drawn per node.
    node: { ...p.node, checkQuorum: prng.chance(0.5), preVote, writeErrors: true },
    // A wrong --peers on half or four in five of the restarts of a seed that has them (was 0.2 or 0.5): a node
    // started on the wrong voter set breaks safety only once its leader is gone while it runs, so the start
    // check is exercised where it matters more often (a refused start is retried 1-20 steps later).
    misconfigRate: prng.pick([0, 0.5, 0.8]),
    // And on half the restarts of a node with no snapshot yet, in every seed (faults.ts: where --peers decides).
    misconfigFreshRate: 0.5,
    partitionRate: off(p.partitionRate || 0.01),
    crashRate: off(p.crashRate || 0.005),
    tickSkipMax: off(prng.pick([0.05, 0.15, 0.3])),
    tickDoubleMax: off(prng.pick([0.02, 0.05, 0.1])),
    readRate: prng.pick([0.05, 0.1, 0.2]),
  };
}

export function describeSwarm(s: SwarmMix): string {
  return [
    'swarm:',
    `replay ${s.replayRate}`,
    `pause ${s.pauseRate} for ${s.pauseSteps.join('-')} (stalled ${s.stalledShare}, on commit ${s.pauseOnCommit})`,
    `2nd partition ${s.extraPartitionRate}`,
    `reads ${s.readAllLeaders ? 'at every believed leader' : 'at one'}, on election ${s.readOnElection}`,
    `heal every ${s.healEvery ? s.healEvery.join('-') : 'never (final only)'}`,
  ].join(' ');
}
