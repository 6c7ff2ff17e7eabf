// Waiting Acquires (wait=true) on this node, keyed by (lock name, lease). The replicated queue
// does the waiting; a call here only listens for the applied event that ends its wait:
//   ACQUIRED (granted, token = that entry's index) | WAITER_REMOVED (its lease died: NOT_FOUND) |
//   WAIT_CANCELLED (someone cancelled the queue entry: the call re-queues).
// Events are the same on every replica, so a wait survives this node losing leadership.
// A snapshot install skips entries without their events: every wait is then settled from the
// restored state instead (wait-reconcile.ts) — granted, ended with its lease, or asked again.
//
// A wait given up leaves the replicated queue, else the lock would later be granted to a lease
// whose owner no longer waits (an orphan lock, docs/lessons.md 9):
//  - deadline passed → CancelWait at once (through the leader);
//  - client went away, or the Acquire's own outcome is unknown → CancelWait after a grace period,
//    skipped if another call for the same (name, lease) arrived here meanwhile: a retry keeps its place;
//  - the CancelWait carries abandonedAtIndex, the index of the call's last Acquire entry (when its
//    outcome is unknown: where it landed here, else the call's previous entry — see acquire.ts).
//    The state machine acts only if that is exactly the waiting Acquire the lease's wait or grant
//    answers last, so it changes nothing if a later Acquire of the lease for the name was answered
//    queued or acquired — a retry served by another node after a leader change, a try-lock, another
//    call — and otherwise also releases, in the same entry, a grant made meanwhile (no call is left
//    to deliver it to). So the cleanup never takes what a later call was handed (faults README,
//    bug 1), and a forged one cannot name an index past every Acquire. With no entry of
//    the call known (0), there is nothing it could name, and no cleanup is sent.
import type { Logger } from 'pino';
import type { StateEvent } from '../state-machine/index.js';
import type { AppliedEvents } from './applied-events.js';
import { settleFromState, type RestoredState } from './wait-reconcile.js';
import type { WaitCleanup } from './wait-cleanup.js';
import { realClock, type Clock, type ClockTimer } from '../node/clock.js';
import { settleBy, type ApiTiming } from './timing.js';
import { MAX_TIMER_MS, timerAt } from './timer-at.js';
import { WakeQueue } from './wake-queue.js';

/** A call that goes away this close to its deadline timed out (timers of gRPC and ours race). */
const DEADLINE_SLOP_MS = 50;

export type WaitOutcome =
  | { readonly kind: 'acquired'; readonly token: number }
  | { readonly kind: 'removed' }
  | { readonly kind: 'cancelled' }
  /** A snapshot showed the lease neither holding nor queued: ask the log again (the same command). */
  | { readonly kind: 'resync' }
  | { readonly kind: 'deadline' }
  | { readonly kind: 'gone' }
  | { readonly kind: 'closed' };

/** Why a call stopped waiting without an answer from the log. */
export type Abandon = 'deadline' | 'gone' | 'uncertain';

/** A call given up: why, and the bound its cleanup must not reach past (CancelWait.abandonedAtIndex). */
export interface Abandoned {
  readonly why: Abandon;
  /** Index of the call's last Acquire entry known here (0: none). */
  readonly atIndex: number;
  /** For an unknown outcome: the index its last entry is applied at here, if it is. */
  readonly landed?: Promise<number | undefined>;
  /** The call's request id: its cleanup names it (CancelWait.acquire_request_id). */
  readonly requestId?: string;
}

interface KeyState {
  readonly name: string;
  readonly leaseId: number;
  /** The principal of the latest call (its cleanup is done for it). */
  principal: string;
  readonly waiters: Set<Waiter>;
  /** Bumped by every new call for this key: a pending grace cancel checks it. */
  seq: number;
  /** The cleanup's bound: the highest atIndex of the calls abandoned on this key. */
  abandonedAt: number;
  /** Request id of the call abandoned at abandonedAt, and of the one whose entry may land. */
  abandonedRid?: string;
  landed?: Promise<number | undefined>;
  landedRid?: string;
  graceTimer?: ClockTimer;
  cleaning: boolean;
}

