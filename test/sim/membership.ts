// Membership changes in the simulator: clients of the leader add learners (spare nodes that start
// empty, as `--join` does), promote them and remove members, at random and (schedule 'nemesis', conf-nemesis.ts)
// right after a node became leader, where the rule "no change before an entry of the leader's term committed"
// matters. The real driver loop proposes them (DriverLoop.proposeConfChange). A removed node is retired once
// its removal commits, wherever it is (default schedule); in the nemesis schedule, as the real node stops: once it
// applies its own removal, or a node that applied it refuses its messages (until then it runs on, e.g. across a
// partition with nodes that never heard of the removal). The check of its own: consecutive configurations, as a
// node applies them, have overlapping majorities.

import { decodeConfigEntry, type ConfChange } from '../../src/raft/membership.js';
import type { Entry, NodeId } from '../../src/raft/types.js';
import { fail } from './checkers.js';
import type { ConfNemesis } from './conf-nemesis.js';
import type { Prng } from './prng.js';
import type { SimNode } from './sim-node.js';
import type { TraceArg } from './trace.js';

/** Spare nodes a run may add, and the bounds it keeps the voters in. */
export const SPARES = 3;
const MIN_VOTERS = 1; // removals may leave one voter (it then wins its elections alone, in one batch)
const MAX_MEMBERS = 6;

export interface MembershipWorld {
  /** The nodes taking part (bootstrap ones, and spares once added); retired ones leave it. */
  readonly nodes: SimNode[];
  leader(): SimNode | undefined;
  event(kind: string, ...args: TraceArg[]): void;
  /** Start a spare node (empty data dir, no configuration) and let it take part. */
  activate(node: SimNode): void;
  /** Take a node whose removal committed out of the run for good. */
  retire(node: SimNode): void;
}

export interface MembershipStats {
  proposed: number;
  refused: number;
  committed: number;
  retired: number;
}

/** Voters of a configuration, as a set. */
type Voters = ReadonlySet<NodeId>;

/** Could some majority of `a` and some majority of `b` be disjoint? (Then two leaders could win one term each.) */
export function majoritiesCanMiss(a: Voters, b: Voters): boolean {
  if (a.size === 0 || b.size === 0) return false;
  const both = [...a].filter((id) => b.has(id)).length;
  const qa = Math.floor(a.size / 2) + 1;
  const qb = Math.floor(b.size / 2) + 1;
  // Each majority takes the members only it has first; what it still needs must come from the shared ones.
  return Math.max(0, qa - (a.size - both)) + Math.max(0, qb - (b.size - both)) <= both;
}

export class Membership {
  readonly stats: MembershipStats = { proposed: 0, refused: 0, committed: 0, retired: 0 };
  /** Per node: the voters of the last configuration it applied (undefined: not known, after a snapshot or a start). */
  private readonly lastApplied = new Map<NodeId, Voters | undefined>();
  private readonly committedSeen = new Set<number>();
  private readonly retired = new Set<NodeId>();
  /** The index of the committed entry that removed each id. */
  private readonly removedAt = new Map<NodeId, number>();

  constructor(
    private readonly world: MembershipWorld,
    private readonly spares: SimNode[],
    private readonly prng: Prng,
    private readonly rate: number,
    /** Chance that a new leader is asked for a change at once (before it committed anything of its term). */
    private readonly eagerRate: number,
    /** Schedule 'nemesis' (conf-nemesis.ts): partitions timed to the changes. */
    private readonly nemesis?: ConfNemesis,
  ) {}

  /** A step's clients: now and then a change at the leader. */
  step(): void {
    if (this.prng.chance(this.rate)) this.change(this.world.leader());
  }

  /** A node just became leader: ask it for a change now and then, before it could commit anything. */
  newLeader(node: SimNode): void {
    if (this.prng.chance(this.eagerRate)) this.change(node, true);
  }

  /** A node started (or restarted): what it applied before is not known to it any more. */
  started(node: SimNode): void {
    this.lastApplied.set(node.id, node.peers.length > 0 && node.disk.cached.snapshotIndex === 0 ? new Set(node.peers) : undefined);
  }

  snapshotRestored(node: SimNode): void {
    this.lastApplied.set(node.id, undefined);
  }

