// Wakes waiting calls at most WAKES_PER_TURN per event-loop turn, in the order they were queued.
// Why: one applied entry can end a thousand waits at once (a Revoke of a lease with 1024 waiting
// Acquires on one Session, or on as many locks), and each woken call then, in the same turn's
// microtasks, builds its error or answer, serializes it and writes it to its HTTP/2 stream. Done
// all at once that held the leader's loop for most of a second on a loaded 2-core machine, long
// enough for the followers to time out and campaign. Spread over turns, heartbeats and other
// calls run between chunks; an outcome is still recorded at once (Waiter.record), only the wake-up
// is deferred, so nothing that happens meanwhile can change what a queued call is told.

/** Calls woken per turn: each costs well under a millisecond, so a turn stays a few ms long. */
export const WAKES_PER_TURN = 64;

export class WakeQueue {
  /** `soon`: the node's next turn (Clock.soon; setImmediate by default). */
  constructor(private readonly soon: (fn: () => void) => void = (fn) => void setImmediate(fn)) {}

  private queue: Array<() => void> = [];
  private head = 0;
  private woken = 0;
  private armed = false;

  /** Wake now if this turn's budget allows, else in a later turn (order kept). */
  push(wake: () => void): void {
    this.queue.push(wake);
    this.drain();
  }

  /** Calls queued and not yet woken (status, tests). */
  get length(): number {
    return this.queue.length - this.head;
  }

  private drain(): void {
    while (this.woken < WAKES_PER_TURN && this.head < this.queue.length) {
      const wake = this.queue[this.head];
      this.queue[this.head++] = noop; // let it be collected
      this.woken++;
      wake();
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    // The budget is per turn: a check-phase callback starts the next one (and wakes what is left).
    if (this.woken > 0 && !this.armed) {
      this.armed = true;
      this.soon(() => {
        this.armed = false;
        this.woken = 0;
        this.drain();
      });
    }
  }
}

const noop = (): void => {};
