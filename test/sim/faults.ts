// The fault mix of one run (drawn from its seed) and the schedule that applies it step by step:
// network weather, partitions of every shape, crashes (between steps or inside a driver batch), power cuts
// (one node or the whole cluster: unsynced writes lost), restarts (some with a wrong --peers).

import type { NodeId, PlantedBug } from '../../src/raft/types.js';
import { majoritiesCanMiss } from './membership.js';
import { HEALTHY, type NetworkConditions } from './network.js';
import type { Prng } from './prng.js';
import type { CrashPoint, NodeSettings, SimNode } from './sim-node.js';
import type { DiskBug } from './sim-storage.js';
import type { StartBug } from './voters.js';

export type PartitionKind =
  | 'minority' // a random minority cut off from the rest (both ways)
  | 'isolated-leader' // the leader alone
  | 'leader-in-minority' // the leader plus others, still a minority
  | 'ring' // everyone still sees a majority, no two nodes the same one
  | 'asymmetric' // A hears B, B does not hear A
  | 'deaf-leader' // the leader hears nobody, everyone hears it
  | 'mute-node' // a node hears everyone, nobody hears it
  | 'random-links'; // each directed link lost with some probability

const PARTITION_KINDS: readonly PartitionKind[] = [
  'minority',
  'isolated-leader',
  'leader-in-minority',
  'ring',
  'asymmetric',
  'deaf-leader',
  'mute-node',
  'random-links',
];

/** Voters a cluster starts with. One voter campaigns, wins and replicates to its learners in one batch; even sizes have
 *  majorities that a single-server change can split. */
export type ClusterShape = 1 | 2 | 3 | 4 | 5;
export const CLUSTER_SHAPES: readonly ClusterShape[] = [1, 2, 3, 4, 5];

/** Share of runs per shape, in the order drawn: a seed that drew 3 or 5 before other shapes existed (one float, 3 below
 *  0.5) keeps its shape when its float is below 0.35 or from 0.65 on. */
const SHAPE_SHARES: readonly (readonly [ClusterShape, number])[] = [
  [3, 0.35],
  [1, 0.1],
  [2, 0.1],
  [4, 0.1],
  [5, 0.35],
];

function drawShape(prng: Prng): ClusterShape {
  const x = prng.float();
  let below = 0;
  for (const [n, share] of SHAPE_SHARES) if (x < (below += share)) return n;
  return 5;
}

export interface Profile {
  readonly family: 'mixed' | 'churn';
  readonly nodes: ClusterShape;
  readonly node: Omit<NodeSettings, 'tickSkip' | 'tickDouble'>;
  readonly tickSkipMax: number;
  readonly tickDoubleMax: number;
  /** The network conditions the run switches between. */
  readonly weather: readonly NetworkConditions[];
  readonly weatherChange: number;
  /** Per-step chance to start a partition while none is active; how long one holds. */
  readonly partitionRate: number;
  readonly partitionSteps: readonly [number, number];
  readonly partitionKinds: readonly PartitionKind[];
  /** Per-step chance to crash a node; share of crashes aimed at the leader; share struck inside a driver cycle. */
  readonly crashRate: number;
  readonly leaderCrashShare: number;
  readonly midCycleShare: number;
  readonly maxDown: number;
  readonly downSteps: readonly [number, number];
  /** Share of between-step crashes that are power cuts (the node's unsynced writes are lost, a random tail of them). */
  readonly powerCutShare: number;
  /** Per-step chance that the whole cluster loses power at once (only when the mix lets every node be down). */
  readonly clusterPowerCutRate: number;
  /** Chance that a restart names another voter set in --peers than the data dir was made with. */
  readonly misconfigRate: number;
  /** The same for a restart of a node with no snapshot yet, where --peers decides its voters (drawn apart: FaultSchedule). */
  readonly misconfigFreshRate: number;
  /** Client behaviour. */
  readonly proposeRate: number;
  /** Chance that a leader crashes right after persisting a proposal, before sending it (Raft fig. 8 setups). */
  readonly proposeCrashRate: number;
  /** Chance that a newly elected leader crashes within its first few driver cycles (elections are the fragile time). */
  readonly newLeaderCrashRate: number;
  /** Chance that a leader crashes right after persisting a commit advance, before telling anyone. */
  readonly commitCrashRate: number;
  readonly readRate: number;
  readonly transferRate: number;
  readonly campaignRate: number;
}

