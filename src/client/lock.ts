// A held lock. Its `signal` aborts (reason: LockLostError) as soon as the holder can no longer
// count on the lock: its lease is lost (Lease.signal), the cluster is seen releasing or expiring
// this grant, or a later grant of the name is seen (Observe; re-checked with Inspect whenever the
// watch stream was re-established). Work done under the lock should also carry `token` to the
// resource it protects (the fenced store shows how): a signal can only fire after the fact.
import { randomUUID } from 'node:crypto';
import { LockdError, LockLostError, toLockdError } from './errors.js';
import type { Lease } from './lease.js';
import { observeLock } from './observe.js';
import type { Router } from './router.js';
import { deadlineAfter } from './deadlines.js';
import type { InspectResponse__Output } from '../proto/gen/lockd/v1/InspectResponse.js';
import type { ReleaseResponse__Output } from '../proto/gen/lockd/v1/ReleaseResponse.js';
import type { AcquireResponse__Output } from '../proto/gen/lockd/v1/AcquireResponse.js';
import type { LockRecipe } from './result-types.js';

export class Lock {
  /** Aborts when the lock is no longer held by this grant; the reason is a LockLostError. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly stopWatch = new AbortController();
  private releasing: Promise<boolean> | undefined;
  private readonly onLeaseLost: () => void;
  /** A shared (read) grant, or a semaphore's: other grants of the name coexist with it. */
  private shared: boolean;
  /** One holder at most (permits 0 or 1): a later grant of the name then proves ours ended. */
  private mutex: boolean;

  constructor(
    private readonly router: Router,
    /** The lock's name. */
    readonly name: string,
    /** The fencing token of this grant (strictly increasing per name). */
    readonly token: number,
    /** The lease holding it. */
    readonly lease: Lease,
    /** This handle created the lease for itself: release() revokes it too. */
    private readonly ownsLease: boolean,
    watch = true,
    recipe: LockRecipe = {},
  ) {
    this.signal = this.controller.signal;
    this.shared = recipe.shared ?? false;
    this.mutex = (recipe.permits ?? 0) <= 1;
    this.onLeaseLost = () => this.lose('lease', this.lease.signal.reason);
    if (lease.signal.aborted) this.onLeaseLost();
    else lease.signal.addEventListener('abort', this.onLeaseLost, { once: true });
    if (watch && !this.signal.aborted) void this.watch();
  }

  /**
   * True while neither lost nor released. It reads the lease's deadline on the monotonic clock
   * (Lease.lost), not only the signal: right after the event loop was blocked past the deadline,
   * before any timer has run, it is already false (and the signal aborted). Check it, not
   * `signal.aborted`, just before acting under the lock.
   */
  get held(): boolean {
    // A lease found expired here is made lost at once, and its abort listener loses this lock too.
    return !this.signal.aborted && !this.lease.lost;
  }

  /**
   * Release the lock (compare-and-delete on the token), and revoke the lease if this handle
   * created it. Returns whether this call released it: false when it was no longer held by this
   * token (lost meanwhile). Every attempt carries one request id, so a retry of an attempt that
   * did release answers true. Idempotent.
   */
  release(timeoutMs = 10_000): Promise<boolean> {
    this.releasing ??= this.doRelease(timeoutMs);
    return this.releasing;
  }

  private async doRelease(timeoutMs: number): Promise<boolean> {
    const wasHeld = this.held;
    this.stopWatch.abort();
    this.lease.signal.removeEventListener('abort', this.onLeaseLost);
    this.lose('released-here');
    let released: boolean | undefined;
    let failure: Error | undefined;
    try {
      const req = { name: this.name, fencingToken: this.token, leaseId: this.lease.id, requestId: randomUUID() };
      const res = await this.router.unary<ReleaseResponse__Output>('Lock.Release', (ep, o, cb) => ep.lock.Release(req, o, cb), {
        deadline: deadlineAfter(timeoutMs),
      });
      released = res.released;
    } catch (e) {
      const err = toLockdError(e);
      // Stale token (FAILED_PRECONDITION in older servers), or the lock is not held at all (NOT_FOUND).
      if (err instanceof LockdError && (err.codeName === 'FAILED_PRECONDITION' || err.codeName === 'NOT_FOUND')) released = false;
      else failure = err;
    }
    if (this.ownsLease) {
      try {
        await this.lease.revoke(timeoutMs);
        // Revoking ends every lock of the lease: if the Release call failed, this released it.
        released ??= wasHeld;
        failure = undefined;
      } catch (e) {
        failure ??= toLockdError(e);
      }
    }
    if (released === undefined) throw failure!;
    return released;
  }