export class Waiter {
  private outcome: WaitOutcome | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly key: KeyState,
    private readonly clock: Clock,
  ) {}

  /** From an applied event, a restored snapshot (or shutdown). Final outcomes are not overwritten. */
  deliver(o: WaitOutcome): void {
    if (this.record(o)) this.wakeUp();
  }

  /** Record an outcome without waking the call (LockWaits wakes it within its per-turn budget); false if a final one was kept. */
  record(o: WaitOutcome): boolean {
    if (this.outcome && !retryable(this.outcome)) return false;
    this.outcome = o;
    return true;
  }

  /** Wake the call to read its outcome, if it is waiting for one. */
  wakeUp(): void {
    this.wake?.();
  }

  /**
   * The next outcome: an applied event, the deadline (epoch ms), or the client going away
   * (`onGone` registers the callback). A 'cancelled' or 'resync' outcome is consumed (the call asks again).
   */
  next(deadline: number, onGone: (cb: () => void) => void): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      // A client deadline may lie beyond what one setTimeout can wait (30 days: timer-at.ts).
      const timer = timerAt(deadline, () => settle({ kind: 'deadline' }), MAX_TIMER_MS, this.clock);
      const settle = (o?: WaitOutcome) => {
        if (!this.wake) return;
        this.wake = undefined;
        timer.clear();
        const out = o ?? this.outcome!;
        if (retryable(out) && this.outcome === out) this.outcome = undefined;
        resolve(out);
      };
      this.wake = () => settle();
      if (this.outcome) return settle();
      // gRPC ends a call at its deadline on its own timer, which may beat ours: that is the deadline too.
      onGone(() => settle(this.clock.wallMs() >= deadline - DEADLINE_SLOP_MS ? { kind: 'deadline' } : { kind: 'gone' }));
    });
  }
}

/** Outcomes that send the call back to the log: a later one may replace them. */
const retryable = (o: WaitOutcome): boolean => o.kind === 'cancelled' || o.kind === 'resync';

const keyOf = (name: string, leaseId: number) => `${leaseId}\u0000${name}`; // names never hold control characters

export class LockWaits {
  private readonly keys = new Map<string, KeyState>();
  /** Waits ended by the log are woken a bounded number per turn (wake-queue.ts). */
  private readonly wakes: WakeQueue;
  private closed = false;

  constructor(
    events: AppliedEvents,
    private readonly cleanup: WaitCleanup,
    private readonly timing: ApiTiming,
    private readonly logger: Logger,
    private readonly state: RestoredState,
    private readonly clock: Clock = realClock,
  ) {
    this.wakes = new WakeQueue((fn) => clock.soon(fn));
    events.onAny((ev) => this.event(ev));
    events.onReplaced((index) => this.restored(index));
  }

  get activeCalls(): number {
    let n = 0;
    for (const k of this.keys.values()) n += k.waiters.size;
    return n;
  }

  /** Call before proposing the Acquire, so no event between its apply and its answer is missed. */
  register(name: string, leaseId: number, principal: string): Waiter {
    const id = keyOf(name, leaseId);
    let ks = this.keys.get(id);
    if (!ks) this.keys.set(id, (ks = { name, leaseId, principal, waiters: new Set(), seq: 0, abandonedAt: 0, cleaning: false }));
    ks.principal = principal;
    ks.seq++;
    if (ks.graceTimer) {
      ks.graceTimer.clear();
      ks.graceTimer = undefined;
      this.logger.debug({ event: 'wait resumed', name, leaseId }, 'a retried wait arrived: the abandoned one is not cancelled');
    }
    const w = new Waiter(ks, this.clock);
    ks.waiters.add(w);
    return w;
  }

  /** The call is over. With `abandon`, leave the replicated queue for it (see the file comment). */
  unregister(w: Waiter, abandon?: Abandoned): void {
    const ks = w.key;
    ks.waiters.delete(w);
    if (abandon) {
      if (abandon.atIndex >= ks.abandonedAt) {
        ks.abandonedAt = abandon.atIndex;
        ks.abandonedRid = abandon.requestId;
      }
      if (abandon.landed) {
        ks.landed = abandon.landed;
        ks.landedRid = abandon.requestId;
      }
    }
    if (abandon && ks.waiters.size === 0 && !this.closed) {
      const seq = ks.seq;
      const go = () => {
        ks.graceTimer = undefined;
        if (ks.seq === seq && ks.waiters.size === 0) void this.cancel(ks, abandon.why);
        else this.forget(ks);
      };
      if (abandon.why === 'deadline') go();
      else ks.graceTimer = this.clock.after(this.timing.cancelGraceMs, go);
      return;
    }
    this.forget(ks);
  }