/** Share of runs drawn from the leader-churn family. */
const CHURN_SHARE = 0.25;

/**
 * Draw the fault mix of one run. Two families:
 *  - "mixed": every knob varied independently, so that across seeds every combination gets tried;
 *  - "churn": leaders keep dying or getting cut off right after doing local work (appending a proposal,
 *    winning an election, advancing the commit index), entries travel one per message, and a whole
 *    cluster may be down at once. That is what leaves divergent uncommitted tails of different terms
 *    on different nodes — the setting of Raft fig. 8, which random faults alone reach only rarely.
 */
export function drawProfile(prng: Prng, nodes: ClusterShape | undefined, plantedBug?: PlantedBug, diskBug?: DiskBug, startBug?: StartBug): Profile {
  const family: Profile['family'] = prng.chance(CHURN_SHARE) ? 'churn' : 'mixed';
  const drawnNodes = drawShape(prng); // drawn even when fixed, so --nodes does not shift later draws
  const n = nodes ?? drawnNodes;
  const weather: NetworkConditions[] = [HEALTHY];
  const kinds = prng.range(1, 3);
  for (let k = 0; k < kinds; k++) weather.push(drawWeather(prng));
  const base: Profile = {
    family,
    nodes: n,
    node: {
      electionTicks: prng.pick([8, 10, 12]),
      heartbeatTicks: prng.pick([1, 2, 3]),
      preVote: prng.chance(0.8),
      checkQuorum: prng.chance(0.8),
      maxSizePerMsg: prng.pick([undefined, 1, 1, 8, 64]), // 1 byte ⇒ one entry per App: entries travel separately
      maxInflightMsgs: prng.pick([undefined, 1, 4, 16]),
      plantedBug,
      snapshotEvery: prng.pick([1, 2, 4, 10, 30, 100]),
      compactKeep: prng.pick([0, 0, 3, 20]),
      diskDelayMax: 0, // drawn below
      snapshotOnReject: false, // drawn below
    },
    tickSkipMax: prng.pick([0, 0.05, 0.15]),
    tickDoubleMax: prng.pick([0, 0.02, 0.05]),
    weather,
    weatherChange: prng.pick([0.002, 0.01]),
    partitionRate: prng.pick([0, 0.005, 0.01, 0.03]),
    partitionSteps: prng.pick([
      [10, 60],
      [20, 200],
      [50, 400],
    ] as const),
    partitionKinds: prng.chance(0.3) ? [prng.pick(PARTITION_KINDS)] : PARTITION_KINDS,
    crashRate: prng.pick([0, 0.002, 0.005, 0.01]),
    leaderCrashShare: prng.pick([0.3, 0.6, 0.9]),
    midCycleShare: prng.pick([0.3, 0.6]),
    // Mostly a majority stays up (at least one node may go down, even where that is all of them).
    maxDown: prng.chance(0.8) ? Math.max(1, Math.floor((n - 1) / 2)) : n,
    downSteps: prng.pick([
      [1, 20],
      [5, 100],
      [20, 300],
    ] as const),
    proposeRate: prng.pick([0.02, 0.1, 0.3]),
    proposeCrashRate: prng.pick([0, 0.01, 0.05]),
    newLeaderCrashRate: prng.pick([0, 0.05, 0.2]),
    commitCrashRate: prng.pick([0, 0.01, 0.05]),
    readRate: prng.pick([0, 0.02, 0.05]),
    transferRate: prng.pick([0, 0.001, 0.005]),
    campaignRate: prng.pick([0, 0.001]),
    // Drawn after the rest, so that the knobs above keep their values per seed.
    powerCutShare: prng.pick([0, 0.3, 0.7]),
    clusterPowerCutRate: prng.pick([0, 0.002, 0.005]), // used only where every node may be down at once
    misconfigRate: prng.pick([0, 0, 0.2, 0.5]),
    misconfigFreshRate: 0,
  };
  const diskDelayMax = prng.pick([0, 0, 1, 3]);
  // Leaders of three mixed runs in ten (and of every churn run, below) answer a lagging follower's rejection with their
  // snapshot: the only way a Snap reaches a follower that holds its last entry behind a stale older-term tail (our
  // default policy probes back instead, and keeps most runs).
  const snapshotOnReject = prng.chance(0.3);
  const mixed: Profile = { ...base, node: { ...base.node, diskDelayMax, snapshotOnReject, diskBug, startBug } };
  if (family === 'mixed') return mixed;
  // Snapshots every entry or few: a leader's snapshot then sits right at its commit, past what followers heard.
  return churnOf(mixed, prng.pick([1, 2, 4]));
}

