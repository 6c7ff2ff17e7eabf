// The fig. 8 nemesis (every swarm seed of 2+ voters): Raft paper fig. 8 (fig8.test.ts scripts it) played by the world.
//  1. a leader A is cut off right as it appended a client entry or advanced its commit index (its tail, and a commit
//     the others have not heard, go nowhere);
//  2. the next leader B, elected without A's tail, is cut off at its first Ready (its no-op unsent: a tail of a later
//     term at the same indexes), which heals A; A, whose log is the longest of the rest, is asked to campaign;
//  3. A wins; in some seeds B is let back at once (its stale tail meets A's probe, and a snapshot sent on the
//     rejection: the snapshot fast-forward), else it stays away;
//  4. (in any seed, however the setting came about, e.g. by leader flapping) a leader L of term T has carried entries
//     of an older term to a majority (its quorum match is past every commit known at its election, and the entry
//     there is not of term T: its own no-op has not reached a majority), while a node M holds in that range an
//     entry of a term between: L is cut off right then and M is asked to campaign. M's log is more up to date than
//     those whose last entries are L's old ones, so it can win and replace them. A correct core never counted them
//     committed; one that commits an older term's entry by counting replicas loses a committed entry.
// Moves 1-3 only in seeds without leader flapping (the two would fight over the partition). Nothing here knows of a
// planted bug: it reads the leader's progress and the nodes' logs, as the conf nemesis reads the changes. Its draws
// come from a stream split off the swarm's, so no other draw of a seed moves.

import { committedIndex, quorumSize } from '../../src/raft/quorum.js';
import type { NodeId, Status } from '../../src/raft/types.js';
import type { Prng } from './prng.js';
import type { TraceArg } from './trace.js';

export interface Fig8Mix {
  /** Whether the nemesis plays moves 1-3 itself (seeds without leader flapping) or only watches for the setting. */
  readonly play: boolean;
  /** Chance that move 4 is played when the setting is seen (once per leader term): 1 (0.5 and 0.7 caught less). */
  readonly rate: number;
  /** How long L stays cut off, in election timeouts. */
  readonly holdTimeouts: readonly [number, number];
  /** M campaigns again every this many steps while no leader of a later term than L's is elected (a vote it asks
   *  for while the others still hear L, or still count L's lease under CheckQuorum, is refused). */
  readonly campaignEvery: number;
  /** Chance that a leader is cut off right as it appended a client entry (move 1), when no play is under way. */
  readonly onAppend: number;
  /** The same right as its commit index advanced (before it told anyone: the others' commit lags its snapshot). */
  readonly onCommit: number;
  /** Chance that, once the first leader won again (move 3), the second is let back at once (its stale tail then meets
   *  the leader's probe, and a snapshot sent on the rejection) instead of staying away for move 4. */
  readonly healRival: number;
  /** Node settings for the run: one entry per message (a probe then carries an old entry without the new leader's
   *  own), and snapshots every few entries, sent on a rejection (a returning rival meets them with its stale tail). */
  readonly snapshotEvery: number | undefined;
}

export function drawFig8(prng: Prng, play: boolean): Fig8Mix {
  return {
    play,
    rate: 1,
    holdTimeouts: prng.pick([
      [2, 4],
      [3, 8],
    ] as const),
    campaignEvery: prng.pick([3, 6]),
    onAppend: prng.pick([0.2, 0.5]),
    onCommit: prng.pick([0.3, 0.5]),
    healRival: prng.pick([0.3, 0.6]),
    snapshotEvery: prng.chance(0.7) ? prng.pick([1, 1, 2]) : undefined,
  };
}

export function describeFig8(m: Fig8Mix): string {
  const moves = m.play
    ? `, cut on append ${m.onAppend}, on commit ${m.onCommit}, rival back ${m.healRival}${m.snapshotEvery ? `, one entry per message, snapshot every ${m.snapshotEvery} (sent on reject)` : ', one entry per message'}`
    : ' (watching only)';
  return `fig. 8 nemesis: rate ${m.rate}, hold ${m.holdTimeouts.join('-')} timeouts, campaign every ${m.campaignEvery}${moves}`;
}

export interface Fig8Node {
  readonly id: NodeId;
  /** Up and not paused: it takes part in this step. */
  active(): boolean;
  /** Its status, if it runs. */
  status(): Status | undefined;
  /** The term of its (written) log at index i, undefined if it holds none there. */
  termAt(i: number): number | undefined;
  /** The index its (written) log ends at. */
  lastIndex(): number;
  campaign(): void;
}

export interface Fig8World {
  nodes(): readonly Fig8Node[];
  electionTicks: number;
  /** Replace any partition by `side` cut off from all others, for `steps` steps; false once the run is calm. */
  isolate(kind: string, side: readonly NodeId[], steps: number): boolean;
  /** Trace an event. */
  event(kind: string, ...args: TraceArg[]): void;
}

export class Fig8Nemesis {
  cuts = 0;
  /** Per leader term: the highest commit index any node knew when that leader was first seen. */
  private readonly electedCommit = new Map<number, number>();
  /** Terms whose setting was judged (played or not): once per term. */
  private readonly judged = new Set<number>();
  /** The play under way: after move 1, the leader cut off with its unsent tail; after move 2, also the next one. */
  private play: { tail: NodeId; term: number; rival?: NodeId } | undefined;
  /** A node asked to campaign, until a leader of a later term than `term` appears or `until` passes. */
  private contender: { id: NodeId; term: number; from: number; until: number } | undefined;

  constructor(
    readonly mix: Fig8Mix,
    private readonly prng: Prng,
    private readonly world: Fig8World,
  ) {}

