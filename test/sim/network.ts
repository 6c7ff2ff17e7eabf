// The simulated network: per-message drops, delays (delivery after k steps), duplicates and reordering,
// plus directed link cuts, from which every partition shape is built (see faults.ts).

import type { Message, NodeId } from '../../src/raft/types.js';
import type { Prng } from './prng.js';

export interface NetworkConditions {
  /** Probability that a sent message is lost. */
  readonly dropRate: number;
  /** Probability that a sent message is delivered twice (each copy with its own delay). */
  readonly dupRate: number;
  /** Delivery delay in steps, uniform in [minDelay, maxDelay]; minDelay >= 1. */
  readonly minDelay: number;
  readonly maxDelay: number;
  /** Probability that a message is held back much longer (up to longDelayMax steps): strong reordering. */
  readonly longDelayRate: number;
  readonly longDelayMax: number;
  /** Shuffle messages that fall due in the same step. */
  readonly reorder: boolean;
}

export const HEALTHY: NetworkConditions = {
  dropRate: 0,
  dupRate: 0,
  minDelay: 1,
  maxDelay: 2,
  longDelayRate: 0,
  longDelayMax: 0,
  reorder: false,
};

export class Network {
  conditions: NetworkConditions = HEALTHY;
  /** cut[from][to]: messages from → to are lost. */
  private readonly cut: boolean[][];
  private readonly index = new Map<NodeId, number>();
  private readonly due = new Map<number, Message[]>();
  private pending = 0;
  /** Every message sent (swarm schedule: replayed later, from any term); off unless asked for (costs memory). */
  private history: Message[] | undefined;
  /** Messages delivered again by replay(): the runner reports no snapshot outcome for them. */
  readonly replayed = new WeakSet<Message>();

  constructor(
    readonly ids: readonly NodeId[],
    private readonly prng: Prng,
  ) {
    ids.forEach((id, i) => this.index.set(id, i));
    this.cut = ids.map(() => ids.map(() => false));
  }

  private idx(id: NodeId): number {
    const i = this.index.get(id);
    if (i === undefined) throw new Error(`network: unknown node ${JSON.stringify(id)}`);
    return i;
  }

  /** Can a message from → to get through right now? */
  linked(from: NodeId, to: NodeId): boolean {
    return !this.cut[this.idx(from)][this.idx(to)];
  }

  /** Replace all link cuts with `links` (directed pairs). */
  setCuts(links: Iterable<readonly [NodeId, NodeId]>): void {
    for (const row of this.cut) row.fill(false);
    for (const [from, to] of links) this.cut[this.idx(from)][this.idx(to)] = true;
  }

  heal(): void {
    this.setCuts([]);
  }

  /** Describe the current cuts, e.g. "n1>n2 n2>n1", or "none". */
  describeCuts(): string {
    const parts: string[] = [];
    this.ids.forEach((a, i) => this.ids.forEach((b, j) => this.cut[i][j] && parts.push(`${a}>${b}`)));
    return parts.length ? parts.join(' ') : 'none';
  }

  keepHistory(): void {
    this.history ??= [];
  }

  /** Deliver again, next step, a message sent at any earlier time (typically many terms back); undefined if none. */
  replay(now: number): Message | undefined {
    const h = this.history;
    if (!h || h.length === 0) return undefined;
    const m = { ...h[this.prng.int(h.length)] };
    this.replayed.add(m);
    this.enqueue(m, now + 1);
    return m;
  }

  /** Queue `m` for delivery; returns how many copies were queued (0 = dropped at send). */
  send(m: Message, now: number): number {
    if (this.history) {
      // Bounded: keep a spread over the whole run (replace a random old one once full).
      if (this.history.length < 4096) this.history.push(m);
      else this.history[this.prng.int(4096)] = m;
    }
    if (!this.linked(m.from, m.to) || this.prng.chance(this.conditions.dropRate)) return 0;
    const copies = this.prng.chance(this.conditions.dupRate) ? 2 : 1;
    for (let k = 0; k < copies; k++) this.enqueue(m, now + this.delay());
    return copies;
  }

  /** Remove and return the messages due at `now` (link cuts are applied by the caller at delivery). */
  takeDue(now: number): Message[] {
    const batch = this.due.get(now);
    if (!batch) return [];
    this.due.delete(now);
    this.pending -= batch.length;
    if (this.conditions.reorder) this.prng.shuffle(batch);
    return batch;
  }

  inFlight(): number {
    return this.pending;
  }

  /** The step by which every message queued so far has been delivered (or `now` if none is queued). */
  drainedBy(now: number): number {
    let last = now;
    for (const at of this.due.keys()) if (at > last) last = at;
    return last;
  }

  private delay(): number {
    const c = this.conditions;
    if (c.longDelayMax > c.maxDelay && this.prng.chance(c.longDelayRate)) return this.prng.range(c.maxDelay + 1, c.longDelayMax);
    return this.prng.range(c.minDelay, c.maxDelay);
  }

  private enqueue(m: Message, at: number): void {
    let batch = this.due.get(at);
    if (!batch) this.due.set(at, (batch = []));
    batch.push(m);
    this.pending++;
  }
}
