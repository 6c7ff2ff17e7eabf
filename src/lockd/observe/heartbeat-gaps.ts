// The gap between consecutive heartbeats this node, as leader, sends each peer, measured when the
// Raft loop hands them to the transport. A leader whose loop is held sends none: the gap is what
// its followers wait, and one over the election timeout makes them campaign. Only gaps within one
// term count (a new leadership starts afresh). Hot path: one Map lookup per heartbeat.
import { performance } from 'node:perf_hooks';
import type { NodeId } from '../../raft/types.js';

export class HeartbeatGaps {
  private readonly last = new Map<NodeId, { at: number; term: number }>();
  private maxMs = 0;
  /** Called with every gap measured (metrics.ts observes it into a histogram). */
  onGap: ((ms: number, peer: NodeId) => void) | undefined;

  /** A heartbeat to `peer` in `term` is being sent now. */
  sent(peer: NodeId, term: number): void {
    const now = performance.now();
    const prev = this.last.get(peer);
    if (!prev) {
      this.last.set(peer, { at: now, term });
      return;
    }
    if (prev.term === term) {
      const ms = now - prev.at;
      if (ms > this.maxMs) this.maxMs = ms;
      this.onGap?.(ms, peer);
    }
    prev.at = now;
    prev.term = term;
  }

  /** The longest gap since the last call (0: none measured). */
  takeMax(): number {
    const m = this.maxMs;
    this.maxMs = 0;
    return m;
  }
}
