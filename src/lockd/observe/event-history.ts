// The node's recent decisions, kept so that a viewer that connects late (the dashboard opened after
// a demo, reconnected after a failover or a restart of the node it reads) sees what was decided and
// why, not only the state: /events sends them after its `state` snapshot as one `event: history`.
// Only decisions are kept (grants, releases, expiries, refusals, fenced writes, elections,
// snapshots, refused entries), not the routine traffic (appends, commits, disk syncs, loop lag,
// Ticks that expired nothing); a kept Tick's renewal lists are dropped (they can hold 20,000 ids).
// Bounded in count and approximate bytes; the oldest go first. It is this process's memory: a
// restarted node's history starts empty, and the viewer is told how far back it reaches.
import type { EventBus, Subscription } from './bus.js';
import type { ObservedEvent } from './observed-events.js';
import { approxEventBytes } from './event-size.js';

/** Decisions kept. */
export const HISTORY_EVENTS = 500;
/** About this many bytes of them (as JSON). */
export const HISTORY_BYTES = 256 * 1024;

/** Whether `ev` is a decision worth replaying to a late viewer (and the form it is kept in), or undefined. */
export function historyForm(ev: ObservedEvent): ObservedEvent | undefined {
  switch (ev.type) {
    case 'appended':
    case 'committed':
    case 'disk-sync':
    case 'loop-lag':
    case 'progress':
    case 'lock-mode': // state, which the snapshot holds
      return undefined;
    case 'applied':
      return ev.ok ? undefined : ev;
    case 'tick':
      return ev.expired.length === 0 ? undefined : { ...ev, renewed: [], deadlines: [] };
    default:
      return ev;
  }
}

export class EventHistory {
  private readonly sub: Subscription;
  private kept: ObservedEvent[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  /** Decisions that fell out of the window (or were lost before being kept). */
  private dropped = 0;

  constructor(
    bus: EventBus,
    private readonly maxEvents = HISTORY_EVENTS,
    private readonly maxBytes = HISTORY_BYTES,
  ) {
    // Woken once per turn like any reader; take() also drains it at once (before a snapshot).
    this.sub = bus.subscribe(Math.max(maxEvents * 8, 1024), () => this.drain());
  }

  /** Move what the bus queued into the window. */
  private drain(): void {
    const { events, lost } = this.sub.take();
    this.dropped += lost;
    for (const raw of events) {
      const ev = historyForm(raw);
      if (!ev) continue;
      const size = approxEventBytes(ev);
      this.kept.push(ev);
      this.sizes.push(size);
      this.bytes += size;
    }
    let cut = 0;
    while (this.kept.length - cut > 1 && (this.kept.length - cut > this.maxEvents || this.bytes > this.maxBytes)) {
      this.bytes -= this.sizes[cut];
      cut++;
    }
    if (cut > 0) {
      this.kept = this.kept.slice(cut);
      this.sizes = this.sizes.slice(cut);
      this.dropped += cut;
    }
  }

  /**
   * The decisions kept, oldest first, up to this instant (call it in the turn of the snapshot they
   * precede), and whether older ones were dropped.
   */
  take(): { events: readonly ObservedEvent[]; complete: boolean } {
    this.drain();
    return { events: this.kept, complete: this.dropped === 0 };
  }

  close(): void {
    this.sub.close();
  }
}