/** The churn family's settings over a profile (drawProfile; the swarm schedule turns mixed runs into churn ones too). */
export function churnOf(mixed: Profile, snapshotEvery: number): Profile {
  const n = mixed.nodes;
  return {
    ...mixed,
    family: 'churn',
    node: { ...mixed.node, maxSizePerMsg: 1, snapshotEvery, snapshotOnReject: true },
    partitionRate: 0.03,
    partitionSteps: [10, 60],
    partitionKinds: ['isolated-leader', 'leader-in-minority', 'deaf-leader'],
    maxDown: n,
    downSteps: [1, 30],
    proposeRate: 0.3,
    proposeCrashRate: 0.4,
    newLeaderCrashRate: 0.5,
    commitCrashRate: 0.3,
  };
}

function drawWeather(prng: Prng): NetworkConditions {
  const maxDelay = prng.pick([1, 2, 4, 8]);
  return {
    dropRate: prng.pick([0, 0.01, 0.05, 0.2, 0.4]),
    dupRate: prng.pick([0, 0.02, 0.1]),
    minDelay: 1,
    maxDelay,
    longDelayRate: prng.pick([0, 0.01, 0.05]),
    longDelayMax: maxDelay + prng.pick([10, 40]),
    reorder: prng.chance(0.7),
  };
}

