// Watches a cluster for leader-less time: every `everyMs` it asks Cluster.Status of every running
// node at once (one round) and notes whether any answered role=leader. A gap is the time from the
// last round that saw a leader to the next one that does, so a measured gap over-states the real
// one by up to one round (everyMs plus the round's own duration) — never under-states it.
import type { ProcessCluster } from './process-cluster.js';

export interface LeaderGaps {
  /** Longest leader-less stretch seen so far (ms). */
  readonly longestMs: number;
  /** Every gap longer than one round, with when it started (Date.now()). */
  readonly gaps: ReadonlyArray<{ readonly at: number; readonly ms: number }>;
  /** Rounds taken. */
  readonly rounds: number;
}

export class LeaderGapMonitor {
  private stopped = false;
  private lastSeen: number | undefined;
  private longest = 0;
  private readonly found: Array<{ at: number; ms: number }> = [];
  private count = 0;
  private readonly loop: Promise<void>;

  constructor(
    private readonly cluster: ProcessCluster,
    private readonly everyMs = 10,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const sts = await this.cluster.statuses();
      const now = Date.now();
      this.count++;
      if (sts.some((s) => s.role === 'leader')) {
        if (this.lastSeen !== undefined) {
          const ms = now - this.lastSeen;
          if (ms > this.longest) this.longest = ms;
          if (ms > 2 * this.everyMs + 50) this.found.push({ at: this.lastSeen, ms });
        }
        this.lastSeen = now;
      }
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
  }

  /** The gaps so far; a stretch without a leader still open at the call counts up to now. */
  get result(): LeaderGaps {
    const open = this.lastSeen === undefined ? 0 : Date.now() - this.lastSeen;
    return { longestMs: Math.max(this.longest, open), gaps: [...this.found], rounds: this.count };
  }

  async stop(): Promise<LeaderGaps> {
    this.stopped = true;
    await this.loop;
    return this.result;
  }
}
