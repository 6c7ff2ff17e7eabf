// Leader flapping (swarm schedule, some seeds): the link of whichever node leads drops right after it did local
// work — appended a client entry, won an election, advanced its commit index — and comes back when the next
// leader's link drops. One node is cut off at a time, so each cut heals the one before: the deposed leader
// returns, with its unreplicated tail, while the new one is away with its own. Repeated, that leaves divergent
// uncommitted tails of different terms on different nodes and brings their holders back to compete: Raft fig. 8
// (fig8.test.ts scripts one round of it), and the stale tails a snapshot can meet on a follower. A real cluster
// sees it as a leader whose network card or top-of-rack switch flaps under load. The seed decides whether a run
// has it and at what rates; its draws come from a stream split off the swarm's, so no other draw of a seed moves.

import type { NodeId } from '../../src/raft/types.js';
import type { Prng } from './prng.js';

export interface FlapMix {
  /** Chance that a leader is cut off right as it appended a client entry (before the entry reached anyone). */
  readonly onAppend: number;
  /** Chance that a new leader is cut off at its first Ready (its no-op unsent), healing the node cut before it. */
  readonly onElect: number;
  /** Chance that a leader is cut off right as its commit index advanced (before it told anyone). */
  readonly onCommit: number;
  /** How long a cut holds at most, in election timeouts (the next cut usually ends it first). */
  readonly holdTimeouts: readonly [number, number];
  /** Whether a cut may come 1-3 steps after its event (half the cuts) rather than at once (nothing of the batch out). */
  readonly delayed: boolean;
  /** Node settings for the run: one entry per message (old entries then travel without the new leader's no-op),
   *  and snapshots every few entries, answered to a rejection (a returning node meets them with its stale tail). */
  readonly oneEntryPerMsg: boolean;
  readonly snapshotEvery: number | undefined;
}

/** Share of swarm seeds with leader flapping. */
const FLAP_SHARE = 0.6;

export function drawFlap(prng: Prng): FlapMix | undefined {
  if (!prng.chance(FLAP_SHARE)) return undefined;
  return {
    onAppend: prng.pick([0.05, 0.3]),
    onElect: prng.pick([0.5, 0.6]),
    onCommit: prng.pick([0.6, 0.9, 1]),
    holdTimeouts: prng.pick([
      [2, 6],
      [4, 15],
    ] as const),
    delayed: prng.chance(0.2),
    oneEntryPerMsg: prng.chance(0.8),
    snapshotEvery: prng.chance(0.7) ? prng.pick([1, 2, 4]) : undefined,
  };
}

export function describeFlap(m: FlapMix): string {
  return (
    `leader flap: on append ${m.onAppend}, on election ${m.onElect}, on commit ${m.onCommit}, hold ${m.holdTimeouts.join('-')} timeouts${m.delayed ? ' (some cuts late)' : ''}` +
    `${m.oneEntryPerMsg ? ', one entry per message' : ''}${m.snapshotEvery ? `, snapshot every ${m.snapshotEvery} (sent on reject)` : ''}`
  );
}

export interface FlapWorld {
  ids(): NodeId[];
  electionTicks: number;
  /** Replace any partition by `side` cut off from all others, for `steps` steps; false once the run is calm. */
  isolate(kind: string, side: readonly NodeId[], steps: number): boolean;
}

export class LeaderFlap {
  cuts = 0;
  /** A cut drawn but not yet made: the link drops a few steps after the event (what was sent meanwhile may land). */
  private pending: { kind: string; leader: NodeId; at: number } | undefined;
  /** The side cut off last, and the step its cut ends: a leader already cut off is not cut again (that would only
   *  stretch its cut; a deposed leader that still believes it leads keeps taking entries and commits nothing). */
  private away: { side: readonly NodeId[]; until: number } | undefined;

  constructor(
    readonly mix: FlapMix,
    private readonly prng: Prng,
    private readonly world: FlapWorld,
  ) {}

  appended(leader: NodeId, now: number): void {
    this.maybeCut('flap-on-append', leader, this.mix.onAppend, now);
  }

  elected(leader: NodeId, now: number): void {
    this.maybeCut('flap-on-election', leader, this.mix.onElect, now);
  }

  committed(leader: NodeId, now: number): void {
    this.maybeCut('flap-on-commit', leader, this.mix.onCommit, now);
  }

  /** Make the cut that is due at `step` (called before the step's deliveries). */
  beforeStep(step: number): void {
    const p = this.pending;
    if (!p || p.at > step) return;
    this.pending = undefined;
    this.cut(p.kind, p.leader, step);
  }

  private maybeCut(kind: string, leader: NodeId, rate: number, now: number): void {
    if (this.pending || this.world.ids().length < 2) return;
    if (this.away && this.away.until > now && this.away.side.includes(leader)) return;
    if (!this.prng.chance(rate)) return;
    // At once (nothing of this batch gets out), or in some seeds half the time 1-3 steps later (the quicker messages land).
    const delay = !this.mix.delayed || this.prng.chance(0.5) ? 0 : this.prng.range(1, 3);
    if (delay === 0) this.cut(kind, leader, now);
    else this.pending = { kind, leader, at: now + delay + 1 };
  }

  private cut(kind: string, leader: NodeId, now: number): void {
    const ids = this.world.ids();
    if (!ids.includes(leader)) return;
    // The leader alone, or with a few followers while its side stays a minority (a rack losing its uplink).
    const others = this.prng.shuffle(ids.filter((id) => id !== leader));
    const minority = Math.floor((ids.length - 1) / 2);
    const side = [leader, ...others.slice(0, this.prng.range(0, Math.max(0, minority - 1)))];
    const [lo, hi] = this.mix.holdTimeouts;
    const steps = this.prng.range(lo * this.world.electionTicks, hi * this.world.electionTicks);
    if (!this.world.isolate(kind, side, steps)) return;
    this.cuts++;
    this.away = { side, until: now + steps };
  }
}
