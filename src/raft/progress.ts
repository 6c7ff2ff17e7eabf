// The leader's view of one follower's log, and the flow control that paces App messages to it:
//   probe      — we do not know where its log ends: one App at a time until it answers;
//   replicate  — steady state: optimistic pipelining, bounded by a window of in-flight messages;
//   snapshot   — it is too far behind: a snapshot is on its way, send nothing else.
import type { ProgressView } from './types.js';

/** Last indexes of App messages sent but not yet acknowledged, oldest first. */
export class Inflights {
  private readonly lasts: number[] = [];
  constructor(private readonly capacity: number) {}

  add(last: number): void {
    if (this.full()) throw new Error(`inflights: window of ${this.capacity} is full`);
    this.lasts.push(last);
  }

  /** Everything up to `index` was acknowledged. */
  freeLE(index: number): void {
    let n = 0;
    while (n < this.lasts.length && this.lasts[n] <= index) n++;
    this.lasts.splice(0, n);
  }

  full(): boolean {
    return this.lasts.length >= this.capacity;
  }

  count(): number {
    return this.lasts.length;
  }

  reset(): void {
    this.lasts.length = 0;
  }
}

export class Progress {
  state: ProgressView['state'] = 'probe';
  /**
   * Sending is paused: in probe, an App is out and unanswered; in replicate, the in-flight window
   * is full. A heartbeat response lifts the pause for one App (an empty one if the window is full),
   * which the follower acks or rejects: either way the flow resumes, without dropping to probe.
   */
  paused = false;
  pendingSnapshot = 0;
  /** Ticks since the snapshot was sent: a lost snapshot must not stall the follower forever. */
  snapshotTicks = 0;
  /**
   * Highest index this leader has offered the follower in this term: the last entry of any App
   * (its previous index if empty) or a snapshot's index. A correct follower's AppResp never claims
   * a match past it. It only grows: a delayed App may still be acked after the leader backed off.
   */
  highestSent = 0;
  /** Its match when its last HeartbeatResp came: unchanged by the next one means no ack arrived in between. */
  heartbeatMatch = 0;
  /** Heard from since the last CheckQuorum round. */
  recentActive = false;
  readonly inflights: Inflights;

  constructor(
    public match: number,
    public next: number,
    maxInflight: number,
  ) {
    this.inflights = new Inflights(maxInflight);
  }

  becomeProbe(): void {
    // After a snapshot we know at least that much reached it (or will): probe right after it.
    this.next = this.state === 'snapshot' ? Math.max(this.match + 1, this.pendingSnapshot + 1) : this.match + 1;
    this.state = 'probe';
    this.paused = false;
    this.pendingSnapshot = 0;
    this.inflights.reset();
  }

  becomeReplicate(): void {
    this.state = 'replicate';
    this.next = this.match + 1;
    this.paused = false;
    this.pendingSnapshot = 0;
    this.inflights.reset();
  }

  becomeSnapshot(snapshotIndex: number): void {
    this.state = 'snapshot';
    this.pendingSnapshot = snapshotIndex;
    this.snapshotTicks = 0;
    this.paused = false;
    this.inflights.reset();
  }

  /** An App went out; `last` is its last entry's index (undefined if it carried none). */
  sentApp(last: number | undefined): void {
    if (this.state === 'replicate') {
      if (last !== undefined) {
        this.next = last + 1;
        this.inflights.add(last);
      }
      this.paused = this.inflights.full();
    } else {
      this.paused = true; // probe: one at a time until it answers
    }
  }

  /** An acknowledgment up to n arrived; returns false if it was stale. */
  maybeUpdate(n: number): boolean {
    let updated = false;
    if (this.match < n) {
      this.match = n;
      updated = true;
      this.paused = false;
    }
    this.next = Math.max(this.next, n + 1);
    return updated;
  }

  /**
   * The follower rejected an App whose previous index was `rejected`; `matchHint` is where its
   * log may match. Returns false when the rejection is stale (answers an older message).
   */
  maybeDecrTo(rejected: number, matchHint: number): boolean {
    if (this.state === 'replicate') {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, matchHint + 1), this.match + 1);
    this.paused = false;
    return true;
  }

  isPaused(): boolean {
    switch (this.state) {
      case 'probe':
      case 'replicate':
        return this.paused;
      case 'snapshot':
        return true;
    }
  }

  view(): ProgressView {
    return { match: this.match, next: this.next, state: this.state, recentActive: this.recentActive, inflight: this.inflights.count() };
  }
}
