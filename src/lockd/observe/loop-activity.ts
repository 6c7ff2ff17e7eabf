// What held the event loop: the loop's big tasks (a Raft Ready batch, a stream's open or teardown,
// a snapshot, a Session batch, a forwarded call...) run under a label, and the longest labelled
// task since the stall watchdog's last turn is kept. A stall is only seen after the fact (the
// watchdog's timer ran late), so "what ran" is the longest task of the starved interval, not what
// runs when the watchdog finally does. Many short tasks can hold it too (a thousand streams torn
// down in one turn), so the label with the most time in all is kept as well. One per process:
// there is one event loop. Cost: two performance.now() calls and a Map update per task.
import { performance } from 'node:perf_hooks';

export interface LongestTask {
  readonly label: string;
  readonly ms: number;
}

export interface Activity {
  /** The longest single labelled task. */
  readonly longest: LongestTask;
  /** The label with the most time in all, and how many tasks ran under it. */
  readonly busiest: LongestTask & { readonly count: number };
}

class LoopActivity {
  private current = '';
  private longestLabel = '';
  private longestMs = 0;
  private readonly totals = new Map<string, { ms: number; count: number }>();

  /** The label of the task running now ('' between tasks). */
  get now(): string {
    return this.current;
  }

  /** Run `fn` labelled `label` (nested: the outer label is restored, and both are timed). */
  run<T>(label: string, fn: () => T): T {
    const outer = this.current;
    this.current = label;
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      const ms = performance.now() - t0;
      this.current = outer;
      const t = this.totals.get(label);
      if (t) {
        t.ms += ms;
        t.count++;
      } else this.totals.set(label, { ms, count: 1 });
      if (ms > this.longestMs) {
        this.longestMs = ms;
        this.longestLabel = label;
      }
    }
  }

  /** `fn` wrapped to run labelled (for a callback handed to a timer, stream or promise). */
  wrap<A extends unknown[], T>(label: string, fn: (...args: A) => T): (...args: A) => T {
    return (...args: A) => this.run(label, () => fn(...args));
  }

  /** What ran since the last call, and start a new interval. */
  take(): Activity {
    const longest = { label: this.longestLabel, ms: this.longestMs };
    let busiest = { label: '', ms: 0, count: 0 };
    for (const [label, t] of this.totals) if (t.ms > busiest.ms) busiest = { label, ...t };
    this.longestLabel = '';
    this.longestMs = 0;
    this.totals.clear();
    return { longest, busiest };
  }
}

export const loopActivity = new LoopActivity();
