// Events of applied entries, fanned out to whoever waits on them (Observe streams, waiting
// Acquires, keepalive streams). Listeners run inside the driver's apply loop, so one that throws is
// logged and skipped: a bug in a stream must never stop the node.
// A snapshot install replaces the state with no events for the entries it covers: onReplaced
// listeners then reconcile against the restored state (a wait answered, a stream resynchronised).
import type { Logger } from 'pino';
import type { RaftDriver } from '../node/raft-driver.js';
import type { ApplyOutput, StateEvent } from '../state-machine/index.js';

export type EventListener = (ev: StateEvent) => void;
/** The state was replaced by a snapshot at `index`; read the state machine for what is true now. */
export type ReplacedListener = (index: number) => void;

export class AppliedEvents {
  private readonly byName = new Map<string, Set<EventListener>>();
  private readonly everything = new Set<EventListener>();
  private readonly replaced = new Set<ReplacedListener>();

  constructor(
    driver: RaftDriver<ApplyOutput>,
    private readonly logger: Logger,
  ) {
    driver.onApplied((_entry, out) => {
      for (const ev of out.events) this.dispatch(ev);
    });
    driver.onStateReplaced((index) => {
      for (const l of [...this.replaced]) {
        try {
          l(index);
        } catch (e) {
          this.logger.error({ event: 'event listener failed', err: e, snapshotIndex: index }, 'snapshot listener failed');
        }
      }
    });
  }

  /** Snapshot installs (see the file comment); returns the unsubscribe function. */
  onReplaced(l: ReplacedListener): () => void {
    this.replaced.add(l);
    return () => this.replaced.delete(l);
  }

  /** Events of one lock name; returns the unsubscribe function. */
  onName(name: string, l: EventListener): () => void {
    let set = this.byName.get(name);
    if (!set) this.byName.set(name, (set = new Set()));
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0 && this.byName.get(name) === set) this.byName.delete(name);
    };
  }

  /** Every event (lease lifecycle included); returns the unsubscribe function. */
  onAny(l: EventListener): () => void {
    this.everything.add(l);
    return () => this.everything.delete(l);
  }

  /** Number of names with listeners (for tests and status). */
  get watchedNames(): number {
    return this.byName.size;
  }

  private dispatch(ev: StateEvent): void {
    const named = ev.name ? this.byName.get(ev.name) : undefined;
    // A copy of the name's listeners: one may unsubscribe (or subscribe another) while it runs. The
    // onAny listeners are the API's own, registered once at start-up: no copy per applied event.
    if (named) for (const l of [...named]) this.run(l, ev);
    for (const l of this.everything) this.run(l, ev);
  }

  private run(l: EventListener, ev: StateEvent): void {
    try {
      l(ev);
    } catch (e) {
      this.logger.error({ event: 'event listener failed', err: e, lockEvent: ev }, 'event listener failed');
    }
  }
}
