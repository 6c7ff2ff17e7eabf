// One simulated run: a seed → a cluster, a fault mix and a client workload, stepped in virtual time with the
// safety checks after every step, then a calm final phase that checks liveness. Deterministic: the seed decides
// everything, so a failing seed replays exactly (same trace digest).
// Two apps: the hash chain alone (default), or with the real lock state machine on top (app 'lock': lock-app.ts,
// driven by lock-workload.ts, checked by lock-checkers.ts).

import { InvariantError, type Entry, type Message, type NodeId, type PlantedBug, type Ready, type Snapshot } from '../../src/raft/types.js';
import { STATE_MACHINE, encodeCommand, type Command } from '../../src/lockd/state-machine/index.js';
import { describeApp, textData, type AppState } from './app-state.js';
import { Checker, Violation, fail, type CheckName } from './checkers.js';
import { LockReplica, describeCommand, type LockBug } from './lock-app.js';
import { LockChecker, type LockStats } from './lock-checkers.js';
import { LockWorkload, describeLockMix, drawLockMix, type LockDriver, type Proposal } from './lock-workload.js';
import { FaultSchedule, cutBetween, describeProfile, drawProfile, partitionLinks, type ClusterShape, type Profile, type World } from './faults.js';
import { Network, type NetworkConditions } from './network.js';
import { Prng } from './prng.js';
import { SimNode, type CrashKind, type CrashPoint, type DriverHooks, type SimBug } from './sim-node.js';
import { describeSwarm, drawSwarm, swarmProfile, SWARM_EXTRA_KINDS, type Schedule, type SwarmMix } from './swarm.js';
import { decodeConfigEntry } from '../../src/raft/membership.js';
import type { DiskBug } from './sim-storage.js';
import type { StartBug } from './voters.js';
import { ConfNemesis, NEMESIS_SPARES, type MembershipSchedule, type NemesisWorld } from './conf-nemesis.js';
import { LeaderFlap, describeFlap, drawFlap, type FlapMix } from './leader-flap.js';
import { Fig8Nemesis, describeFig8, drawFig8 } from './fig8-nemesis.js';
import { Membership, SPARES, type MembershipStats, type MembershipWorld } from './membership.js';
import { Trace } from './trace.js';

export type MixOverride = Partial<Omit<Profile, 'node'>> & { readonly node?: Partial<Profile['node']> };

export interface SimOptions {
  readonly seed: number;
  /** Steps of the faulty phase (the calm liveness phase comes after). */
  readonly steps?: number;
  readonly nodes?: ClusterShape;
  readonly plantedBug?: PlantedBug;
  /** Override parts of the drawn fault mix (experiments and targeted tests). */
  readonly mix?: MixOverride;
  /** Run the final liveness phase (default true). */
  readonly liveness?: boolean;
  /** Trace lines to include in a violation report. */
  readonly traceLines?: number;
  /** The replicated app: the hash chain alone (default), or also the lock state machine with its workload. */
  readonly app?: SimApp;
  /** Lock app only: a bug planted into one replica's adapter (lock-app.ts), to show the lock checks catch it. */
  readonly lockBug?: LockBug;
  /** A bug planted into every node's storage adapter (sim-storage.ts) or start path (voters.ts). */
  readonly diskBug?: DiskBug;
  readonly startBug?: StartBug;
  /** Membership changes at random (membership.ts): spare nodes added as learners, promoted, members removed. */
  readonly membership?: boolean;
  /** Membership runs: 'nemesis' adds partitions timed to the changes (conf-nemesis.ts); default 'default'. */
  readonly membershipSchedule?: MembershipSchedule;
  /** 'swarm' (swarm.ts): fault kinds switched on and off per seed, replays, pauses, overlapping partitions, calm
   *  windows with liveness checks during the run. Default 'default'. */
  readonly schedule?: Schedule;
  /** A bug planted by the simulator's adapter around the driver loop (sim-node.ts). */
  readonly simBug?: SimBug;
  /** Swarm runs: leader flapping as given, or none (false), instead of the seed's draw (experiments and tests). */
  readonly flap?: FlapMix | false;
}

export type SimApp = 'hash' | 'lock';
export const SIM_APPS: readonly SimApp[] = ['hash', 'lock'];

export interface SimStats {
  leaderTerms: number;
  doubleVotes: number;
  oldTermCommits: number;
  crashes: number;
  /** Crashes that lost writes still in flight, and the writes they lost. */
  lostBatches: number;
  lostWrites: number;
  /** Crashes that were power cuts (of one node or the whole cluster), and the unsynced writes they lost. */
  powerCuts: number;
  unsyncedLost: number;
  /** Restarts whose --peers named other voters than the data dir was made with, and how many were refused. */
  misconfiguredStarts: number;
  refusedStarts: number;
  /** The disk's faults (sim-kv.ts): torn writes, bit flips, failed writes, and starts the loader refused on a damaged store. */
  diskFaults: Record<string, number>;
  partitions: number;
  sent: number;
  delivered: number;
  dropped: number;
  proposals: number;
  committed: number;
  appSnapshots: number;
  snapshotsSent: number;
  readsAsked: number;
  /** Reads asked of a node that believed it led, though another node led a later term. */
  readsAskedOfStaleLeaders: number;
  readsAnswered: number;
  transfers: number;
  /** Final phase: steps from heal to a stable leader, and from the proposals to applied everywhere. */
  healToLeaderSteps: number;
  /** Swarm schedule: calm windows passed (liveness checked), old messages replayed, node pauses. */
  heals: number;
  replays: number;
  pauses: number;
  /** Swarm schedule: leaders the fig. 8 nemesis cut off (fig8-nemesis.ts). */
  fig8Cuts: number;
  proposeToAppliedSteps: number;
}

export interface SimViolation {
  readonly check: CheckName;
  readonly node?: NodeId;
  readonly detail: string;
  readonly step: number;
  readonly trace: string[];
  readonly state: string[];
}

