// ReadIndex (Raft thesis §6.4): a read request remembers the commit index at arrival; once a
// quorum acknowledges a heartbeat sent after it, this leader was still the leader then, so a
// read served at applied ≥ that index is linearizable. A later ack confirms every earlier request.
import type { NodeId, ReadState } from './types.js';

interface PendingRead {
  readonly index: number;
  readonly context: string;
  readonly acks: Set<NodeId>;
}

export class ReadOnlyQueue {
  private readonly pending = new Map<string, PendingRead>();
  private readonly order: string[] = [];

  /** `self`: the leader, when it is a voter (its ack is the asking itself). */
  add(index: number, context: string, self: NodeId | undefined): void {
    if (this.pending.has(context)) return; // a duplicate context would be ambiguous; keep the first
    this.pending.set(context, { index, context, acks: new Set(self === undefined ? [] : [self]) });
    this.order.push(context);
  }

  /** Record an ack; returns the number of voters that have acknowledged `context` so far. */
  recvAck(from: NodeId, context: string): number {
    const p = this.pending.get(context);
    if (!p) return 0;
    p.acks.add(from);
    return p.acks.size;
  }

  /** Release `context` and every request queued before it. */
  advance(context: string): ReadState[] {
    const at = this.order.indexOf(context);
    if (at < 0) return [];
    const released = this.order.splice(0, at + 1);
    return released.map((ctx) => {
      const p = this.pending.get(ctx)!;
      this.pending.delete(ctx);
      return { index: p.index, context: ctx };
    });
  }

  lastPendingContext(): string {
    return this.order.length ? this.order[this.order.length - 1] : '';
  }

  clear(): void {
    this.pending.clear();
    this.order.length = 0;
  }
}