  /** Move 1: `leader` of `term` appended a client entry: cut it off before the entry gets out (its tail). */
  appended(leader: NodeId, term: number): void {
    this.startPlay(leader, term, this.mix.onAppend);
  }

  /** Move 1, the other trigger: `leader`'s commit index advanced; the others hear of it only with its next App. */
  committed(leader: NodeId, term: number): void {
    this.startPlay(leader, term, this.mix.onCommit);
  }

  private startPlay(leader: NodeId, term: number, rate: number): void {
    if (!this.mix.play || this.play || !this.prng.chance(rate)) return;
    if (this.cut('fig8-cut-tail', leader, [3, 6])) this.play = { tail: leader, term };
  }

  /** Move 2: the next leader, elected without the tail, is cut off at its first Ready (its no-op unsent: a tail of a
   *  later term at the same indexes), which heals the first; the first holds the longest log of the rest and is
   *  asked to campaign. Move 3 is its election, after which afterStep watches for the setting. */
  elected(leader: NodeId, term: number, step: number): void {
    const p = this.play;
    if (p && p.rival !== undefined && leader === p.tail && term > p.term) {
      this.play = undefined;
      if (this.prng.chance(this.mix.healRival)) this.world.isolate('fig8-heal-rival', [], 0);
      return;
    }
    if (!p || term <= p.term) return;
    if (leader === p.tail || p.rival !== undefined) {
      this.play = undefined; // move 3 happened (or another node won): the setting is afterStep's to find
      return;
    }
    if (!this.cut('fig8-cut-rival', leader, [3, 6])) {
      this.play = undefined;
      return;
    }
    p.rival = leader;
    this.push(p.tail, term, step);
  }

  /** Called after every step of the faulty phase: move 4 when the setting is there (however it came about). */
  afterStep(step: number): void {
    const nodes = this.world.nodes();
    const statuses = new Map<NodeId, Status>();
    for (const n of nodes) {
      const st = n.active() ? n.status() : undefined;
      if (st) statuses.set(n.id, st);
    }
    this.pushContender(step, nodes, statuses);
    let leader: Fig8Node | undefined;
    let lst: Status | undefined;
    for (const n of nodes) {
      const st = statuses.get(n.id);
      if (st?.role === 'leader' && (!lst || st.term > lst.term)) [leader, lst] = [n, st];
    }
    if (!leader || !lst || this.judged.has(lst.term)) return;
    const T = lst.term;
    if (!this.electedCommit.has(T)) this.electedCommit.set(T, Math.max(0, ...[...statuses.values()].map((s) => s.commit)));
    const base = this.electedCommit.get(T)!;
    const voters = lst.voters;
    if (!voters.every((id) => lst.progress.has(id))) return;
    const mm = committedIndex(voters, (id) => lst.progress.get(id)!.match);
    const tm = leader.termAt(mm);
    if (mm <= base || tm === undefined || tm >= T) return;
    // A node holding, in (base, mm], an entry of a later term than L's there: L's entries will replace it.
    const l = leader;
    const rivals = nodes.filter(
      (n) =>
        n !== l &&
        n.active() &&
        statuses.get(n.id)?.voters.includes(n.id) === true &&
        this.conflictIn(n, l, base + 1, mm, T) &&
        this.canWin(n, l, nodes, voters),
    );
    if (rivals.length === 0) return;
    this.judged.add(T);
    if (!this.prng.chance(this.mix.rate)) return;
    if (!this.cut('fig8-cut-leader', l.id, this.mix.holdTimeouts)) return;
    const m = this.prng.pick(rivals);
    this.world.event('fig8-contender', m.id, l.id, T, mm);
    this.push(m.id, T, step);
  }

  private cut(kind: string, id: NodeId, [lo, hi]: readonly [number, number]): boolean {
    const e = this.world.electionTicks;
    if (!this.world.isolate(kind, [id], this.prng.range(lo * e, hi * e))) return false;
    this.cuts++;
    return true;
  }

  private push(id: NodeId, term: number, step: number): void {
    this.contender = { id, term, from: step, until: step + 3 * this.world.electionTicks };
    this.world
      .nodes()
      .find((n) => n.id === id)
      ?.campaign();
  }

  /** Whether `m`'s written log is at least as up to date as those of a majority of `voters` other than `l`: if the
   *  leader's own entries already reached them (written, not yet acknowledged), cutting it off changes nothing. */
  private canWin(m: Fig8Node, l: Fig8Node, nodes: readonly Fig8Node[], voters: readonly NodeId[]): boolean {
    const last = (n: Fig8Node): [number, number] => [n.termAt(n.lastIndex()) ?? 0, n.lastIndex()];
    const [mt, mi] = last(m);
    const behind = nodes.filter((n) => n !== l && voters.includes(n.id) && ((t, i) => t < mt || (t === mt && i <= mi))(...last(n)));
    return behind.length >= quorumSize(voters.length);
  }

  private conflictIn(n: Fig8Node, l: Fig8Node, from: number, to: number, T: number): boolean {
    for (let i = from; i <= to; i++) {
      const mine = n.termAt(i);
      const theirs = l.termAt(i);
      if (mine !== undefined && theirs !== undefined && mine > theirs && mine < T) return true;
    }
    return false;
  }

  private pushContender(step: number, nodes: readonly Fig8Node[], statuses: ReadonlyMap<NodeId, Status>): void {
    const c = this.contender;
    if (!c) return;
    const later = [...statuses.values()].some((s) => s.role === 'leader' && s.term > c.term);
    if (later || step >= c.until) {
      this.contender = undefined;
      return;
    }
    if ((step - c.from) % this.mix.campaignEvery !== 0) return;
    const m = nodes.find((n) => n.id === c.id);
    if (m?.active() && statuses.get(m.id)?.role !== 'leader') m.campaign();
  }
}