export interface SimReport {
  readonly seed: number;
  /** The command that replays this run exactly. */
  readonly replay: string;
  readonly nodes: number;
  readonly profile: string;
  readonly steps: number;
  readonly digest: string;
  readonly stats: SimStats;
  /** Lock app runs: what the committed history did (counted once per entry). */
  readonly lock?: LockStats;
  /** Membership runs: changes proposed, refused, committed, nodes retired. */
  readonly membership?: MembershipStats;
  /** Membership schedule 'nemesis': leaders cut off after appending a change, and partitions shifted to the next leader. */
  readonly nemesis?: { cuts: number; shifts: number };
  readonly violation?: SimViolation;
}

export const DEFAULT_STEPS = 2000;
/** Liveness bounds for the calm final phase, in steps (each node ticks about once per step). */
export const HEAL_TO_LEADER_ELECTION_TIMEOUTS = 20;
/** Without preVote (swarm seeds; lockd runs it on) nodes whose logs are behind keep starting terms that reset the
 *  others' timers, and candidates that write their vote first (disk delay up to 3 steps) collide often: seed 1983 of
 *  `--schedule swarm` (4 voters, two behind) elected after 24.6 election timeouts, with no fault left. */
export const HEAL_TO_LEADER_ELECTION_TIMEOUTS_NO_PREVOTE = 40;
/** From the proposals to applied everywhere: a base, plus a round trip per entry a node lags behind (with one
 *  entry per message and one message in flight, a lagging follower catches up one entry per round trip). */
export const PROPOSE_TO_APPLIED_STEPS = 200;
export const STEPS_PER_LAGGING_ENTRY = 4;
const LIVENESS_PROPOSALS = 3;
/** A healthy loop takes a proposal within a few steps (one disk write in flight ahead of it at most). */
const ACCEPT_STEPS = 20;

export function runSim(opts: SimOptions): SimReport {
  return new Sim(opts).run();
}

/** Render a report as the lines a person needs: seed, step, check, detail, state, trace. */
export function formatViolation(r: SimReport): string {
  const v = r.violation;
  if (!v) return `seed ${r.seed}: ok`;
  return [
    `VIOLATION seed ${r.seed} step ${v.step}: ${v.check}${v.node ? ` (node ${v.node})` : ''}`,
    `  ${v.detail}`,
    `  profile: ${r.profile}`,
    '  nodes:',
    ...v.state.map((l) => `    ${l}`),
    `  last ${v.trace.length} trace events:`,
    ...v.trace,
    `  replay: ${r.replay}`,
  ].join('\n');
}

class Sim implements DriverHooks, World, LockDriver {
  readonly nodes: SimNode[];
  private readonly byId = new Map<NodeId, SimNode>();
  private readonly profile: Profile;
  private readonly network: Network;
  private readonly checker: Checker;
  private readonly faults: FaultSchedule;
  private readonly client: Prng;
  private readonly order: Prng;
  private readonly trace: Trace;
  private readonly lockChecker: LockChecker | undefined;
  private readonly workload: LockWorkload | undefined;
  private readonly membership: Membership | undefined;
  private readonly nemesis: ConfNemesis | undefined;
  /** Swarm seeds with leader flapping (leader-flap.ts). */
  private readonly flap: LeaderFlap | undefined;
  /** Swarm seeds with the fig. 8 nemesis (fig8-nemesis.ts). */
  private readonly fig8: Fig8Nemesis | undefined;
  /** Nodes whose removal committed, to take out of the run at the start of the next step. */
  private toRetire: SimNode[] = [];
  private now = 0;
  private proposalSeq = 0;
  private readSeq = 0;
  private readonly steps: number;
  /** Snapshot-send outcomes to report to the leader at the start of the next step. */
  private snapReports: { from: NodeId; to: NodeId; ok: boolean }[] = [];
  private readonly stats: SimStats = {
    leaderTerms: 0,
    doubleVotes: 0,
    oldTermCommits: 0,
    crashes: 0,
    lostBatches: 0,
    lostWrites: 0,
    powerCuts: 0,
    unsyncedLost: 0,
    misconfiguredStarts: 0,
    refusedStarts: 0,
    diskFaults: {},
    partitions: 0,
    sent: 0,
    delivered: 0,
    dropped: 0,
    proposals: 0,
    committed: 0,
    appSnapshots: 0,
    snapshotsSent: 0,
    readsAsked: 0,
    readsAskedOfStaleLeaders: 0,
    readsAnswered: 0,
    transfers: 0,
    healToLeaderSteps: -1,
    proposeToAppliedSteps: -1,
    heals: 0,
    replays: 0,
    pauses: 0,
    fig8Cuts: 0,
  };
  /** Swarm schedule (swarm.ts): its mix and PRNG, its own partition (overlapping the schedule's), the next calm window. */
  private readonly swarm: { mix: SwarmMix; prng: Prng } | undefined;
  private baseCuts: [NodeId, NodeId][] = [];
  private extraCuts: [NodeId, NodeId][] = [];
  private extraEnds = 0;
  private nextHeal = Infinity;
  /** The highest term whose first commit the swarm's reads at deposed leaders followed. */
  private firstCommitSeen = 0;
  private calm = false;
  /** Committed configuration entries (index → voters), as nodes apply them: what a snapshot at an index must carry. */
  private readonly committedConfigs = new Map<number, string>();

