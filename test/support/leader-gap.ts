// Watches a cluster for leader-less time. Every node is polled on its own loop (Cluster.Status,
// then a pause of `everyMs`), so a slow or restarting node does not slow the others' samples. A
// sample that answers role=leader marks a LEADERSHIP: (node, term). A node leads one term in one
// unbroken stretch (it can win a term once, and never leads it again after stepping down), so two
// samples of one leadership prove a leader throughout the time between them: a slow answer (a
// CPU-starved machine) is not a gap. A gap runs from the SEND time of the last sample of one
// leadership to the ANSWER time of the first sample of the next: each was leader at some instant of
// its sample's round trip, so this over-states the real gap (by up to two round trips plus
// `everyMs`) and never under-states it.
import type { ProcessCluster } from './process-cluster.js';

export interface LeaderGaps {
  /** Longest leader-less stretch (ms), measured as above. */
  readonly longestMs: number;
  /** When it began and ended (Date.now()), and the leaderships ("term/node") on either side. */
  readonly worst: { readonly from: number; readonly to: number; readonly before: string; readonly after: string } | undefined;
  /** Leaderships seen. */
  readonly leaderships: number;
  /** Samples that saw a leader. */
  readonly leaderSamples: number;
}

interface Sample {
  readonly sent: number;
  readonly answered: number;
  readonly node: string;
  readonly term: number;
}

export class LeaderGapMonitor {
  private stopped = false;
  private readonly samples: Sample[] = [];
  private readonly loops: Promise<void>[];

  constructor(
    private readonly cluster: ProcessCluster,
    private readonly everyMs = 10,
  ) {
    this.loops = cluster.nodes.map((n) => this.poll(n.id));
  }

  private async poll(id: string): Promise<void> {
    while (!this.stopped) {
      if (this.cluster.isRunning(id)) {
        const sent = Date.now();
        const st = await this.cluster.status(id, 500).catch(() => undefined);
        if (st?.role === 'leader') this.samples.push({ sent, answered: Date.now(), node: id, term: st.term });
      }
      await new Promise((r) => setTimeout(r, this.everyMs));
    }
  }

  get result(): LeaderGaps {
    // Each leadership's first answer and last send, in the order they began.
    const spans = new Map<string, { node: string; firstAnswered: number; lastSent: number }>();
    for (const s of this.samples) {
      const key = `${s.term}/${s.node}`;
      const sp = spans.get(key);
      if (!sp) spans.set(key, { node: key, firstAnswered: s.answered, lastSent: s.sent });
      else {
        sp.firstAnswered = Math.min(sp.firstAnswered, s.answered);
        sp.lastSent = Math.max(sp.lastSent, s.sent);
      }
    }
    const ordered = [...spans.values()].sort((a, b) => a.firstAnswered - b.firstAnswered);
    let longestMs = 0;
    let worst: LeaderGaps['worst'];
    for (let k = 1; k < ordered.length; k++) {
      const before = ordered[k - 1];
      const after = ordered[k];
      const ms = after.firstAnswered - before.lastSent;
      if (ms > longestMs) {
        longestMs = ms;
        worst = { from: before.lastSent, to: after.firstAnswered, before: before.node, after: after.node };
      }
    }
    return { longestMs, worst, leaderships: ordered.length, leaderSamples: this.samples.length };
  }

  async stop(): Promise<LeaderGaps> {
    this.stopped = true;
    await Promise.all(this.loops);
    return this.result;
  }
}
