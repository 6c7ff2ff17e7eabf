// The whole-node simulator's world: one seeded event queue in simulated milliseconds. Every timer,
// "soon", disk completion and message delivery of every simulated node and client is an event here;
// after each event the promise jobs it started run to completion before the next event (so the
// API layer's async code runs as it would between two macrotasks of a real process), and nothing
// else runs: the same seed gives the same run.
//
// A node's Clock (src/lockd/node/clock.ts) is a NodeClock: its monotonic time is the world's, its
// wall clock the world's plus an offset that faults may step (a node's wall clock is never what
// leases are measured on). A paused node (a GC pause, a stopped VM) runs nothing: its events wait
// until it resumes, then run in their order.
import type { Clock, ClockTimer } from '../../../src/lockd/node/clock.js';

interface Ev {
  readonly at: number;
  readonly seq: number;
  readonly owner: string;
  fn: (() => void) | undefined;
}

/** Runs promise jobs queued so far (and those they queue): a macrotask boundary. */
const drainJobs = (): Promise<void> => new Promise((r) => setImmediate(r));

export class World {
  now = 0;
  private seq = 0;
  private heap: Ev[] = [];
  /** owner → the world time it is paused until. */
  private readonly paused = new Map<string, number>();
  events = 0;
  /** An event of `owner` threw (run.ts reports it and stops that node). */
  crashed: (owner: string, e: Error) => void = (_o, e) => {
    throw e;
  };

  /** Run `fn` at world time `at` for `owner` ('' = the world itself); returns a cancel. */
  at(at: number, owner: string, fn: () => void): () => void {
    const ev: Ev = { at: Math.max(at, this.now), seq: this.seq++, owner, fn };
    this.push(ev);
    return () => {
      ev.fn = undefined;
    };
  }

  pause(owner: string, untilMs: number): void {
    this.paused.set(owner, Math.max(untilMs, this.paused.get(owner) ?? 0));
  }

  isPaused(owner: string): boolean {
    return (this.paused.get(owner) ?? 0) > this.now;
  }

  /** Run events until world time `until` (inclusive); an event's error stops the run (it is thrown). */
  async runUntil(until: number): Promise<void> {
    while (this.heap.length > 0 && this.heap[0].at <= until) {
      const ev = this.pop();
      if (!ev.fn) continue;
      const p = this.paused.get(ev.owner);
      if (p !== undefined && p > ev.at) {
        this.push({ at: p, seq: ev.seq, owner: ev.owner, fn: ev.fn }); // keeps its place among its owner's events
        continue;
      }
      this.now = Math.max(this.now, ev.at);
      this.events++;
      try {
        ev.fn();
      } catch (e) {
        // What a timer or callback throws would end a real process: its owner has crashed.
        this.crashed(ev.owner, e instanceof Error ? e : new Error(String(e)));
      }
      await drainJobs();
    }
    this.now = Math.max(this.now, until);
  }

  private push(ev: Ev): void {
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[p], h[i])) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }

  private pop(): Ev {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}

const less = (a: Ev, b: Ev): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** Epoch the simulated wall clocks start at (any fixed instant: deadlines are epoch ms). */
export const SIM_EPOCH_MS = Date.UTC(2030, 0, 1);

/** One node's (or client's) clock on the world. */
export class NodeClock implements Clock {
  /** Added to the wall clock (faults step it; the monotonic clock never moves with it). */
  wallOffsetMs = 0;

  constructor(
    private readonly world: World,
    readonly owner: string,
  ) {}

  wallMs(): number {
    return SIM_EPOCH_MS + this.world.now + this.wallOffsetMs;
  }

  monoMs(): number {
    return this.world.now;
  }

  after(ms: number, fn: () => void): ClockTimer {
    const cancel = this.world.at(this.world.now + Math.max(0, ms), this.owner, fn);
    const t: ClockTimer = { clear: cancel, unref: () => t };
    return t;
  }

  every(ms: number, fn: () => void): ClockTimer {
    let cancel = (): void => {};
    let stopped = false;
    const arm = () => {
      cancel = this.world.at(this.world.now + ms, this.owner, () => {
        if (stopped) return;
        arm();
        fn();
      });
    };
    arm();
    const t: ClockTimer = {
      clear: () => {
        stopped = true;
        cancel();
      },
      unref: () => t,
    };
    return t;
  }

  soon(fn: () => void): void {
    this.world.at(this.world.now, this.owner, fn);
  }
}
