// The nemesis of the membership schedule 'nemesis' (membership.ts): partitions timed to membership changes, to
// provoke on purpose the setting of Ongaro's single-server-change bug, which random faults reach about once in
// 500 seeds. Two moves:
//  1. a leader L1 just appended a change C1: cut it off at once (C1 goes nowhere, or only to the non-voters of
//     the old configuration sent along with it), so that the others elect a new leader without C1;
//  2. that new leader L2 asks for a change C2 as soon as it leads (before anything of its term committed): shift
//     the partition at once, before its first messages land, to L2 and just enough voters of C2 for a majority
//     of C2, against everyone else (L1 among them), chosen where it can be so that the rest still holds a
//     majority of C1 with L1. Where C1 and C2 have disjoint majorities, a core that accepts C2 there lets both
//     sides elect; the correct core refuses C2 and must stay clean.
// And it steers which change the clients ask for (steer): the overlap of two single-server changes can fail only
// from an even voter count, so the voters are kept at or brought back to FRAGILE_VOTERS, where changes that move
// the voters are asked for, and a new leader facing a cut-off leader's change asks for one whose majorities can
// miss it (random picks drifted to one or two voters within a few hundred steps: 12 seeds of 100 caught).
// Its own PRNG stream (forked after everything else), so the default schedule draws exactly as before.

import type { ConfChange } from '../../src/raft/membership.js';
import type { NodeId } from '../../src/raft/types.js';
import { majoritiesCanMiss, votersAfter } from './membership.js';
import type { Prng } from './prng.js';

export type MembershipSchedule = 'default' | 'nemesis';
export const MEMBERSHIP_SCHEDULES: readonly MembershipSchedule[] = ['default', 'nemesis'];

/** Chance that a leader is cut off right after it appended a change, and that the next leader's change shifts it. */
const CUT_RATE = 0.5;
const SPLIT_CUT_RATE = 0.9;
const SHIFT_RATE = 0.9;
/** How long each partition holds, in steps (a few election timeouts: long enough for each side to elect). */
const HOLD_STEPS: readonly [number, number] = [30, 120];
/** The voter count the nemesis keeps the configuration at: the smallest even one where a second leader can win. */
export const FRAGILE_VOTERS = 4;
/** Chance that a change is steered (the rest are picked from every option, as in the default schedule). */
const STEER_RATE = 0.8;
/** Spare nodes of a nemesis run (each cycle 4 → 3 → 4 voters retires one node for good and adds a fresh one). */
export const NEMESIS_SPARES = 12;

export interface NemesisWorld {
  /** Ids of the nodes taking part. */
  ids(): NodeId[];
  /** The current step. */
  now(): number;
  /** Replace any partition by the cuts between these sides, for `steps` steps; false once the run is calm. */
  split(kind: string, a: readonly NodeId[], b: readonly NodeId[], steps: number): boolean;
}

/** The configuration a change is asked of: voters and learners. */
export interface ConfShape {
  readonly voters: readonly NodeId[];
  readonly learners: readonly NodeId[];
}

export class ConfNemesis {
  /** The leader move 1 cut off, and the voters of the change it appended, while move 2 has not followed. */
  private cutOff: { leader: NodeId; voters: readonly NodeId[] } | undefined;
  /** Until this step move 2's partition holds: move 1 leaves it alone (L2's own change would undo it at once). */
  private shiftEnds = 0;
  cuts = 0;
  shifts = 0;

  constructor(
    private readonly prng: Prng,
    private readonly world: NemesisWorld,
  ) {}

  /** The options to pick a change from (a subset of `options`, never empty when they are not). */
  steer(options: readonly ConfChange[], shape: ConfShape, elected: boolean): readonly ConfChange[] {
    if (!this.prng.chance(STEER_RATE)) return options;
    const after = (cc: ConfChange) => votersAfter(shape.voters, cc);
    const first = this.cutOff;
    if (elected && first) {
      const c1 = new Set(first.voters);
      const missing = options.filter((cc) => majoritiesCanMiss(c1, new Set(after(cc))));
      if (missing.length > 0) return missing;
    }
    // Below: a learner first, then its promotion; above: a voter removed; at the count: a learner to promote, then
    // changes that move the voters (from FRAGILE_VOTERS + a learner, both the promotion and a removal can split).
    const n = shape.voters.length;
    const learner = shape.learners.length > 0;
    const wanted = options.filter((cc) =>
      n > FRAGILE_VOTERS
        ? cc.op === 'remove' && shape.voters.includes(cc.node)
        : !learner
          ? cc.op === 'addLearner'
          : n < FRAGILE_VOTERS
            ? cc.op === 'promote'
            : after(cc).length !== n,
    );
    return wanted.length > 0 ? wanted : options;
  }

  /** Move 1: `leader` appended a change from `oldVoters` to `newVoters`. Its side: itself and, each at even odds, the
   *  nodes that are not old voters (a promoted learner or a spare hear C1; the old voters left can still elect). */
  appended(leader: NodeId, oldVoters: readonly NodeId[], newVoters: readonly NodeId[]): void {
    if (this.world.now() < this.shiftEnds) return;
    // A change that moves the voters from an even count is the one a second change can split: cut it off more often.
    const splittable = oldVoters.length % 2 === 0 && newVoters.length !== oldVoters.length;
    if (!this.prng.chance(splittable ? SPLIT_CUT_RATE : CUT_RATE)) return;
    const ids = this.world.ids();
    const side = [leader, ...ids.filter((id) => id !== leader && !oldVoters.includes(id) && this.prng.chance(0.5))];
    if (this.split('cut-changing-leader', side, ids) > 0) {
      this.cutOff = { leader, voters: newVoters };
      this.cuts++;
    }
  }

  /** Move 2: `leader` was just elected while move 1's leader is cut off, and asks for a change to `newVoters` at once.
   *  Its side takes first the voters of C2 that C1 lacks, so that the rest keeps a majority of C1 where it can. */
  electedWithChange(leader: NodeId, newVoters: readonly NodeId[]): void {
    const first = this.cutOff;
    if (first === undefined || first.leader === leader) return;
    this.cutOff = undefined;
    if (!this.prng.chance(SHIFT_RATE) || !newVoters.includes(leader)) return;
    const others = this.prng.shuffle(newVoters.filter((id) => id !== leader && id !== first.leader));
    const byC1 = [...others.filter((id) => !first.voters.includes(id)), ...others.filter((id) => first.voters.includes(id))];
    const side = [leader, ...byC1.slice(0, Math.floor(newVoters.length / 2))];
    const hold = this.split('shift-to-new-leader', side, this.world.ids());
    if (hold > 0) {
      this.shifts++;
      this.shiftEnds = this.world.now() + hold;
    }
  }

  /** The partition between `side` and everyone else, for a drawn number of steps (returned; 0 if not imposed). */
  private split(kind: string, side: NodeId[], ids: readonly NodeId[]): number {
    const rest = ids.filter((id) => !side.includes(id));
    const steps = this.prng.range(HOLD_STEPS[0], HOLD_STEPS[1]);
    return this.world.split(kind, side, rest, steps) ? steps : 0;
  }
}
