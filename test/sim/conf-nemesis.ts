// The nemesis of the membership schedule 'nemesis' (membership.ts): partitions timed to membership changes, to
// provoke on purpose the setting of Ongaro's single-server-change bug, which random faults reach about once in
// 500 seeds. Two moves:
//  1. a leader L1 just appended a change C1: cut it off at once (C1 goes nowhere, or only to the non-voters of
//     the old configuration sent along with it), so that the others elect a new leader without C1;
//  2. that new leader L2 asks for a change C2 as soon as it leads (before anything of its term committed): shift
//     the partition at once, before its first messages land, to L2 and just enough voters of C2 for a majority
//     of C2, against everyone else (L1 among them). Where C1 and C2 have disjoint majorities, a core that
//     accepts C2 there lets both sides elect; the correct core refuses C2 and must stay clean.
// Its own PRNG stream (forked after everything else), so the default schedule draws exactly as before.

import type { NodeId } from '../../src/raft/types.js';
import type { Prng } from './prng.js';

export type MembershipSchedule = 'default' | 'nemesis';
export const MEMBERSHIP_SCHEDULES: readonly MembershipSchedule[] = ['default', 'nemesis'];

/** Chance that a leader is cut off right after it appended a change, and that the next leader's change shifts it. */
const CUT_RATE = 0.5;
const SHIFT_RATE = 0.9;
/** How long each partition holds, in steps (a few election timeouts: long enough for each side to elect). */
const HOLD_STEPS: readonly [number, number] = [30, 120];

export interface NemesisWorld {
  /** Ids of the nodes taking part. */
  ids(): NodeId[];
  /** Replace any partition by the cuts between these sides, for `steps` steps; false once the run is calm. */
  split(kind: string, a: readonly NodeId[], b: readonly NodeId[], steps: number): boolean;
}

export class ConfNemesis {
  /** The leader move 1 cut off, while move 2 has not followed. */
  private cutOff: NodeId | undefined;
  cuts = 0;
  shifts = 0;

  constructor(
    private readonly prng: Prng,
    private readonly world: NemesisWorld,
  ) {}

  /** Move 1: `leader` appended a change; `oldVoters` are the voters before it. Its side: itself and, each at even odds,
   *  the nodes that are not old voters (a promoted learner or a spare hear C1; the old voters left can still elect). */
  appended(leader: NodeId, oldVoters: readonly NodeId[]): void {
    if (!this.prng.chance(CUT_RATE)) return;
    const ids = this.world.ids();
    const side = [leader, ...ids.filter((id) => id !== leader && !oldVoters.includes(id) && this.prng.chance(0.5))];
    if (this.split('cut-changing-leader', side, ids)) {
      this.cutOff = leader;
      this.cuts++;
    }
  }

  /** Move 2: `leader` was just elected while move 1's leader is cut off, and asks for a change to `newVoters` at once. */
  electedWithChange(leader: NodeId, newVoters: readonly NodeId[]): void {
    const first = this.cutOff;
    if (first === undefined || first === leader) return;
    this.cutOff = undefined;
    if (!this.prng.chance(SHIFT_RATE) || !newVoters.includes(leader)) return;
    const others = this.prng.shuffle(newVoters.filter((id) => id !== leader && id !== first));
    const side = [leader, ...others.slice(0, Math.floor(newVoters.length / 2))];
    if (this.split('shift-to-new-leader', side, this.world.ids())) this.shifts++;
  }

  private split(kind: string, side: NodeId[], ids: readonly NodeId[]): boolean {
    const rest = ids.filter((id) => !side.includes(id));
    return this.world.split(kind, side, rest, this.prng.range(HOLD_STEPS[0], HOLD_STEPS[1]));
  }
}