  private forget(ks: KeyState): void {
    if (ks.waiters.size === 0 && !ks.graceTimer && !ks.cleaning) this.keys.delete(keyOf(ks.name, ks.leaseId));
  }

  private async cancel(ks: KeyState, why: Abandon): Promise<void> {
    const { name, leaseId } = ks;
    const seq = ks.seq;
    const until = this.clock.wallMs() + this.timing.cleanupBudgetMs;
    ks.cleaning = true;
    try {
      // An entry of unknown outcome that lands here is the call's own: the bound covers it.
      const landed = ks.landed ? await settleBy(ks.landed, until, 'the abandoned Acquire', this.clock).catch(() => undefined) : undefined;
      const abandonedAt = Math.max(ks.abandonedAt, landed ?? 0);
      const rid = landed !== undefined && landed > ks.abandonedAt ? ks.landedRid : ks.abandonedRid;
      if (ks.seq !== seq || ks.waiters.size > 0) return; // a retry arrived here while we waited
      if (abandonedAt === 0) {
        this.logger.info(
          { event: 'wait not cancelled', name, leaseId, why },
          `abandoned wait for ${name} by lease ${leaseId}: no Acquire entry of it known here, nothing to cancel`,
        );
        return;
      }
      const r = await this.cleanup.cancelWait(name, leaseId, abandonedAt, rid, until, ks.principal);
      this.logger.info(
        { event: 'wait cancelled', name, leaseId, why, abandonedAt, removed: r.removed, heldToken: r.heldToken, released: r.released },
        `abandoned wait for ${name} by lease ${leaseId} cancelled (${why})`,
      );
      if (r.released)
        this.logger.info(
          { event: 'orphan released', name, leaseId, token: r.heldToken },
          `released ${name} (token ${r.heldToken}), granted to an abandoned wait`,
        );
    } catch (e) {
      this.logger.warn(
        { event: 'wait cancel failed', name, leaseId, why, err: e },
        `could not cancel the abandoned wait for ${name} by lease ${leaseId}: ${(e as Error).message}`,
      );
    } finally {
      ks.cleaning = false;
      this.forget(ks);
    }
  }

  private event(ev: StateEvent): void {
    if (ev.type !== 'ACQUIRED' && ev.type !== 'WAITER_REMOVED' && ev.type !== 'WAIT_CANCELLED') return;
    const ks = this.keys.get(keyOf(ev.name, ev.leaseId));
    if (!ks) return;
    const o: WaitOutcome =
      ev.type === 'ACQUIRED' ? { kind: 'acquired', token: ev.token } : ev.type === 'WAITER_REMOVED' ? { kind: 'removed' } : { kind: 'cancelled' };
    this.settle(ks, o);
  }

  /** Record `o` for every call waiting on `ks` now, and wake them within the per-turn budget. */
  private settle(ks: KeyState, o: WaitOutcome): void {
    for (const w of ks.waiters) if (w.record(o)) this.wakes.push(() => w.wakeUp());
  }

  /** A snapshot replaced the state: settle every wait from it (no event will). */
  private restored(index: number): void {
    for (const ks of this.keys.values()) {
      if (ks.waiters.size === 0) continue;
      const o = settleFromState(ks.name, ks.leaseId, this.state);
      this.logger.info(
        { event: 'wait resynced', name: ks.name, leaseId: ks.leaseId, snapshotIndex: index, outcome: o?.kind ?? 'waiting' },
        `snapshot ${index}: the wait of lease ${ks.leaseId} for ${ks.name} is ${o?.kind ?? 'still queued'}`,
      );
      if (o) this.settle(ks, o);
    }
  }

  close(): void {
    this.closed = true;
    for (const ks of this.keys.values()) {
      ks.graceTimer?.clear();
      ks.graceTimer = undefined;
      for (const w of ks.waiters) w.deliver({ kind: 'closed' });
    }
  }
}