export function describeProfile(p: Profile): string {
  const s = p.node;
  return [
    `${p.family} mix`,
    `${p.nodes} nodes`,
    `election ${s.electionTicks}/heartbeat ${s.heartbeatTicks}`,
    `preVote ${s.preVote} checkQuorum ${s.checkQuorum}`,
    `msg ${s.maxSizePerMsg ?? 'default'}B inflight ${s.maxInflightMsgs ?? 'default'}`,
    `snapshot every ${s.snapshotEvery} keep ${s.compactKeep}${s.snapshotOnReject ? ' (sent on reject)' : ''}`,
    `drop ${p.weather.map((w) => w.dropRate).join('/')}`,
    `partitions ${p.partitionRate}`,
    `crashes ${p.crashRate} (power cuts ${p.powerCutShare}${p.maxDown === p.nodes && p.clusterPowerCutRate > 0 ? `, cluster ${p.clusterPowerCutRate}` : ''})`,
    `disk delay ≤${s.diskDelayMax}${s.writeErrors ? ' (write errors)' : ''}`,
    p.misconfigRate > 0 ? `wrong --peers ${p.misconfigRate}` : '',
    `propose ${p.proposeRate}`,
    s.plantedBug ? `PLANTED ${s.plantedBug}` : '',
    s.diskBug ? `PLANTED disk bug ${s.diskBug}` : '',
    s.startBug ? `PLANTED start bug ${s.startBug}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Every link between sides a and b, both ways. */
export function cutBetween(a: readonly NodeId[], b: readonly NodeId[]): [NodeId, NodeId][] {
  return a.flatMap((x) =>
    b.flatMap((y): [NodeId, NodeId][] => [
      [x, y],
      [y, x],
    ]),
  );
}

/** Directed links to cut for a partition of the given kind. */
export function partitionLinks(kind: PartitionKind, ids: readonly NodeId[], leader: NodeId | undefined, prng: Prng): [NodeId, NodeId][] {
  const n = ids.length;
  if (n < 2) return []; // one node: no link to cut
  const minority = Math.floor((n - 1) / 2) || 1;
  const chief = leader ?? prng.pick(ids);
  const both = cutBetween;
  switch (kind) {
    case 'minority': {
      const order = prng.shuffle([...ids]);
      const size = prng.range(1, minority);
      return both(order.slice(0, size), order.slice(size));
    }
    case 'isolated-leader':
      return both(
        [chief],
        ids.filter((x) => x !== chief),
      );
    case 'leader-in-minority': {
      const others = prng.shuffle(ids.filter((x) => x !== chief));
      const size = prng.range(0, minority - 1);
      const side = [chief, ...others.slice(0, size)];
      return both(side, others.slice(size));
    }
    case 'ring': {
      // Nodes on a circle; each keeps only its neighbours (n=5: itself + 2 = a majority; n=4: the opposite node cut;
      // n=3: one link cut; n=2: nothing).
      const order = prng.shuffle([...ids]);
      const cuts: [NodeId, NodeId][] = [];
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const d = Math.min((i - j + n) % n, (j - i + n) % n);
          if (n === 3 ? (i === 0 && j === 2) || (i === 2 && j === 0) : d > 1) cuts.push([order[i], order[j]]);
        }
      }
      return cuts;
    }
    case 'asymmetric': {
      const [a, b] = prng.shuffle([...ids]);
      return [[a, b]]; // b no longer hears a; a still hears b
    }
    case 'deaf-leader':
      return ids.filter((x) => x !== chief).map((x): [NodeId, NodeId] => [x, chief]);
    case 'mute-node': {
      const x = prng.pick(ids);
      return ids.filter((y) => y !== x).map((y): [NodeId, NodeId] => [x, y]);
    }
    case 'random-links': {
      const cuts: [NodeId, NodeId][] = [];
      for (const a of ids) for (const b of ids) if (a !== b && prng.chance(0.3)) cuts.push([a, b]);
      return cuts;
    }
  }
}

/** What the schedule may do to the world. */
export interface World {
  readonly nodes: readonly SimNode[];
  leader(): SimNode | undefined;
  setCuts(kind: string, cuts: [NodeId, NodeId][]): void;
  setWeather(w: NetworkConditions): void;
  crash(node: SimNode, powerCut: boolean): void;
  /** Start a down node, with --peers naming `named` (default: the right voters); false if the start was refused. */
  restart(node: SimNode, named?: readonly NodeId[]): boolean;
}

export class FaultSchedule {
  private partitionEnds = 0;
  /** At most one crash is armed at a time: node, where in the cycle, and after how many more cycles. */
  private armed: { node: NodeId; point: CrashPoint; cycles: number } | undefined;
  private calm = false;
  partitions = 0;
  /** The draws of misconfiguredFresh starts: split off, so that a profile without them draws as before. */
  private readonly fresh: Prng;

  constructor(
    private readonly profile: Profile,
    private readonly prng: Prng,
    private readonly world: World,
  ) {
    this.fresh = prng.split('wrong-peers-fresh');
  }

  /** Faults due at `step`, applied before the step's deliveries. */
  beforeStep(step: number): void {
    const p = this.profile;
    const w = this.world;
    for (const node of w.nodes) {
      if (node.up || node.restartAt > step) continue;
      // (A node that joined with no --peers voters, or the only one, has no wrong set to be given: membership.ts.)
      const wrongable = !this.calm && node.peers.length > 1;
      let named = !this.calm && this.prng.chance(p.misconfigRate) && wrongable ? this.wrongPeers(node, this.prng) : undefined;
      // Until a node's first snapshot, --peers is what decides its voters (a snapshot's configuration is in effect
      // after it): the start check is load-bearing there, so such restarts draw a wrong set of their own.
      const fresh = !named && wrongable && node.disk.cached.snapshotIndex === 0 && this.fresh.chance(p.misconfigFreshRate);
      if (fresh) named = this.wrongPeers(node, this.fresh);
      // A refused start (exit 3): the operator fixes --peers and starts it again a little later.
      if (!w.restart(node, named)) node.restartAt = step + (fresh ? this.fresh : this.prng).range(1, 20);
    }
    if (this.calm) return;

    if (this.prng.chance(p.weatherChange)) w.setWeather(this.prng.pick(p.weather));

    if (this.partitionEnds > 0 && step >= this.partitionEnds) {
      this.partitionEnds = 0;
      w.setCuts('heal', []);
    } else if (this.partitionEnds === 0 && this.prng.chance(p.partitionRate)) {
      const kind = this.prng.pick(p.partitionKinds);
      this.partitionEnds = step + this.prng.range(p.partitionSteps[0], p.partitionSteps[1]);
      this.partitions++;
      w.setCuts(
        kind,
        partitionLinks(
          kind,
          w.nodes.map((x) => x.id),
          w.leader()?.id,
          this.prng,
        ),
      );
    }

    const up = w.nodes.filter((x) => x.up);
    if (this.prng.chance(p.crashRate) && w.nodes.length - up.length < p.maxDown && up.length > 0) {
      const leader = w.leader();
      const victim = leader && this.prng.chance(p.leaderCrashShare) ? leader : this.prng.pick(up);
      if (this.prng.chance(p.midCycleShare)) {
        this.arm(victim, this.prng.pick(['before-persist', 'after-persist', 'after-send'] as const), step);
      } else {
        victim.restartAt = step + this.prng.range(p.downSteps[0], p.downSteps[1]);
        w.crash(victim, this.prng.chance(p.powerCutShare));
      }
    }
    if (p.maxDown === w.nodes.length && this.prng.chance(p.clusterPowerCutRate)) {
      // The whole cluster loses power: what it acknowledged must survive on synced disks alone.
      for (const node of w.nodes) {
        if (!node.up) continue;
        node.restartAt = step + this.prng.range(p.downSteps[0], p.downSteps[1]);
        w.crash(node, true);
      }
    }
  }

  /**
   * A --peers naming another voter set than the cluster's: a proper subset that still names the node itself, and
   * (where the cluster has 3 voters or more) one small enough that a majority of it and a majority of the cluster
   * can be disjoint, so that the node believing it and the rest can each elect a leader in one term. (Any subset
   * was drawn before: for 3 or 4 voters most could not split a term, and they broke nothing the check must stop.)
   */
  private wrongPeers(node: SimNode, prng: Prng): NodeId[] {
    const others = prng.shuffle(node.peers.filter((x) => x !== node.id));
    const cluster = new Set(node.peers);
    let most = others.length - 1;
    while (most > 0 && !majoritiesCanMiss(new Set([node.id, ...others.slice(0, most)]), cluster)) most--;
    return [node.id, ...others.slice(0, prng.range(0, most))];
  }

  /** Make `node` crash at `point` of its driver cycle `cycles` from now (0 = the current or next one). */
  arm(node: SimNode, point: CrashPoint, step: number, cycles = 0): void {
    if (this.calm || this.armed) return;
    const down = this.world.nodes.filter((x) => !x.up).length;
    if (down >= this.profile.maxDown) return;
    node.restartAt = step + this.prng.range(this.profile.downSteps[0], this.profile.downSteps[1]);
    this.armed = { node: node.id, point, cycles };
  }

  /** Replace any partition by these cuts now, held `steps` steps (the membership nemesis, conf-nemesis.ts); false once calm. */
  impose(kind: string, cuts: [NodeId, NodeId][], step: number, steps: number): boolean {
    if (this.calm) return false;
    this.partitionEnds = step + steps;
    this.partitions++;
    this.world.setCuts(kind, cuts);
    return true;
  }

  /** A node just became leader (its first Ready as leader): maybe crash it soon. */
  newLeader(node: SimNode, step: number): void {
    if (!this.prng.chance(this.profile.newLeaderCrashRate)) return;
    this.arm(node, this.prng.pick(['before-persist', 'after-persist', 'after-send'] as const), step, this.prng.range(0, 3));
  }

  /** A leader's batch advances its commit index: maybe crash once it is durable, before it is sent. */
  leaderCommitted(node: SimNode, step: number): void {
    if (this.prng.chance(this.profile.commitCrashRate)) this.arm(node, 'after-persist', step);
  }

  /** Consume the crash armed for this node's cycle, if it is due. */
  crashPoint(node: SimNode): CrashPoint | undefined {
    const a = this.armed;
    if (!a || a.node !== node.id) return undefined;
    if (a.cycles-- > 0) return undefined;
    this.armed = undefined;
    return a.point;
  }

  /** After a calm window (swarm schedule): the faults go on. */
  resume(): void {
    this.calm = false;
    for (const node of this.world.nodes) node.resumeFaults();
  }

  /** Final phase (or a calm window): heal the network, restart everyone, no more faults. */
  becomeCalm(step: number): void {
    this.calm = true;
    this.armed = undefined;
    this.partitionEnds = 0;
    this.world.setCuts('heal', []);
    this.world.setWeather(HEALTHY);
    for (const node of this.world.nodes) {
      node.disarm(); // a crash drawn for a batch whose write is still in flight
      if (!node.up) {
        node.restartAt = step;
        this.world.restart(node);
      }
    }
  }
}
