// The in-process bus of one node's ObservedEvents. Publishing never waits on a subscriber: each
// subscription is a bounded queue, and when it is full the oldest event is dropped and counted, so
// a slow reader (an SSE client on a slow link) loses events and is told how many, while the Raft
// loop that published them runs on. Readers are woken once per event-loop turn (setImmediate), not
// inside the publisher's call: a reader that throws or is slow cannot stall an apply. A queue may
// also be bounded in bytes (approximately, event-size.ts): events differ in size by five orders of
// magnitude (a Tick lists its renewals), so a count alone does not bound what a stalled reader pins.
import type { NodeId } from '../../raft/types.js';
import { approxEventBytes } from './event-size.js';
import type { ObservedBody, ObservedEvent } from './observed-events.js';

export interface Taken {
  readonly events: readonly ObservedEvent[];
  /** Events dropped from this subscription since the previous take (it was full). */
  readonly lost: number;
}

export class Subscription {
  private queue: ObservedEvent[] = [];
  /** sizes[k]: approxEventBytes(queue[k]) (kept only with a byte bound). */
  private sizes: number[] = [];
  private head = 0;
  private lost = 0;
  private woken = false;
  private queued = 0;
  closed = false;

  constructor(
    readonly capacity: number,
    private readonly wake: () => void,
    private readonly unsubscribe: (s: Subscription) => void,
    /** Approximate bytes queued beyond which the oldest are dropped; the newest event is always kept, however big. */
    readonly maxBytes = Infinity,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`subscription capacity must be a positive integer, got ${capacity}`);
    if (!(maxBytes > 0)) throw new RangeError(`subscription byte bound must be positive, got ${maxBytes}`);
  }

  /** Everything queued, oldest first, and how many were dropped before it. */
  take(): Taken {
    const events = this.queue.slice(this.head);
    const lost = this.lost;
    this.queue = [];
    this.sizes = [];
    this.head = 0;
    this.lost = 0;
    this.queued = 0;
    return { events, lost };
  }

  /** Approximate bytes of the events queued (0 without a byte bound). */
  get queuedBytes(): number {
    return this.queued;
  }

  get size(): number {
    return this.queue.length - this.head;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.sizes = [];
    this.head = 0;
    this.queued = 0;
    this.unsubscribe(this);
  }

  /** @internal the bus's side; `bytes`: approxEventBytes(ev), which the bus works out once for every subscription. */
  push(ev: ObservedEvent, bytes: number): void {
    const bounded = this.maxBytes !== Infinity;
    while (this.size > 0 && (this.size >= this.capacity || (bounded && this.queued + bytes > this.maxBytes))) {
      if (bounded) this.queued -= this.sizes[this.head];
      this.head++; // drop the oldest
      this.lost++;
    }
    if (this.head > this.capacity) {
      this.queue = this.queue.slice(this.head);
      if (bounded) this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    this.queue.push(ev);
    if (bounded) {
      this.sizes.push(bytes);
      this.queued += bytes;
    }
    if (this.woken) return;
    this.woken = true;
    setImmediate(() => {
      this.woken = false;
      if (this.closed || (this.size === 0 && this.lost === 0)) return;
      this.wake();
    });
  }
}

export class EventBus {
  private seq = 0;
  private readonly subs = new Set<Subscription>();

  constructor(
    readonly node: NodeId,
    /** The node's current term, stamped on every event. */
    private readonly term: () => number,
  ) {}

  publish(body: ObservedBody): void {
    const ev = { seq: ++this.seq, at: Date.now(), node: this.node, term: this.term(), ...body } as ObservedEvent;
    if (this.subs.size === 0) return;
    const bytes = approxEventBytes(ev);
    for (const s of this.subs) s.push(ev, bytes);
  }

  /**
   * A bounded subscription: `wake` is called (on a later turn) when events are waiting; call take().
   * A reader that stops taking loses the oldest events beyond `capacity`, or beyond about `maxBytes`.
   */
  subscribe(capacity: number, wake: () => void, maxBytes = Infinity): Subscription {
    const s = new Subscription(capacity, wake, (x) => this.subs.delete(x), maxBytes);
    this.subs.add(s);
    return s;
  }

  /** Sequence number of the last event published (0: none yet). */
  get lastSeq(): number {
    return this.seq;
  }

  get subscribers(): number {
    return this.subs.size;
  }
}
