// Sees the event loop stall. A watchdog timer due every WATCH_MS measures how late it ran (and
// perf_hooks' own event-loop delay histogram, reset each turn, catches what falls between); a
// turn later than STALL_MS is logged once, on one line, with what ran meanwhile: the longest
// labelled task of that interval (loop-activity.ts), the queue lengths registered here, and the
// GC pauses a 'gc' PerformanceObserver saw overlapping it. Every turn's delay also goes to
// `onDelay` (metrics.ts: a histogram), so a stall is counted even where no one reads the log.
import { monitorEventLoopDelay, performance, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { loopActivity, type Activity } from './loop-activity.js';

export const WATCH_MS = 50;
/** Turns per `onSecond` report (the dashboard's loop lag). */
const TURNS_PER_REPORT = 1000 / WATCH_MS;
/** A turn this much later than due is a stall worth a log line. */
export const STALL_MS = 200;
/** GC pauses kept to match against a stall (one turn's worth is plenty). */
const GC_KEPT = 64;

export interface Stall {
  readonly ms: number;
  readonly ran: Activity;
  readonly queues: Record<string, number>;
  readonly gcMs: number;
  readonly gcCount: number;
}

export class StallWatch {
  private readonly queues = new Map<string, () => number>();
  private readonly gc: Array<{ start: number; end: number }> = [];
  private readonly eld: IntervalHistogram;
  private readonly gcObserver: PerformanceObserver;
  private readonly timer: NodeJS.Timeout;
  private due: number;
  private maxMs = 0;
  private turns = 0;
  /** Every turn's delay in ms (how late the watchdog ran, or the loop's own worst delay in between). */
  onDelay: ((ms: number) => void) | undefined;
  /** About once a second: the worst delay since the previous report (lockd-node.ts publishes it). */
  onSecond: ((maxMs: number) => void) | undefined;

  constructor(private readonly logger: Logger) {
    this.eld = monitorEventLoopDelay({ resolution: 10 });
    this.eld.enable();
    this.gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        this.gc.push({ start: e.startTime, end: e.startTime + e.duration });
        if (this.gc.length > GC_KEPT) this.gc.shift();
      }
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
    this.due = performance.now() + WATCH_MS;
    this.timer = setInterval(() => this.turn(), WATCH_MS);
    this.timer.unref();
  }

  /** A queue whose length a stall line reports (read only then: it must be cheap). */
  addQueue(name: string, length: () => number): void {
    this.queues.set(name, length);
  }

  /** The worst delay since the last call, in ms (0: none). */
  takeMax(): number {
    const m = this.maxMs;
    this.maxMs = 0;
    return m;
  }

  close(): void {
    clearInterval(this.timer);
    this.eld.disable();
    this.gcObserver.disconnect();
  }

  private turn(): void {
    const now = performance.now();
    const late = Math.max(0, now - this.due);
    // perf_hooks reports ns, and its minimum is its sampling resolution: only what exceeds it is delay.
    const sampled = this.eld.count > 0 ? Math.max(0, this.eld.max / 1e6 - 10) : 0;
    this.eld.reset();
    this.due = now + WATCH_MS;
    const ms = Math.max(late, sampled);
    if (ms > this.maxMs) this.maxMs = ms;
    this.onDelay?.(ms);
    if (++this.turns % TURNS_PER_REPORT === 0) this.onSecond?.(this.takeMax());
    const ran = loopActivity.take();
    if (ms > STALL_MS) this.report({ ms, ran, queues: this.readQueues(), ...this.gcWithin(now - ms - WATCH_MS, now) });
  }

  private readQueues(): Record<string, number> {
    const q: Record<string, number> = {};
    for (const [name, length] of this.queues) {
      try {
        q[name] = length();
      } catch {
        q[name] = -1;
      }
    }
    return q;
  }

  private gcWithin(from: number, to: number): { gcMs: number; gcCount: number } {
    let gcMs = 0;
    let gcCount = 0;
    for (const g of this.gc) {
      const overlap = Math.min(g.end, to) - Math.max(g.start, from);
      if (overlap <= 0) continue;
      gcMs += overlap;
      gcCount++;
    }
    return { gcMs: Math.round(gcMs), gcCount };
  }

  private report(s: Stall): void {
    const { longest, busiest } = s.ran;
    const what = longest.label ? `longest task ${longest.label} (${Math.round(longest.ms)} ms)` : 'no labelled task ran';
    const most =
      busiest.count > 1 && busiest.label !== longest.label ? `; most time in ${busiest.label} (${busiest.count} tasks, ${Math.round(busiest.ms)} ms)` : '';
    const unlabelled = s.ms > 2 * Math.max(longest.ms, busiest.ms) ? '; most of it unlabelled (library callbacks: grpc-js, http2, timers)' : '';
    const gc = s.gcCount > 0 ? `; GC ${s.gcMs} ms in ${s.gcCount} pauses` : '';
    this.logger.warn(
      {
        event: 'loop stall',
        ms: Math.round(s.ms),
        task: longest.label,
        taskMs: Math.round(longest.ms),
        busiest: busiest.label,
        busiestMs: Math.round(busiest.ms),
        busiestCount: busiest.count,
        queues: s.queues,
        gcMs: s.gcMs,
        gcCount: s.gcCount,
      },
      `event loop stalled ${Math.round(s.ms)} ms: ${what}${most}${unlabelled}${gc}`,
    );
  }
}
