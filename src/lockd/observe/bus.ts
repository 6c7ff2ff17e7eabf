// The in-process bus of one node's ObservedEvents. Publishing never waits on a subscriber: each
// subscription is a bounded queue, and when it is full the oldest event is dropped and counted, so
// a slow reader (an SSE client on a slow link) loses events and is told how many, while the Raft
// loop that published them runs on. Readers are woken once per event-loop turn (setImmediate), not
// inside the publisher's call: a reader that throws or is slow cannot stall an apply.
import type { NodeId } from '../../raft/types.js';
import type { ObservedBody, ObservedEvent } from './events.js';

export interface Taken {
  readonly events: readonly ObservedEvent[];
  /** Events dropped from this subscription since the previous take (it was full). */
  readonly lost: number;
}

export class Subscription {
  private queue: ObservedEvent[] = [];
  private head = 0;
  private lost = 0;
  private woken = false;
  closed = false;

  constructor(
    readonly capacity: number,
    private readonly wake: () => void,
    private readonly unsubscribe: (s: Subscription) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`subscription capacity must be a positive integer, got ${capacity}`);
  }

  /** Everything queued, oldest first, and how many were dropped before it. */
  take(): Taken {
    const events = this.queue.slice(this.head);
    const lost = this.lost;
    this.queue = [];
    this.head = 0;
    this.lost = 0;
    return { events, lost };
  }

  get size(): number {
    return this.queue.length - this.head;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.head = 0;
    this.unsubscribe(this);
  }

  /** @internal the bus's side. */
  push(ev: ObservedEvent): void {
    if (this.size >= this.capacity) {
      this.head++; // drop the oldest
      this.lost++;
      if (this.head > this.capacity) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    }
    this.queue.push(ev);
    if (this.woken) return;
    this.woken = true;
    setImmediate(() => {
      this.woken = false;
      if (this.closed || this.size === 0 && this.lost === 0) return;
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
    for (const s of this.subs) s.push(ev);
  }

  /**
   * A bounded subscription: `wake` is called (on a later turn) when events are waiting; call take().
   * A reader that stops taking loses the oldest events beyond `capacity`.
   */
  subscribe(capacity: number, wake: () => void): Subscription {
    const s = new Subscription(capacity, wake, (x) => this.subs.delete(x));
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