  constructor(private readonly opts: SimOptions) {
    const root = new Prng(opts.seed);
    const drawnProfile = drawProfile(root.fork('profile'), opts.nodes, opts.plantedBug, opts.diskBug, opts.startBug);
    // Only swarm runs fork this stream here (a fork draws from root): default runs draw as before.
    const swarmPrng = opts.schedule === 'swarm' ? root.fork('swarm') : undefined;
    // Split (not forked) off the swarm's stream: seeds without leader flapping draw exactly as before it existed.
    const flapPrng = swarmPrng?.split('leader-flap');
    const drawnFlap = flapPrng ? drawFlap(flapPrng) : undefined;
    const flapMix = opts.flap === false ? undefined : (flapPrng && opts.flap) || drawnFlap;
    // Also split off the swarm's stream (another label: independent of the flap's).
    const fig8Prng = swarmPrng?.split('fig8-nemesis');
    // Only in seeds without leader flapping (the two would fight over the partition; flap seeds run as before it).
    const drawnFig8 = fig8Prng ? drawFig8(fig8Prng, !flapMix) : undefined;
    const drawn = swarmPrng ? swarmProfile(drawnProfile, swarmPrng, opts.nodes, opts.membership ?? false) : drawnProfile;
    const flapNode: Partial<Profile['node']> = !flapMix
      ? {}
      : {
          ...(flapMix.oneEntryPerMsg ? { maxSizePerMsg: 1 } : {}),
          ...(flapMix.snapshotEvery ? { snapshotEvery: flapMix.snapshotEvery, snapshotOnReject: true } : {}),
        };
    // One voter has no one to play it with (it wins every election alone): no nemesis, the node's settings as drawn.
    const fig8Mix = drawn.nodes >= 2 ? drawnFig8 : undefined;
    const fig8Node: Partial<Profile['node']> = !fig8Mix?.play
      ? {}
      : { maxSizePerMsg: 1, ...(fig8Mix.snapshotEvery ? { snapshotEvery: fig8Mix.snapshotEvery, snapshotOnReject: true } : {}) };
    this.profile = {
      ...drawn,
      ...opts.mix,
      node: { ...drawn.node, ...flapNode, ...fig8Node, ...(opts.simBug ? { simBug: opts.simBug } : {}), ...opts.mix?.node },
    };
    this.swarm = swarmPrng ? { mix: drawSwarm(swarmPrng), prng: swarmPrng.fork('run') } : undefined;
    this.steps = opts.steps ?? DEFAULT_STEPS;
    this.trace = new Trace(Math.max(opts.traceLines ?? 80, 1));
    const ids = Array.from({ length: this.profile.nodes }, (_, i) => `n${i + 1}`);
    // Membership runs: spare ids after the bootstrap ones (never reused), on the network from the start.
    // (The nemesis keeps the voters at an even count, cycling members through: it needs more.)
    const spareCount = opts.membershipSchedule === 'nemesis' ? NEMESIS_SPARES : SPARES;
    const spareIds = opts.membership ? Array.from({ length: spareCount }, (_, i) => `n${this.profile.nodes + i + 1}`) : [];
    this.network = new Network([...ids, ...spareIds], root.fork('network'));
    if (this.swarm && this.swarm.mix.replayRate > 0) this.network.keepHistory();
    if (this.swarm?.mix.healEvery) this.nextHeal = this.swarm.prng.range(...this.swarm.mix.healEvery);
    this.client = root.fork('client');
    this.order = root.fork('order');
    const clocks = root.fork('clocks');
    const lockApp = opts.app === 'lock';
    this.nodes = ids.map((id) => {
      const settings = {
        ...this.profile.node,
        tickSkip: clocks.float() * this.profile.tickSkipMax,
        tickDouble: clocks.float() * this.profile.tickDoubleMax,
      };
      const node = new SimNode(id, ids, settings, root.fork(`node ${id}`), this, () => this.now, lockApp ? new LockReplica(id, opts.lockBug) : undefined);
      this.byId.set(id, node);
      return node;
    });
    this.checker = new Checker(this.nodes);
    this.faults = new FaultSchedule(this.profile, root.fork('faults'), this);
    this.flap =
      flapMix && flapPrng
        ? new LeaderFlap(flapMix, flapPrng.fork('run'), {
            ids: () => this.nodes.map((x) => x.id),
            electionTicks: this.profile.node.electionTicks,
            isolate: (kind, side, steps) =>
              this.faults.impose(
                kind,
                cutBetween(
                  side,
                  this.nodes.map((x) => x.id).filter((x) => !side.includes(x)),
                ),
                this.now,
                steps,
              ),
          })
        : undefined;
    this.fig8 =
      fig8Mix && fig8Prng
        ? new Fig8Nemesis(fig8Mix, fig8Prng.fork('run'), {
            nodes: () =>
              this.nodes.map((x) => ({
                id: x.id,
                active: () => x.up && !x.paused(this.now + 1),
                status: () => x.loop?.status(),
                termAt: (i: number) => x.disk.cached.term(i),
                lastIndex: () => x.disk.cached.lastIndex(),
                campaign: () => {
                  if (!x.up) return;
                  x.loop!.campaign();
                  this.trace.event(this.now, 'campaign', x.id);
                },
              })),
            electionTicks: this.profile.node.electionTicks,
            isolate: (kind, side, steps) =>
              this.faults.impose(
                kind,
                cutBetween(
                  side,
                  this.nodes.map((x) => x.id).filter((x) => !side.includes(x)),
                ),
                this.now,
                steps,
              ),
            event: (kind, ...args) => this.trace.event(this.now, kind, ...args),
          })
        : undefined;
    // Forked last, so that a seed's Raft-level draws are the same with either app.
    if (lockApp) {
      const locks = root.fork('locks');
      this.lockChecker = new LockChecker();
      this.workload = new LockWorkload(drawLockMix(locks), locks.fork('workload'), this);
    }
    // Forked after everything else, so that a seed draws the same without membership changes as before them.
    if (opts.membership) {
      const m = root.fork('membership');
      const spares = spareIds.map((id) => {
        const settings = { ...this.profile.node, tickSkip: m.float() * this.profile.tickSkipMax, tickDouble: m.float() * this.profile.tickDoubleMax };
        // No --peers voters: a node that joins empty and learns the configuration from the leader.
        const node = new SimNode(id, [], settings, m.fork(`node ${id}`), this, () => this.now, lockApp ? new LockReplica(id, opts.lockBug) : undefined);
        this.byId.set(id, node);
        return node;
      });
      // A change asked for on 5% of steps, and of every new leader at once (where the first-commit rule matters; that
      // ask reaches the core only in the nemesis schedule: Membership.change).
      const changes = m.fork('changes');
      // Forked after 'changes', and only for this schedule: the default one draws as before it existed.
      this.nemesis = opts.membershipSchedule === 'nemesis' ? new ConfNemesis(m.fork('nemesis'), this.nemesisWorld()) : undefined;
      this.membership = new Membership(this.membershipWorld(), spares, changes, 0.05, 1, this.nemesis);
    }
  }