  /** A node applied entry e: for a config entry, check it against the one it applied before, and retire whom it removed. */
  applied(node: SimNode, e: Entry): void {
    if (e.type !== 'config') return;
    const { change, config } = decodeConfigEntry(e.data, node.id, e.index);
    const voters: Voters = new Set(config.voters);
    const prev = this.lastApplied.get(node.id);
    if (prev && majoritiesCanMiss(prev, voters)) {
      fail(
        'Config Overlap',
        node.id,
        `entry ${e.index} (${change.op} ${change.node}) moves the voters from {${[...prev].join(',')}} to {${[...voters].join(',')}}: majorities of the two may be disjoint`,
      );
    }
    this.lastApplied.set(node.id, voters);
    // The real node stops itself once its own log holds its removal, committed (lockd-node.ts).
    if (config.removed.includes(node.id)) this.retire(node.id);
    if (this.committedSeen.has(e.index)) return;
    this.committedSeen.add(e.index);
    this.stats.committed++;
    this.world.event('conf-committed', e.index, change.op, change.node, config.voters.join(','), config.learners.join(','));
    for (const id of config.removed) {
      if (!this.removedAt.has(id)) this.removedAt.set(id, e.index);
      // Default schedule: every removed node at once, wherever it is (its seeds run as they always did).
      if (!this.nemesis) this.retire(id);
    }
  }

  /**
   * Nemesis schedule: is a message from `from` to `to` refused? Yes once `to` applied the removal of `from`: its
   * transport refuses a removed node's stream, and the node stops itself when told so (lockd-node.ts). Until then a
   * removed node runs on, e.g. on the far side of a partition with nodes that have not heard of its removal.
   */
  refuses(from: SimNode, to: SimNode): boolean {
    const at = this.removedAt.get(from.id);
    if (!this.nemesis || at === undefined || to.app.index < at) return false;
    this.retire(from.id);
    return true;
  }

  private retire(id: NodeId): void {
    const gone = this.world.nodes.find((x) => x.id === id);
    if (gone && !this.retired.has(id)) {
      this.retired.add(id);
      this.stats.retired++;
      this.world.retire(gone);
    }
  }

  private change(leader: SimNode | undefined, elected = false): void {
    // A new leader is asked at its first Ready, where node.role is still the old one (sim-node.ts): in the default
    // schedule that ask stops here and never reaches the core. Kept so, for its seeds draw as they always did; the
    // nemesis schedule asks for real (the core itself refuses a node that does not lead).
    if (!leader?.up || (leader.role !== 'leader' && !(elected && this.nemesis))) return;
    const st = leader.loop!.status();
    const members = st.voters.length + st.learners.length;
    // A spare never added, or added by an entry that was rolled back since (it may be running, empty).
    const spare = this.spares.find((x) => !st.removed.includes(x.id) && !st.learners.includes(x.id) && !st.voters.includes(x.id) && !this.retired.has(x.id));
    const removable = st.voters.filter((id) => id !== leader.id);
    const options: ConfChange[] = [];
    for (const id of st.learners) options.push({ op: 'promote', node: id }, { op: 'remove', node: id });
    if (spare && members < MAX_MEMBERS) options.push({ op: 'addLearner', node: spare.id });
    if (st.voters.length > MIN_VOTERS) for (const id of removable) options.push({ op: 'remove', node: id });
    if (options.length === 0) return;
    const cc = this.prng.pick(this.nemesis?.steer(options, st, elected) ?? options);
    if (elected) this.nemesis?.electedWithChange(leader.id, votersAfter(st.voters, cc));
    let accepted = false;
    leader.loop!.proposeConfChange(cc, {
      accepted: (at) => {
        accepted = true;
        this.stats.proposed++;
        this.world.event('conf-propose', leader.id, cc.op, cc.node, at.index, at.term);
        this.nemesis?.appended(leader.id, st.voters, votersAfter(st.voters, cc));
        const node = this.spares.find((x) => x.id === cc.node);
        if (cc.op === 'addLearner' && node && !node.up) this.world.activate(node);
      },
      resolve: () => {},
      reject: (e) => {
        if (accepted) return; // lost after it was appended: the committed history tells
        this.stats.refused++;
        this.world.event('conf-refused', leader.id, cc.op, cc.node, e.message);
      },
    });
  }
}

/** The voters once change cc applies to a configuration with these voters. */
export function votersAfter(voters: readonly NodeId[], cc: ConfChange): NodeId[] {
  if (cc.op === 'promote') return [...voters, cc.node];
  if (cc.op === 'remove') return voters.filter((id) => id !== cc.node);
  return [...voters];
}
