// The whole-node simulator's network: every message between endpoints (nodes' Raft traffic,
// forwarded calls, clients' calls and streams) is one world event after a drawn delay, lost while
// a partition cuts the pair or by a drawn drop. Messages of one pair may overtake each other
// (Raft tolerates it; a call's request and answer are single messages). A stream's messages keep
// their order (HTTP/2 does): each pair has a stream lane whose deliveries never overtake.
import type { Prng } from '../prng.js';
import type { World } from './world.js';

export interface NetSettings {
  minDelayMs: number;
  maxDelayMs: number;
  /** Chance a message is lost while faults run. */
  drop: number;
}

export class Net {
  /** Pairs "a|b" (sorted) that cannot talk. */
  private readonly cut = new Set<string>();
  /** Whether drops apply (off in calm phases). */
  faulty = true;
  private readonly laneDue = new Map<string, number>();

  constructor(
    private readonly world: World,
    private readonly prng: Prng,
    readonly settings: NetSettings,
  ) {}

  private static key(a: string, b: string): string {
    return a < b ? `${a}|${b}` : `${b}|${a}`;
  }

  partition(a: string, b: string): void {
    this.cut.add(Net.key(a, b));
  }

  heal(): void {
    this.cut.clear();
  }

  connected(a: string, b: string): boolean {
    return !this.cut.has(Net.key(a, b));
  }

  get partitions(): number {
    return this.cut.size;
  }

  private delay(): number {
    return this.prng.range(this.settings.minDelayMs, this.settings.maxDelayMs);
  }

  /**
   * Deliver `fn` at `to` later, unless lost; `lost` runs (at the sender, at once) when it is.
   * A message in flight when a partition starts still arrives (it had left); one sent across a cut is lost.
   */
  send(from: string, to: string, fn: () => void, lost?: () => void): void {
    if (!this.connected(from, to) || (this.faulty && this.prng.chance(this.settings.drop))) {
      lost?.();
      return;
    }
    this.world.at(this.world.now + this.delay(), to, fn);
  }

  /** As send, but in order with every earlier ordered message from `from` to `to`, and never dropped alone: a cut drops it. */
  sendOrdered(from: string, to: string, fn: () => void, lost?: () => void): void {
    if (!this.connected(from, to)) {
      lost?.();
      return;
    }
    const lane = `${from}>${to}`;
    const at = Math.max(this.world.now + this.delay(), this.laneDue.get(lane) ?? 0);
    this.laneDue.set(lane, at);
    this.world.at(at, to, () => {
      if (this.connected(from, to)) fn();
      else lost?.();
    });
  }
}