  private nemesisWorld(): NemesisWorld {
    return {
      ids: () => this.nodes.map((x) => x.id),
      now: () => this.now,
      split: (kind, a, b, steps) => this.faults.impose(kind, cutBetween(a, b), this.now, steps),
    };
  }

  private membershipWorld(): MembershipWorld {
    return {
      nodes: this.nodes,
      leader: () => this.leader(),
      event: (kind, ...args) => this.trace.event(this.now, kind, ...args),
      activate: (node) => {
        if (!this.nodes.includes(node)) this.nodes.push(node);
        if (node.up) return;
        // A spare that joins during a calm window is calm too, as becomeCalm made the others: else its disk's
        // faults strike (an EIO/ENOSPC fail-stop) and nothing restarts it until the window ends, while
        // liveness waits for it as a member (seeds 1712 and 1342 of the nemesis swarm runs).
        if (this.calm) node.disarm();
        node.start();
        this.membership?.started(node);
        this.trace.event(this.now, 'join', node.id);
      },
      retire: (node) => this.toRetire.push(node),
    };
  }

  run(): SimReport {
    let violation: SimViolation | undefined;
    try {
      for (const node of this.nodes) {
        node.start();
        this.membership?.started(node);
      }
      this.trace.event(0, 'start', this.describeRun());
      while (this.now < this.steps) {
        this.faults.beforeStep(this.now + 1);
        if (this.swarm) this.swarmFaults(this.now + 1);
        this.flap?.beforeStep(this.now + 1);
        this.step(true);
        if (!this.calm) this.fig8?.afterStep(this.now);
        if (this.now >= this.nextHeal && this.now < this.steps && (this.opts.liveness ?? true)) {
          // A calm window: everything heals, liveness is checked as in the final phase, then the faults resume.
          this.livenessPhase(false);
          this.stats.heals++;
          this.nextHeal = this.now + this.swarm!.prng.range(...this.swarm!.mix.healEvery!);
        }
      }
      if (this.opts.liveness ?? true) this.livenessPhase(true);
    } catch (e) {
      violation = this.toViolation(e);
    }
    this.stats.leaderTerms = this.checker.leaderTerms;
    this.stats.doubleVotes = this.checker.doubleVotes;
    this.stats.oldTermCommits = this.checker.oldTermCommits;
    this.stats.partitions = this.faults.partitions;
    this.stats.fig8Cuts = this.fig8?.cuts ?? 0;
    this.stats.committed = this.checker.maxCommitted;
    this.stats.readsAnswered = this.checker.readsAnswered;
    const o = this.opts;
    const replay = [
      `npm run sim -- --seed ${o.seed}`,
      o.steps !== undefined && o.steps !== DEFAULT_STEPS ? `--steps ${o.steps}` : '',
      o.nodes ? `--nodes ${o.nodes}` : '',
      o.plantedBug ? `--bug ${o.plantedBug}` : '',
      o.liveness === false ? '--no-liveness' : '',
      o.app && o.app !== 'hash' ? `--app ${o.app}` : '',
      o.lockBug ? `--lock-bug ${o.lockBug}` : '',
      o.diskBug ? `--disk-bug ${o.diskBug}` : '',
      o.startBug ? `--start-bug ${o.startBug}` : '',
      o.membership ? '--membership' : '',
      o.membershipSchedule && o.membershipSchedule !== 'default' ? `--membership-schedule ${o.membershipSchedule}` : '',
      o.schedule && o.schedule !== 'default' ? `--schedule ${o.schedule}` : '',
      o.simBug ? `--sim-bug ${o.simBug}` : '',
      o.mix || o.flap !== undefined ? '(with a mix override: not replayable from the CLI)' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return {
      seed: this.opts.seed,
      replay,
      nodes: this.profile.nodes,
      profile: this.describeRun(),
      steps: this.steps,
      digest: this.trace.digest(),
      stats: this.stats,
      ...(this.lockChecker ? { lock: this.lockChecker.stats } : {}),
      ...(this.membership ? { membership: this.membership.stats } : {}),
      ...(this.nemesis ? { nemesis: { cuts: this.nemesis.cuts, shifts: this.nemesis.shifts } } : {}),
      violation,
    };
  }

  // ---- one step -----------------------------------------------------------------------------

  /**
   * Deliver what is due, tick every clock, let clients act (all of which lands in the nodes' inboxes), then give
   * each node's driver loop its turn (a batch: inbox → Ready → early sends → write), then let the writes that are
   * due reach the disks (and their batches go on: send, apply, advance).
   */
  private step(clients: boolean): void {
    const now = ++this.now;
    for (const node of this.toRetire.splice(0)) {
      // Its removal committed: the real node stops itself (or the transport refuses it); it never comes back.
      if (node.up) node.crash('between-steps');
      node.restartAt = Infinity;
      const at = this.nodes.indexOf(node);
      if (at >= 0) this.nodes.splice(at, 1);
      this.trace.event(now, 'retired', node.id);
    }
    this.deliver(now);
    for (const node of this.nodes) if (node.up && !node.paused(now)) node.tick();
    if (clients) this.clients(now);
    const order = this.order.shuffle([...this.nodes]);
    for (const node of order) if (node.up && !node.paused(now)) node.runTurn();
    for (const node of order) if (node.up && !node.paused(now)) node.completeWrites();
  }

  private deliver(now: number): void {
    const reports = this.snapReports;
    this.snapReports = [];
    for (const r of reports) this.byId.get(r.from)!.loop?.reportSnapshot(r.to, r.ok);
    for (const m of this.network.takeDue(now)) {
      const from = this.byId.get(m.from)!;
      const to = this.byId.get(m.to)!;
      if (!this.network.linked(m.from, m.to) || !to.up || (to.pauseDropsInbound && to.paused(now)) || this.membership?.refuses(from, to)) {
        this.stats.dropped++;
        this.trace.event(now, 'lost', m.type, m.from, m.to, m.term);
        if (m.type === 'Snap' && !this.network.replayed.has(m)) from.loop?.reportSnapshot(m.to, false);
        else if (from.up && this.client.chance(0.1)) from.loop!.reportUnreachable(m.to);
        continue;
      }
      this.stats.delivered++;
      to.loop!.step(m);
      if (m.type === 'Snap' && !this.network.replayed.has(m)) from.loop?.reportSnapshot(m.to, true);
    }
  }

  private clients(now: number): void {
    const p = this.profile;
    const rnd = this.client;
    if (this.workload) this.workload.step(now);
    else if (rnd.chance(p.proposeRate)) {
      // Clients of any node that believes it leads (a deposed leader may not know yet), now and then of any node.
      const target = rnd.chance(0.15) ? this.randomUp() : this.believedLeader();
      if (target) this.propose(target, `v${++this.proposalSeq}`, textData(`v${this.proposalSeq}`));
    }
    if (rnd.chance(p.readRate)) {
      if (this.swarm?.mix.readAllLeaders) {
        // Every node that believes it leads (deposed ones that have not heard yet among them), and now and then another.
        for (const x of this.nodes) if (x.up && x.role === 'leader') this.read(x, now);
        if (rnd.chance(0.1)) {
          const other = this.randomUp();
          if (other) this.read(other, now);
        }
      } else {
        const target = rnd.chance(0.1) ? this.randomUp() : this.believedLeader();
        if (target) this.read(target, now);
      }
    }
    if (rnd.chance(p.transferRate)) {
      const leader = this.leader();
      const others = this.nodes.filter((x) => x !== leader);
      if (leader && others.length > 0) {
        const to = rnd.pick(others).id;
        leader.loop!.transferLeader(to, (ok) => ok && this.stats.transfers++);
        this.trace.event(now, 'transfer', leader.id, to);
      }
    }
    this.membership?.step();
    if (rnd.chance(p.campaignRate)) {
      const node = this.randomUp();
      if (node && node.role !== 'leader') {
        node.loop!.campaign();
        this.trace.event(now, 'campaign', node.id);
      }
    }
  }

  /** Propose through the node's driver loop; where the entry went is known once the loop ran the proposal. */
  private propose(node: SimNode, what: string, data: Uint8Array): Proposal {
    const p: Proposal = {};
    node.loop!.propose(data, {
      accepted: (at) => {
        p.at = at;
        this.stats.proposals++;
        this.trace.event(this.now, 'propose', node.id, what, at.index, at.term);
        if (this.client.chance(this.profile.proposeCrashRate)) this.faults.arm(node, 'after-persist', this.now);
        if (node.role === 'leader') this.flap?.appended(node.id, this.now);
        if (node.role === 'leader' && !this.calm) this.fig8?.appended(node.id, node.term);
      },
      resolve: () => {},
      reject: () => {
        if (p.at) return; // lost after it was appended: the committed history tells
        p.refused = true;
        this.trace.event(this.now, 'refused', node.id, what);
      },
    });
    return p;
  }

  /** A linearizable read (ReadIndex through the driver loop), checked when it is served. */
  private read(node: SimNode, now: number): void {
    // Every index committed when the read is asked: recorded on some disk, or known committed to some node's core
    // (a leader's commit index is committed; it reaches disk only with the next synced write).
    let minIndex = this.checker.maxCommitted;
    for (const x of this.nodes) if (x.up) minIndex = Math.max(minIndex, x.loop!.status().commit);
    this.stats.readsAsked++;
    if (node.role === 'leader' && this.nodes.some((x) => x.up && x.role === 'leader' && x.term > node.term)) this.stats.readsAskedOfStaleLeaders++;
    const id = ++this.readSeq;
    this.trace.event(now, 'read', node.id, id, minIndex);
    node.read(
      () => {
        this.trace.event(this.now, 'read-served', node.id, id, node.app.index);
        this.checker.readServed(node, minIndex, now);
      },
      () => {},
    );
  }

  // ---- the calm final phase: liveness -------------------------------------------------------

  private livenessPhase(final: boolean): void {
    const healedAt = this.now;
    this.calm = true;
    this.extraCuts = [];
    this.extraEnds = 0;
    for (const x of this.nodes) x.pausedUntil = 0;
    this.faults.becomeCalm(this.now);
    this.trace.event(this.now, final ? 'calm' : 'calm-window');
    const timeouts = this.profile.node.preVote ? HEAL_TO_LEADER_ELECTION_TIMEOUTS : HEAL_TO_LEADER_ELECTION_TIMEOUTS_NO_PREVOTE;
    const electionBound = timeouts * this.profile.node.electionTicks;
    // "Stable" = the same leader, followed by all, for a whole window: long enough for a CheckQuorum round
    // and for any TimeoutNow or vote still in flight from before the heal to land.
    const window = 2 * this.profile.node.electionTicks + 2;
    // A message sent before the heal may have drawn a long delay that outlasts that window: e.g. a
    // TimeoutNow of a transfer the leader has since abandoned lands 31 steps later and starts an
    // election (seed 3836). Stability is judged only once everything sent before the heal has landed.
    const drained = this.network.drainedBy(this.now);
    let leader: SimNode | undefined;
    let since = this.now;
    for (;;) {
      const l = this.now < drained ? undefined : this.stableLeader();
      if (!l || l !== leader || l.term !== leader.term) since = this.now;
      leader = l;
      if (leader && this.now - since >= window) break;
      if (since - healedAt > electionBound) {
        fail('Liveness', undefined, `no stable leader ${electionBound} steps (${timeouts} election timeouts) after the faults healed`);
      }
      this.step(false);
    }
    this.stats.healToLeaderSteps = Math.max(this.stats.healToLeaderSteps, since - healedAt);
    const term = leader.term;

    const proposedAt = this.now;
    const wanted: { index: number; term: number; data: string }[] = [];
    for (let k = 0; k < LIVENESS_PROPOSALS; k++) {
      const data = `live${k}`;
      const p = this.propose(leader, data, this.workload ? encodeCommand(LockWorkload.livenessCommand()) : textData(data));
      // The loop takes it in its next batch (after a write in flight, if any).
      for (let waited = 0; !p.at && !p.refused && waited <= ACCEPT_STEPS; waited++) this.step(false);
      if (!p.at)
        fail('Liveness', leader.id, `the stable leader of term ${term} ${p.refused ? 'refused' : `did not take within ${ACCEPT_STEPS} steps`} a proposal`);
      wanted.push({ ...p.at, data });
    }
    const last = wanted[wanted.length - 1].index;
    const lag = last - Math.min(...this.members().map((x) => x.app.index));
    const applyBound = PROPOSE_TO_APPLIED_STEPS + STEPS_PER_LAGGING_ENTRY * lag;
    while (this.members().some((x) => x.app.index < last)) {
      if (this.now - proposedAt >= applyBound) {
        const behind = this.members()
          .filter((x) => x.app.index < last)
          .map((x) => `${x.id} at ${x.app.index}`);
        fail('Liveness', undefined, `proposals up to index ${last} not applied everywhere ${applyBound} steps later (lag was ${lag}): ${behind.join(', ')}`);
      }
      const st = leader.loop?.status();
      if (!st || st.role !== 'leader' || st.term !== term) {
        fail(
          'Liveness',
          leader.id,
          `the stable leader of term ${term} lost leadership in a healed network (now ${st ? `${st.role} of term ${st.term}` : 'down'})`,
        );
      }
      this.step(false);
    }
    for (const w of wanted) {
      // Only the leader of `term` writes (index, term), so that pair committed means this proposal committed.
      const t = this.checker.committedTermAt(w.index);
      if (t !== w.term) fail('Liveness', leader.id, `proposal ${w.data} at ${w.index} (term ${w.term}) lost: term ${t} committed there`);
    }
    this.stats.proposeToAppliedSteps = Math.max(this.stats.proposeToAppliedSteps, this.now - proposedAt);
    if (!final) {
      this.calm = false;
      this.faults.resume();
      this.trace.event(this.now, 'faults-resume');
    }
  }

  /** The swarm's own faults for `step` (swarm.ts): replays, pauses, a second partition. */
  private swarmFaults(step: number): void {
    const { mix, prng } = this.swarm!;
    if (this.calm) return;
    if (mix.replayRate > 0 && prng.chance(mix.replayRate)) {
      const m = this.network.replay(step - 1);
      if (m) {
        this.stats.replays++;
        this.trace.event(step, 'replay', m.type, m.from, m.to, m.term, m.index);
      }
    }
    if (mix.pauseRate > 0 && prng.chance(mix.pauseRate)) {
      const up = this.nodes.filter((x) => x.up && !x.paused(step));
      const leader = this.leader();
      const victim = leader && !leader.paused(step) && prng.chance(0.7) ? leader : up.length > 0 ? prng.pick(up) : undefined;
      if (victim) this.pause(victim, step, mix.pauseSteps);
    }
    if (this.extraEnds > 0 && step >= this.extraEnds) {
      this.extraEnds = 0;
      this.extraCuts = [];
      this.applyCuts('heal-2nd');
    } else if (this.extraEnds === 0 && mix.extraPartitionRate > 0 && prng.chance(mix.extraPartitionRate)) {
      const kind = prng.pick(SWARM_EXTRA_KINDS);
      this.extraEnds = step + prng.range(mix.extraPartitionSteps[0], mix.extraPartitionSteps[1]);
      this.extraCuts = partitionLinks(
        kind,
        this.nodes.map((x) => x.id),
        this.leader()?.id,
        prng,
      );
      this.stats.partitions++;
      this.applyCuts(`2nd ${kind}`);
    }
  }

  private pause(node: SimNode, step: number, steps: readonly [number, number]): void {
    const { mix, prng } = this.swarm!;
    node.pausedUntil = step + prng.range(steps[0], steps[1]);
    node.pauseDropsInbound = prng.chance(mix.stalledShare);
    this.stats.pauses++;
    this.trace.event(step, node.pauseDropsInbound ? 'stall' : 'pause', node.id, node.pausedUntil);
  }

  private applyCuts(kind: string): void {
    this.network.setCuts([...this.baseCuts, ...this.extraCuts]);
    this.trace.event(this.now, 'partition', kind, this.network.describeCuts());
  }

  /** One leader that every node follows, all in the same term, with no leader transfer under way. */
  private stableLeader(): SimNode | undefined {
    let leader: SimNode | undefined;
    let term = -1;
    const nodes = this.members();
    for (const node of nodes) {
      const st = node.loop?.status();
      if (!st) return undefined;
      if (term !== -1 && st.term !== term) return undefined;
      term = st.term;
      if (st.role === 'leader') {
        // A leader still handing over to another node (a transfer started before the calm) is not stable yet.
        if (leader || st.leadTransferee !== '') return undefined;
        leader = node;
      }
    }
    if (!leader) return undefined;
    for (const node of nodes) {
      const st = node.loop!.status();
      if (st.leader !== leader.id) return undefined;
    }
    return leader.role === 'leader' && leader.term === term ? leader : undefined;
  }

  /**
   * The nodes liveness is judged on: all of them, or with membership changes the members (voters and learners)
   * of the configuration the most recent up leader has in effect (a spare whose addition was rolled back is not).
   */
  private members(): SimNode[] {
    if (!this.membership) return this.nodes;
    const st = this.leader()?.loop?.status();
    if (!st) return this.nodes;
    const ids = new Set([...st.voters, ...st.learners]);
    return this.nodes.filter((x) => ids.has(x.id));
  }

  // ---- World (for the fault schedule) -------------------------------------------------------

  leader(): SimNode | undefined {
    let best: SimNode | undefined;
    for (const node of this.nodes) {
      if (node.up && node.role === 'leader' && (!best || node.term > best.term)) best = node;
    }
    return best;
  }

  private describeRun(): string {
    const p =
      describeProfile(this.profile) +
      (this.swarm ? `; ${describeSwarm(this.swarm.mix)}` : '') +
      (this.flap ? `; ${describeFlap(this.flap.mix)}` : '') +
      (this.fig8 ? `; ${describeFig8(this.fig8.mix)}` : '') +
      (this.opts.simBug ? `, PLANTED sim bug ${this.opts.simBug}` : '');
    if (!this.workload) return p;
    return `${p}; ${describeLockMix(this.workload.mix)}${this.opts.lockBug ? `, PLANTED ${this.opts.lockBug} in the adapter of ${this.opts.lockBug === 'grant-during-delay' ? 'every replica' : 'n1'}` : ''}`;
  }

  // ---- LockDriver (the lock app's clients and lease clock) ------------------------------------

  anyUp(): SimNode | undefined {
    return this.randomUp();
  }

  proposeCommand(node: SimNode, cmd: Command, who: string): Proposal {
    return this.propose(node, `${who} ${describeCommand(cmd)}`, encodeCommand(cmd));
  }

  /** A node that believes it leads, picked at random (the highest-term leader is only one of them). */
  private believedLeader(): SimNode | undefined {
    const leaders = this.nodes.filter((x) => x.up && x.role === 'leader');
    return leaders.length > 0 ? this.client.pick(leaders) : undefined;
  }

  private randomUp(): SimNode | undefined {
    const up = this.nodes.filter((x) => x.up);
    return up.length ? this.client.pick(up) : undefined;
  }

  setCuts(kind: string, cuts: [NodeId, NodeId][]): void {
    this.baseCuts = cuts;
    this.applyCuts(kind);
  }

  setWeather(w: NetworkConditions): void {
    this.network.conditions = w;
    this.trace.event(this.now, 'weather', w.dropRate, w.dupRate, w.maxDelay, w.longDelayRate, w.reorder);
  }

  crash(node: SimNode, powerCut: boolean): void {
    node.crash('between-steps', powerCut);
  }

  restart(node: SimNode, named?: readonly NodeId[]): boolean {
    if (named) this.stats.misconfiguredStarts++;
    const refused = node.start(named);
    if (refused !== undefined) {
      this.stats.refusedStarts++;
      this.trace.event(this.now, 'start-refused', node.id, refused);
      return false;
    }
    const img = node.disk.cached;
    this.membership?.started(node);
    this.trace.event(this.now, 'restart', node.id, node.voters.join(','), node.term, node.commit, img.lastIndex(), img.snapshotIndex);
    // The lock state read back from the node's own snapshot is the one replicas had there.
    if (img.snapshotIndex > 0) this.lockChecker?.restored(node, img.snapshotIndex);
    return true;
  }

  // ---- DriverHooks (one node's driver cycle) ------------------------------------------------

  readyTaken(node: SimNode, rd: Ready): void {
    const hs = rd.hardState;
    this.trace.event(
      this.now,
      'ready',
      node.id,
      rd.softState?.role,
      hs?.term,
      hs?.vote,
      hs?.commit,
      rd.entries.length ? `${rd.entries[0].index}..${rd.entries[rd.entries.length - 1].index}` : undefined,
      rd.snapshot?.metadata.index,
      rd.committedEntries.length,
      rd.messages.length,
    );
    this.checker.readyTaken(node, rd);
    if (rd.softState?.role === 'leader') {
      this.faults.newLeader(node, this.now);
      this.flap?.elected(node.id, this.now);
      if (!this.calm) this.fig8?.elected(node.id, hs?.term ?? node.term, this.now);
      this.membership?.newLeader(node);
      // Swarm: a new leader is read from at once (its commit may still lag; its applied index too). Asked through
      // the loop's inbox, so it runs in the leader's next batch.
      if (this.swarm && !this.calm && this.swarm.prng.chance(this.swarm.mix.readOnElection)) this.read(node, this.now);
    } else if (node.role === 'leader' && hs && hs.commit > node.commit) {
      this.faults.leaderCommitted(node, this.now);
      this.flap?.committed(node.id, this.now);
      if (!this.calm) this.fig8?.committed(node.id, node.term);
      // Swarm: the first commit of a term is read at every deposed leader that still believes it leads (no draw).
      if (this.swarm?.mix.readAllLeaders && !this.calm && this.firstCommitSeen < node.term) {
        this.firstCommitSeen = node.term;
        for (const x of this.nodes) if (x !== node && x.up && x.role === 'leader' && x.term < node.term) this.read(x, this.now);
      }
      // Swarm: a GC pause right as the leader committed, before it told anyone (it ends the batch first).
      const sw = this.swarm;
      if (sw && !this.calm && sw.mix.pauseOnCommit > 0 && !node.paused(this.now + 1) && sw.prng.chance(sw.mix.pauseOnCommit)) {
        // Long enough for the others to elect without it (a few election timeouts).
        const e = this.profile.node.electionTicks;
        this.pause(node, this.now + 1, [2 * e, 8 * e]);
      }
    }
  }

  crashPoint(node: SimNode): CrashPoint | undefined {
    return this.faults.crashPoint(node);
  }

  persisted(node: SimNode, rd: Ready): void {
    this.checker.persisted(node, rd);
  }

  send(node: SimNode, m: Message): void {
    this.checker.send(node, m);
    this.stats.sent++;
    if (m.type === 'Snap') this.stats.snapshotsSent++;
    const copies = this.network.send(m, this.now);
    this.trace.event(
      this.now,
      copies === 0 ? 'send-lost' : copies === 2 ? 'send-dup' : 'send',
      m.type,
      m.from,
      m.to,
      m.term,
      m.index,
      m.logTerm,
      m.entries.length,
      m.commit,
      m.reject,
      m.snapshot?.metadata.index,
      m.context || undefined,
    );
    if (copies === 0) {
      this.stats.dropped++;
      if (m.type === 'Snap') this.snapReports.push({ from: m.from, to: m.to, ok: false });
    }
  }

  snapshotRestored(node: SimNode, index: number, before: AppState): void {
    this.trace.event(this.now, 'restore', node.id, index);
    this.checker.snapshotRestored(node, index, before);
    this.membership?.snapshotRestored(node);
    this.lockChecker?.restored(node, index);
  }

  applied(node: SimNode, e: Entry, data: string, before: AppState): void {
    this.checker.applied(node, e, data, before);
    if (e.type === 'config' && !this.committedConfigs.has(e.index)) {
      this.committedConfigs.set(e.index, [...decodeConfigEntry(e.data, node.id, e.index).config.voters].sort().join(','));
    }
    this.membership?.applied(node, e);
    if (!this.lockChecker) return;
    const out = node.lock!.last!;
    const first = this.lockChecker.applied(node, e, out);
    if (first) this.workload!.committed(e, out);
  }

  appSnapshot(node: SimNode, snap: Snapshot): void {
    this.stats.appSnapshots++;
    // A snapshot at i carries the configuration of the committed history at i: made by an entry at or before i.
    const md = snap.metadata;
    const ci = md.configIndex ?? 0;
    if (ci > md.index)
      fail('Snapshot Config', node.id, `snapshot at ${md.index} carries the configuration of entry ${ci} (voters ${md.voters.join(',')}), past its index`);
    const committed = this.committedConfigs.get(ci);
    if (ci > 0 && committed !== undefined && committed !== [...md.voters].sort().join(',')) {
      fail('Snapshot Config', node.id, `snapshot at ${md.index} names voters ${md.voters.join(',')} for entry ${ci}, which committed voters ${committed}`);
    }
    this.trace.event(this.now, 'app-snapshot', node.id, snap.metadata.index, snap.metadata.term);
  }

  diskFault(node: SimNode, what: string, detail: string): void {
    this.stats.diskFaults[what] = (this.stats.diskFaults[what] ?? 0) + 1;
    this.trace.event(this.now, 'disk-fault', node.id, what, detail);
  }

  crashed(node: SimNode, kind: CrashKind, lost: { inflight: number; unsynced: number; powerCut: boolean }): void {
    this.stats.crashes++;
    if (lost.inflight > 0) this.stats.lostBatches++;
    this.stats.lostWrites += lost.inflight;
    if (lost.powerCut) this.stats.powerCuts++;
    this.stats.unsyncedLost += lost.unsynced;
    const hs = node.disk.cached.hardState;
    this.trace.event(
      this.now,
      lost.powerCut ? 'power-cut' : 'crash',
      node.id,
      kind,
      lost.inflight,
      lost.unsynced,
      hs.term,
      hs.commit,
      node.disk.cached.lastIndex(),
    );
  }

  // ---- reporting ----------------------------------------------------------------------------

  private toViolation(e: unknown): SimViolation {
    let check: CheckName;
    let node: NodeId | undefined;
    let detail: string;
    if (e instanceof Violation) {
      ({ check, node, detail } = e);
    } else if (e instanceof InvariantError && e.where === STATE_MACHINE) {
      check = 'Lock Invariant';
      detail = e.message;
    } else if (e instanceof InvariantError) {
      check = 'Core Invariant';
      node = e.node || undefined;
      detail = e.message;
    } else {
      check = 'Crash';
      detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
    }
    return {
      check,
      node,
      detail,
      step: this.now,
      trace: this.trace.tail(this.opts.traceLines ?? 80),
      state: this.nodes.map((x) => this.describeNode(x)),
    };
  }

  private describeNode(x: SimNode): string {
    const img = (d: typeof x.disk.synced) =>
      `term ${d.hardState.term} vote ${d.hardState.vote || '-'} commit ${d.hardState.commit} log ${d.snapshotIndex + 1}..${d.lastIndex()}`;
    const durable = `synced ${img(x.disk.synced)}, written ${img(x.disk.cached)}, voters ${x.voters.join(',')}`;
    if (!x.up) return `${x.id}: down until step ${x.restartAt}; ${durable}`;
    let st = '';
    try {
      const s = x.loop!.status();
      st = `${s.role} term ${s.term} leader ${s.leader || '-'} commit ${s.commit} last ${s.lastIndex}`;
      // The configuration in effect (the "voters" further on are the ones the data dir was started with).
      if (this.membership) {
        st += `; config@${s.configIndex} voters ${s.voters.join(',') || '-'} learners ${s.learners.join(',') || '-'} removed ${s.removed.join(',') || '-'}`;
        const pr = [...s.progress].filter(([id]) => id !== x.id).map(([id, p]) => `${id} ${p.state} ${p.match}/${p.next}`);
        if (pr.length > 0) st += `; progress (match/next) ${pr.join(', ')}`;
      }
    } catch {
      st = '(status unavailable)';
    }
    const lock = x.lock ? `; ${describeLock(x.lock)}` : '';
    return `${x.id}: ${st}; ${durable}; ${describeApp(x.app)}${lock}`;
  }
}

function describeLock(r: LockReplica): string {
  const sm = r.machine;
  const leases = sm.listLeases();
  const held = leases.flatMap((l) => l.locks.map((n) => `${n}@${l.leaseId}`));
  return `lock state at ${sm.appliedIndex}: now ${sm.now} ms, ${leases.length} leases, held ${held.join(' ') || '-'}, digest ${r.digest()}`;
}