  /** Whether this grant is shared (a read lock, or downgraded). */
  get isShared(): boolean {
    return this.shared;
  }

  /**
   * Read-write locks: turn this exclusive grant into a shared one (same token; readers waiting at the
   * head of the queue join it). There is no way back: an upgrade is refused (it deadlocks two readers).
   */
  async downgrade(timeoutMs = 10_000): Promise<void> {
    if (this.shared) return;
    if (!this.mutex) throw new Error(`${this.name} is a semaphore: only a read-write lock's exclusive grant can be downgraded`);
    const req = { name: this.name, leaseId: this.lease.id, wait: false, shared: true, permits: 0, lockDelayMs: 0, requestId: randomUUID() };
    // Shared from the moment it is asked: a reader granted beside us by the same entry is no supersession.
    this.shared = true;
    let res: AcquireResponse__Output;
    try {
      res = await this.router.unary<AcquireResponse__Output>('Lock.Acquire', (ep, o, cb) => ep.lock.Acquire(req, o, cb), {
        deadline: deadlineAfter(timeoutMs),
      });
    } catch (e) {
      // Unknown whether it applied. Judged exclusive, a reader joining reads as a loss: the safe mistake.
      this.shared = false;
      throw toLockdError(e);
    }
    if (!res.acquired || res.fencingToken !== this.token) {
      this.lose('released');
      throw new LockLostError(this.name, this.token, 'released');
    }
  }

  private lose(why: LockLostError['why'], cause?: unknown): void {
    if (this.controller.signal.aborted) return;
    this.stopWatch.abort();
    this.controller.abort(new LockLostError(this.name, this.token, why, cause === undefined ? undefined : { cause }));
  }

  /** Watch the name's events for the end of this grant; on (re)connection, confirm with Inspect. */
  private async watch(): Promise<void> {
    const signal = this.stopWatch.signal;
    try {
      // Inspect once each stream has started: covers the gap before it (grant → watch, or a reconnect).
      const events = observeLock(this.router, this.name, { signal, onOpen: () => void this.verify() });
      for await (const ev of events) {
        // A token names one grant; matching the lease too keeps data from before unique tokens safe.
        const mine = ev.fencingToken === this.token && ev.leaseId === this.lease.id;
        if ((ev.type === 'RELEASED' || ev.type === 'EXPIRED') && mine) this.lose(ev.type === 'RELEASED' ? 'released' : 'expired');
        // The serving node caught up by snapshot: events may be missing. Its state is not the judge
        // (a lagging node's snapshot may predate this grant): confirm with a linearizable Inspect.
        else if (ev.type === 'RESYNC' && ev.state) void this.verify();
        // Another call of our lease downgraded this grant: readers granted beside it are no supersession.
        else if (ev.type === 'DOWNGRADED' && mine) this.shared = true;
        // SetPermits may have made the name a semaphore: until Inspect says, a later grant proves nothing.
        else if (ev.type === 'PERMITS_CHANGED') {
          this.mutex = false;
          void this.verify();
        }
        // A later grant of an exclusive mutex proves ours ended; beside a read or semaphore grant it is normal.
        else if (ev.type === 'ACQUIRED' && ev.fencingToken > this.token && this.mutex && !this.shared) this.lose('superseded');
      }
    } catch {
      // Watching is a prompt extra; Lease.signal still guards the holder when it fails.
    }
  }

  private async verify(): Promise<void> {
    try {
      const res = await this.router.unary<InspectResponse__Output>('Lock.Inspect', (ep, o, cb) => ep.lock.Inspect({ name: this.name }, o, cb), {
        deadline: deadlineAfter(10_000),
        signal: this.stopWatch.signal,
      });
      const mine = res.holders.find((h) => h.leaseId === this.lease.id && h.fencingToken === this.token);
      if (!mine) return this.lose(res.held && res.fencingToken > this.token ? 'superseded' : 'released');
      if (mine.shared) this.shared = true;
      this.mutex = res.permits <= 1;
    } catch {
      // Unknown is not lost: the watch and the lease go on guarding.
    }
  }
}
