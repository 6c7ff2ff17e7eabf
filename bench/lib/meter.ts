// What one workload run cost, measured over exactly its window: CPU time (utime+stime from /proc)
// of every server process of the system under test and of this process (the load generator, which
// shares the cores), and the difference of every node's /metrics counters. The workload calls
// attach() with its Window; the meter samples at the window's start and end on timers.
import { performance } from 'node:perf_hooks';
import { cpuTimeMs } from './cpu.js';
import { diffSeries, etcdFigures, lockdFigures, scrapeMetrics, type NodeDelta, type ScrapeTls, type Series } from './counters.js';
import type { Window } from './window.js';

export interface MeteredProcess {
  /** Node id (n1, e2, ...). */
  readonly name: string;
  readonly leader: boolean;
  readonly pid: number;
  /** Its /metrics URL, when it has one. */
  readonly metricsUrl?: string;
}

/** Per lock cycle of one run (ms of CPU; counts). Followers in id order. */
export interface PerCycle {
  readonly cycles: number;
  /** Wall time between the two samples. */
  readonly window_ms: number;
  readonly leader: string;
  readonly followers: readonly string[];
  readonly cpu_leader_ms: number;
  readonly cpu_followers_ms: readonly number[];
  readonly cpu_servers_ms: number;
  readonly cpu_loadgen_ms: number;
  /** Counter figures (counters.ts): msgs_*, disk_*, entries_per_*; undefined when not scraped. */
  readonly counters: Record<string, number | undefined>;
}

interface Sample {
  readonly cpu: number[];
  readonly self: NodeJS.CpuUsage;
  readonly series: Array<Series | undefined>;
  readonly at: number;
}

export class WindowMeter {
  private start: Promise<Sample> | undefined;
  private end: Promise<Sample> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly system: 'lockd' | 'etcd',
    private readonly procs: readonly MeteredProcess[],
    private readonly tls?: ScrapeTls,
    private readonly warn: (line: string) => void = () => {},
  ) {}

  /** The workload's window is known: sample at its start and at its end. Resolves once the start is sampled (never rejects). */
  attach(w: Window): Promise<void> {
    const at = (t: number, fn: () => void) => this.timers.push(setTimeout(fn, Math.max(0, t - performance.now())));
    this.start = new Promise((resolve, reject) => at(w.start, () => this.sample().then(resolve, reject)));
    this.end = new Promise((resolve, reject) => at(w.end, () => this.sample().then(resolve, reject)));
    this.end.catch(() => {}); // read by perCycle; a run that failed before it never asks
    return this.start.then(
      () => {},
      () => {},
    );
  }

  /** The figures of the run, once its window has closed; `cycles`: the cycles (or hand-offs) the window counted. */
  async perCycle(cycles: number): Promise<PerCycle | undefined> {
    if (!this.start || !this.end) return undefined;
    const [a, b] = await Promise.all([this.start, this.end]);
    const n = Math.max(cycles, 0);
    const perC = (ms: number) => (n > 0 ? ms / n : NaN);
    const cpu = this.procs.map((_, k) => b.cpu[k] - a.cpu[k]);
    const deltas: NodeDelta[] = [];
    this.procs.forEach((p, k) => {
      const before = a.series[k];
      const after = b.series[k];
      if (before && after) deltas.push({ name: p.name, leader: p.leader, delta: diffSeries(before, after) });
    });
    const complete = deltas.length === this.procs.length && deltas.length > 0;
    const leaderAt = this.procs.findIndex((p) => p.leader);
    const followers = this.procs
      .map((p, k) => [p, k] as const)
      .filter(([p]) => !p.leader)
      .sort(([x], [y]) => (x.name < y.name ? -1 : 1));
    const self = (b.self.user + b.self.system - a.self.user - a.self.system) / 1000;
    return {
      cycles: n,
      window_ms: b.at - a.at,
      leader: leaderAt >= 0 ? this.procs[leaderAt].name : '',
      followers: followers.map(([p]) => p.name),
      cpu_leader_ms: leaderAt >= 0 ? perC(cpu[leaderAt]) : NaN,
      cpu_followers_ms: followers.map(([, k]) => perC(cpu[k])),
      cpu_servers_ms: perC(cpu.reduce((s, x) => s + x, 0)),
      cpu_loadgen_ms: perC(self),
      counters: complete ? (this.system === 'lockd' ? lockdFigures(deltas, n) : etcdFigures(deltas, n)) : {},
    };
  }

  cancel(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  /**
   * CPU first, exactly at the edge (the interval the cycles were counted in); the counters right
   * after, at both edges alike, so their interval has the window's length, shifted by a scrape.
   */
  private async sample(): Promise<Sample> {
    const cpu = this.procs.map((p) => cpuTimeMs(p.pid));
    const self = process.cpuUsage();
    const at = performance.now();
    const series = await Promise.all(
      this.procs.map((p) =>
        p.metricsUrl
          ? scrapeMetrics(p.metricsUrl, this.tls).catch((e: unknown) => void this.warn(`scrape of ${p.name} failed: ${(e as Error).message}`))
          : undefined,
      ),
    );
    return { cpu, self, series, at };
  }
}
