// LockClient: the TypeScript client of lockd.v1. It talks to whichever endpoint leads (see
// Router), retries UNAVAILABLE within each call's deadline, and makes every mutating call (Grant,
// Revoke, Acquire, Release, CancelWait, Fence.Write, Fence.Delete) safe to retry by sending one
// request_id on all its attempts (the cluster applies it once, also when an attempt lands late). Leases
// keep themselves alive (Lease); held locks report their loss (Lock.signal).
import { randomUUID } from 'node:crypto';
import type { StatusResponse__Output } from '../proto/gen/lockd/v1/StatusResponse.js';
import type { AcquireResponse__Output } from '../proto/gen/lockd/v1/AcquireResponse.js';
import type { LeaseGrantResponse__Output } from '../proto/gen/lockd/v1/LeaseGrantResponse.js';
import type { LeaseTimeToLiveResponse__Output } from '../proto/gen/lockd/v1/LeaseTimeToLiveResponse.js';
import type { LeaseListResponse__Output } from '../proto/gen/lockd/v1/LeaseListResponse.js';
import type { InspectResponse__Output } from '../proto/gen/lockd/v1/InspectResponse.js';
import type { ReleaseResponse__Output } from '../proto/gen/lockd/v1/ReleaseResponse.js';
import type { FenceWriteResponse__Output } from '../proto/gen/lockd/v1/FenceWriteResponse.js';
import type { FenceDeleteResponse__Output } from '../proto/gen/lockd/v1/FenceDeleteResponse.js';
import type { CancelWaitResponse__Output } from '../proto/gen/lockd/v1/CancelWaitResponse.js';
import type { FenceReadResponse__Output } from '../proto/gen/lockd/v1/FenceReadResponse.js';
import type { AuthGrantResponse__Output } from '../proto/gen/lockd/v1/AuthGrantResponse.js';
import type { AuthRevokeResponse__Output } from '../proto/gen/lockd/v1/AuthRevokeResponse.js';
import type { AuthListResponse__Output } from '../proto/gen/lockd/v1/AuthListResponse.js';
import type { AuthQuotaResponse__Output } from '../proto/gen/lockd/v1/AuthQuotaResponse.js';
import type { MemberListResponse__Output } from '../proto/gen/lockd/v1/MemberListResponse.js';
import type { MemberChangeResponse__Output } from '../proto/gen/lockd/v1/MemberChangeResponse.js';
import type { TransferLeaderResponse__Output } from '../proto/gen/lockd/v1/TransferLeaderResponse.js';
import { resolveEndpoints } from './endpoints.js';
import { LockHeldError, LockLostError, toLockdError } from './errors.js';
import { Lease } from './lease.js';
import { Lock } from './lock.js';
import { observeLock, type LockEvent, type ObserveOptions } from './observe.js';
import { toLockInfo } from './lock-info.js';
import { recipeFields } from './recipe.js';
import * as election from './election.js';
import type { LeaderKey, Leadership } from './election.js';
import { renewOnce } from './renew-once.js';
import { Router, type CallControl } from './router.js';
import { saveSnapshot, type SavedSnapshot } from './snapshot-save.js';
import { loadClientTls, type ClientTlsOptions } from './tls.js';
import { deadlineAfter, grpcDeadline, monoNow } from './deadlines.js';
import type { SetPermitsResponse__Output } from '../proto/gen/lockd/v1/SetPermitsResponse.js';
import type {
  AclRule,
  EndpointStatus,
  FenceValue,
  LeaderTransfer,
  LeaseSummary,
  LeaseTtl,
  LockInfo,
  LockRecipe,
  NodeStatus,
  QuotaInfo,
} from './result-types.js';

export interface LockClientOptions extends ClientTlsOptions {
  /** host:port of any nodes' CLIENT ports (default: $LOCKD_ENDPOINTS, else 127.0.0.1:7001..7005). */
  readonly endpoints?: readonly string[];
  /** Deadline of a call that does not wait, retries included (ms). Default 10 000. */
  readonly timeoutMs?: number;
  /** One attempt's limit before another endpoint is tried (ms). Default 2 000. */
  readonly attemptTimeoutMs?: number;
  /** Leader discovery's limit (ms). Default 500. */
  readonly discoverTimeoutMs?: number;
  /** Retry backoff bounds (ms). Defaults 50 and 1 000. */
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  /** Watch each held lock with Observe so Lock.signal fires promptly on release/expiry. Default true. */
  readonly watchLocks?: boolean;
}

export interface CallOptions {
  /** Overrides the client's timeoutMs for this call. */
  readonly timeoutMs?: number;
  /** Abort the call. */
  readonly signal?: AbortSignal;
}

/** A mutating call's options: its request id is sent on every attempt. */
export interface WriteOptions extends CallOptions {
  /** Reuse a request id, e.g. to retry a call this process gave up on (default: a fresh crypto.randomUUID()). */
  readonly requestId?: string;
}

export interface FenceWriteOptions extends WriteOptions {
  /**
   * The lock whose grant the token must be (Chubby's sequencer check): the cluster then refuses the
   * write (FAILED_PRECONDITION) once that grant has ended, even before the next holder has written.
   */
  readonly lock?: string;
}

export interface GrantOptions extends WriteOptions {
  /** Keepalive period (ms); default ttl/3. */
  readonly keepAliveIntervalMs?: number;
  /**
   * Send the first keepalive at once (default true): the server then watches the lease on this
   * client's stream and pushes its loss (revoke, expiry) immediately, instead of at the next renewal.
   */
  readonly renewNow?: boolean;
  /** Tie the lease to the caller's liveness: when this aborts, keepalives stop and the lease is lost.
   *  (`signal` only cancels the Grant call itself.) */
  readonly liveness?: AbortSignal;
}

export interface AcquireOptions extends CallOptions, LockRecipe {
  /** The lease to hold the lock; default: a new lease of ttlMs created for this lock (revoked on release). */
  readonly lease?: Lease;
  /** TTL of the lease created when none is given (ms). Default 10 000. */
  readonly ttlMs?: number;
  /** Queue until granted (acquire's default) or answer at once (tryAcquire). */
  readonly wait?: boolean;
  /** Reuse a request id (default: a fresh crypto.randomUUID()). */
  readonly requestId?: string;
}

export const DEFAULT_LOCK_TTL_MS = 10_000;

/** The fields of a StatusResponse as a NodeStatus. */
export function toNodeStatus(s: StatusResponse__Output): NodeStatus {
  return {
    nodeId: s.nodeId,
    role: s.role,
    term: s.term,
    leaderId: s.leaderId,
    leaderAddress: s.leaderAddress,
    commitIndex: s.commitIndex,
    appliedIndex: s.appliedIndex,
    members: s.members.map((m) => ({ id: m.id, address: m.address, matchIndex: m.matchIndex, build: m.build })),
    version: s.version,
    build: s.build,
    clusterVersion: s.clusterVersion,
    clusterVersionComplete: s.clusterVersionComplete,
  };
}

export class LockClient {
  private readonly router: Router;
  private readonly timeoutMs: number;
  private readonly watchLocks: boolean;
  private readonly leases = new Set<Lease>();
  private closed = false;

  constructor(opts: LockClientOptions | readonly string[] = {}) {
    const o: LockClientOptions = Array.isArray(opts) ? { endpoints: opts as readonly string[] } : (opts as LockClientOptions);
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.watchLocks = o.watchLocks ?? true;
    this.router = new Router({
      endpoints: o.endpoints ?? resolveEndpoints(undefined),
      attemptTimeoutMs: o.attemptTimeoutMs ?? 2_000,
      discoverTimeoutMs: o.discoverTimeoutMs ?? 500,
      backoffInitialMs: o.backoffInitialMs ?? 50,
      backoffMaxMs: o.backoffMaxMs ?? 1_000,
      tls: loadClientTls(o),
    });
  }

  /** Every endpoint known (configured, then learned from the cluster). */
  endpoints(): readonly string[] {
    return this.router.endpoints();
  }

  /** The leader's address as last learned (undefined when unknown). */
  leaderAddress(): string | undefined {
    return this.router.leaderAddress();
  }

  private ctl(o: CallOptions | undefined): CallControl {
    if (this.closed) throw new Error('LockClient is closed');
    return { deadline: deadlineAfter(o?.timeoutMs ?? this.timeoutMs), signal: o?.signal };
  }

  // ---- leases -------------------------------------------------------------------------------

  /** Grant a lease of ttlMs and keep it alive until close()/revoke() or loss (see Lease). */
  async grantLease(ttlMs: number, opts: GrantOptions = {}): Promise<Lease> {
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new Error(`ttlMs must be a positive integer, got ${ttlMs}`);
    const ctl = this.ctl(opts);
    const requestId = opts.requestId ?? randomUUID();
    // The first attempt's send time: whichever attempt applied, it was sent no earlier.
    const sentAt = monoNow();
    const res = await this.router.unary<LeaseGrantResponse__Output>('Lease.Grant', (ep, o, cb) => ep.lease.Grant({ ttlMs, requestId }, o, cb), ctl);
    if (!(res.leaseId > 0 && res.ttlMs > 0)) throw new Error(`Lease.Grant answered an invalid lease ${JSON.stringify(res)}`);
    return this.track(
      new Lease(this.router, res.leaseId, res.ttlMs, sentAt + res.ttlMs, {
        signal: opts.liveness,
        keepAliveIntervalMs: opts.keepAliveIntervalMs,
        renewNow: opts.renewNow ?? true,
      }),
    );
  }

  /**
   * Keep an existing lease alive from this client (e.g. one granted by another process). Resolves
   * once a first keepalive is acknowledged (the lease is then trusted until that request's send
   * time + ttl); NOT_FOUND if the lease is gone.
   */
  async attachLease(leaseId: number, opts: Omit<GrantOptions, 'requestId' | 'renewNow'> = {}): Promise<Lease> {
    const ctl = this.ctl(opts);
    const { sentAt, ttlMs } = await renewOnce(this.router, leaseId, ctl.deadline, ctl.signal);
    // Renew again at once on the lease's own stream, so the server watches it there and pushes its loss.
    return this.track(
      new Lease(this.router, leaseId, ttlMs, sentAt + ttlMs, { signal: opts.liveness, keepAliveIntervalMs: opts.keepAliveIntervalMs, renewNow: true }),
    );
  }

  private track(lease: Lease): Lease {
    this.leases.add(lease);
    lease.signal.addEventListener('abort', () => this.leases.delete(lease), { once: true });
    return lease;
  }

  /** End a lease by id (releasing its locks). NOT_FOUND if unknown or already gone (not when a retry finds it ended by this call). */
  async revokeLease(leaseId: number, opts?: WriteOptions): Promise<void> {
    const requestId = opts?.requestId ?? randomUUID();
    await this.router.unary<unknown>('Lease.Revoke', (ep, o, cb) => ep.lease.Revoke({ leaseId, requestId }, o, cb), this.ctl(opts));
  }

  async timeToLive(leaseId: number, opts?: CallOptions): Promise<LeaseTtl> {
    const r = await this.router.unary<LeaseTimeToLiveResponse__Output>(
      'Lease.TimeToLive',
      (ep, o, cb) => ep.lease.TimeToLive({ leaseId }, o, cb),
      this.ctl(opts),
    );
    return { leaseId: r.leaseId, grantedTtlMs: r.grantedTtlMs, remainingMs: r.remainingMs, locks: r.locks, owner: r.owner };
  }

  /**
   * Every live lease the caller may see, ascending by id: follows Lease.List's pages to the end
   * (each page a linearizable read of its own; see leasePages).
   */
  async listLeases(opts?: CallOptions & { pageSize?: number }): Promise<LeaseSummary[]> {
    const out: LeaseSummary[] = [];
    for await (const page of this.leasePages(opts)) out.push(...page);
    return out;
  }

  /**
   * Lease.List one page at a time (pageSize: 0/absent = the server's default, 1,000; at most 10,000).
   * A lease live throughout is listed exactly once; one granted or ended meanwhile may or may not be.
   * Pages ascend by id, so a page is cut to the ids after the last one yielded: a failover between
   * pages to a leader of the release before paging (it ignores the token and answers every lease)
   * repeats nothing.
   */
  async *leasePages(opts?: CallOptions & { pageSize?: number }): AsyncGenerator<LeaseSummary[]> {
    let pageToken = '';
    let last = 0;
    do {
      const req = { pageSize: opts?.pageSize ?? 0, pageToken };
      const r = await this.router.unary<LeaseListResponse__Output>('Lease.List', (ep, o, cb) => ep.lease.List(req, o, cb), this.ctl(opts));
      const fresh = r.leases.filter((l) => l.leaseId > last);
      if (fresh.length > 0) last = fresh[fresh.length - 1].leaseId;
      yield fresh.map((l) => ({ leaseId: l.leaseId, grantedTtlMs: l.grantedTtlMs, remainingMs: l.remainingMs, owner: l.owner }));
      pageToken = r.nextPageToken;
    } while (pageToken !== '');
  }

  // ---- locks --------------------------------------------------------------------------------

  /**
   * Take the lock `name`. Waits in the cluster's FIFO queue by default (wait: true), until
   * granted, the timeout (DEADLINE_EXCEEDED; none by default when waiting), or the lease's loss.
   * With wait: false a held lock is a LockHeldError. Without opts.lease, a lease of opts.ttlMs is
   * granted for the lock and revoked by release() (or when acquiring fails).
   */
  async acquire(name: string, opts: AcquireOptions = {}): Promise<Lock> {
    const wait = opts.wait ?? true;
    const own = !opts.lease;
    const lease = opts.lease ?? (await this.grantLease(opts.ttlMs ?? DEFAULT_LOCK_TTL_MS, { timeoutMs: opts.timeoutMs, signal: opts.signal }));
    try {
      if (lease.lost) throw lease.signal.reason;
      const signal = opts.signal ? AbortSignal.any([lease.signal, opts.signal]) : lease.signal;
      const recipe = { permits: opts.permits, shared: opts.shared, lockDelayMs: opts.lockDelayMs };
      const res = await this.acquireRaw(name, lease.id, { wait, requestId: opts.requestId, timeoutMs: opts.timeoutMs, signal, ...recipe });
      // A retry of our request was told its grant had ended before we saw it (someone released it
      // by its token): we never held it, and must not be handed it.
      if (res.grantEnded) throw new LockLostError(name, res.endedFencingToken, 'released');
      if (!res.acquired) throw new LockHeldError(name, res.holderLeaseId);
      if (!(res.fencingToken > 0)) throw new Error(`Lock.Acquire granted ${JSON.stringify(name)} with an invalid token ${res.fencingToken}`);
      // A retry of an exclusive request after a downgrade is answered shared (a server before
      // AcquireResponse.shared answers false: a shared request stays shared).
      return new Lock(this.router, name, res.fencingToken, lease, own, this.watchLocks, { ...recipe, shared: res.shared || (opts.shared ?? false) });
    } catch (e) {
      // Leave nothing behind: our own lease goes (with any wait or grant it got); a caller's lease
      // leaves the queue, and releases the lock if it was granted just as we gave up.
      if (own) await lease.revoke().catch(() => {});
      else if (wait && !lease.lost && !(e instanceof LockLostError)) await this.abandonWait(name, lease.id); // an ended grant left no wait
      throw toLockdError(e);
    }
  }

  private async abandonWait(name: string, leaseId: number): Promise<void> {
    try {
      const ctl = { deadline: deadlineAfter(Math.min(this.timeoutMs, 5_000)) };
      const cancel = { name, leaseId, requestId: randomUUID() };
      const r = await this.router.unary<CancelWaitResponse__Output>('Lock.CancelWait', (ep, o, cb) => ep.lock.CancelWait(cancel, o, cb), ctl);
      const release = { name, fencingToken: r.fencingToken, leaseId, requestId: randomUUID() };
      if (r.fencingToken > 0) await this.router.unary<unknown>('Lock.Release', (ep, o, cb) => ep.lock.Release(release, o, cb), ctl);
    } catch {
      // Best effort: the server drops a cancelled wait after a grace period anyway.
    }
  }

  /**
   * One Acquire for a lease id, answered as the server answers it — no handle, no watching, no
   * keepalives (for tools and tests; prefer acquire()). Retries reuse one request id; grantEnded:
   * a retry found that the request's grant (endedFencingToken) had ended since — not acquired.
   * shared: the grant is shared now (a read lock, or an exclusive one downgraded since).
   */
  async acquireRaw(
    name: string,
    leaseId: number,
    opts: CallOptions & LockRecipe & { wait?: boolean; requestId?: string } = {},
  ): Promise<{
    acquired: boolean;
    fencingToken: number;
    holderLeaseId: number;
    grantEnded: boolean;
    endedFencingToken: number;
    lockDelayRemainingMs: number;
    shared: boolean;
  }> {
    const wait = opts.wait ?? false;
    const requestId = opts.requestId ?? randomUUID();
    const deadline = deadlineAfter(opts.timeoutMs ?? (wait ? undefined : this.timeoutMs));
    if (this.closed) throw new Error('LockClient is closed');
    const r = await this.router.unary<AcquireResponse__Output>(
      'Lock.Acquire',
      (ep, o, cb) => ep.lock.Acquire({ name, leaseId, wait, requestId, ...recipeFields(opts) }, o, cb),
      {
        deadline,
        signal: opts.signal,
        attemptTimeout: !wait,
      },
    );
    if (r.acquired && r.grantEnded) throw new Error(`Lock.Acquire answered both acquired and grant_ended for ${JSON.stringify(name)}`);
    return {
      acquired: r.acquired,
      fencingToken: r.fencingToken,
      holderLeaseId: r.holderLeaseId,
      grantEnded: r.grantEnded,
      endedFencingToken: r.endedFencingToken,
      lockDelayRemainingMs: r.lockDelayRemainingMs,
      shared: r.acquired && r.shared,
    };
  }

  /** Take the lock if it is free: the Lock, or undefined when another lease holds it. */
  async tryAcquire(name: string, opts: Omit<AcquireOptions, 'wait'> = {}): Promise<Lock | undefined> {
    try {
      return await this.acquire(name, { ...opts, wait: false });
    } catch (e) {
      if (e instanceof LockHeldError) return undefined;
      throw e;
    }
  }

  /**
   * Run fn while holding `name`: acquire (waiting by default; with its own lease unless
   * opts.lease), call fn(lock, lock.signal) — fn should stop when the signal aborts, and pass
   * lock.token to what it writes — then release, also when fn throws. fn's error wins over a
   * failed release. If the lock was lost before fn finished, withLock rejects with the loss (a
   * LockLostError) even when fn returned: its work may not have been exclusive.
   */
  async withLock<T>(name: string, fn: (lock: Lock, signal: AbortSignal) => Promise<T> | T, opts: AcquireOptions = {}): Promise<T> {
    const lock = await this.acquire(name, opts);
    let result: T;
    try {
      result = await fn(lock, lock.signal);
    } catch (e) {
      await lock.release().catch(() => {});
      throw e;
    }
    if (!lock.held) {
      // held reads the clock: fn may have blocked the event loop past the deadline (no timer has run).
      const lost = lock.signal.reason as Error;
      await lock.release().catch(() => {});
      throw lost;
    }
    await lock.release();
    return result;
  }

  /**
   * Release by name and token (compare-and-delete): false, or FAILED_PRECONDITION, when the token is
   * stale. The token names one grant; opts.leaseId, when given, must be that grant's lease.
   */
  async release(name: string, fencingToken: number, opts?: WriteOptions & { leaseId?: number }): Promise<boolean> {
    const req = { name, fencingToken, leaseId: opts?.leaseId ?? 0, requestId: opts?.requestId ?? randomUUID() };
    const r = await this.router.unary<ReleaseResponse__Output>('Lock.Release', (ep, o, cb) => ep.lock.Release(req, o, cb), this.ctl(opts));
    return r.released;
  }

  async inspect(name: string, opts?: CallOptions): Promise<LockInfo> {
    const r = await this.router.unary<InspectResponse__Output>('Lock.Inspect', (ep, o, cb) => ep.lock.Inspect({ name }, o, cb), this.ctl(opts));
    return toLockInfo(name, r);
  }

  /** Change a semaphore's permits (growing grants the waiters that now fit). Returns the previous value and how many were granted. */
  async setPermits(name: string, permits: number, opts?: WriteOptions): Promise<{ previous: number; granted: number }> {
    const req = { name, permits, requestId: opts?.requestId ?? randomUUID() };
    const r = await this.router.unary<SetPermitsResponse__Output>('Lock.SetPermits', (ep, o, cb) => ep.lock.SetPermits(req, o, cb), this.ctl(opts));
    return { previous: r.previous, granted: r.granted };
  }

  /** The lock's events from now on (see observeLock for reconnection and RESYNC). */
  observe(name: string, opts: ObserveOptions = {}): AsyncGenerator<LockEvent, void, undefined> {
    if (this.closed) throw new Error('LockClient is closed');
    return observeLock(this.router, name, opts);
  }

  // ---- elections (lockd.v1.Election: the leader is the holder of the election's lock) --------

  /**
   * Wait until `leaseId` leads election `name` (FIFO among campaigners; no timeout unless
   * opts.timeoutMs), storing `value` with the leadership. NOT_FOUND if the lease ends meanwhile.
   */
  campaign(name: string, leaseId: number, value: string, opts: WriteOptions = {}): Promise<LeaderKey> {
    return election.campaign(
      election.viaRouter(this.router, { deadline: deadlineAfter(opts.timeoutMs), signal: opts.signal }),
      name,
      leaseId,
      value,
      opts.requestId,
    );
  }

  /** Set the leader's value; FAILED_PRECONDITION unless `key` is the current leadership. */
  proclaim(key: LeaderKey, value: string, opts?: CallOptions): Promise<void> {
    return election.proclaim(election.viaRouter(this.router, this.ctl(opts)), key, value);
  }

  /** The current leader and value (linearizable); `leader` undefined when nobody leads. */
  leader(name: string, opts?: CallOptions): Promise<Leadership> {
    return election.leader(election.viaRouter(this.router, this.ctl(opts)), name);
  }

  /** Give up the leadership: true if this call ended it. */
  resign(key: LeaderKey, opts?: WriteOptions): Promise<boolean> {
    return election.resign(election.viaRouter(this.router, this.ctl(opts)), key, opts?.requestId);
  }

  /**
   * The leadership of `name`: the current one first, then every change, until opts.signal aborts.
   * opts.onOpen runs each time a stream is subscribed (from then on nothing is missed).
   */
  observeLeader(name: string, opts: { signal?: AbortSignal; onOpen?: () => void } = {}): AsyncGenerator<Leadership, void, undefined> {
    if (this.closed) throw new Error('LockClient is closed');
    return election.observeLeader(this.router, name, opts.signal, opts.onOpen);
  }

  // ---- fenced store -------------------------------------------------------------------------

  /**
   * Write under a fencing token; a token below the key's highest is FAILED_PRECONDITION, and so,
   * with opts.lock, is a token that is not that lock's current grant. Returns the highest accepted token.
   */
  async fenceWrite(key: string, value: string | Uint8Array, fencingToken: number, opts?: FenceWriteOptions): Promise<number> {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
    const req = { key, value: bytes, fencingToken, lock: opts?.lock ?? '', requestId: opts?.requestId ?? randomUUID() };
    const r = await this.router.unary<FenceWriteResponse__Output>('Fence.Write', (ep, o, cb) => ep.fence.Write(req, o, cb), this.ctl(opts));
    return r.highestToken;
  }

  /**
   * Delete a key, fenced like a write (its highest token stays, so stale writers cannot bring it
   * back). Returns whether a value was deleted and the key's highest token.
   */
  async fenceDelete(key: string, fencingToken: number, opts?: FenceWriteOptions): Promise<{ deleted: boolean; highestToken: number }> {
    const req = { key, fencingToken, lock: opts?.lock ?? '', requestId: opts?.requestId ?? randomUUID() };
    const r = await this.router.unary<FenceDeleteResponse__Output>('Fence.Delete', (ep, o, cb) => ep.fence.Delete(req, o, cb), this.ctl(opts));
    return { deleted: r.deleted, highestToken: r.highestToken };
  }

  async fenceRead(key: string, opts?: CallOptions): Promise<FenceValue> {
    const r = await this.router.unary<FenceReadResponse__Output>('Fence.Read', (ep, o, cb) => ep.fence.Read({ key }, o, cb), this.ctl(opts));
    return { key, value: r.value, fencingToken: r.fencingToken };
  }

  // ---- access rules (admins only) -----------------------------------------------------------

  /** Add an access rule; false if it existed already. */
  async aclGrant(rule: AclRule, opts?: WriteOptions): Promise<boolean> {
    const req = { rule, requestId: opts?.requestId ?? randomUUID() };
    return (await this.router.unary<AuthGrantResponse__Output>('Auth.Grant', (ep, o, cb) => ep.auth.Grant(req, o, cb), this.ctl(opts))).created;
  }

  /** Remove an access rule; false if there was none. */
  async aclRevoke(rule: AclRule, opts?: WriteOptions): Promise<boolean> {
    const req = { rule, requestId: opts?.requestId ?? randomUUID() };
    return (await this.router.unary<AuthRevokeResponse__Output>('Auth.Revoke', (ep, o, cb) => ep.auth.Revoke(req, o, cb), this.ctl(opts))).removed;
  }

  /** Every rule (or `principal`'s), sorted by principal, prefix and verb. */
  async aclList(principal = '', opts?: CallOptions): Promise<AclRule[]> {
    const r = await this.router.unary<AuthListResponse__Output>('Auth.List', (ep, o, cb) => ep.auth.List({ principal }, o, cb), this.ctl(opts));
    return r.rules.map((x) => ({ principal: x.principal, prefix: x.prefix, verb: x.verb as AclRule['verb'] }));
  }

  /** Set `principal`'s quotas (`values`: leases, locks, dedup_ids, election_bytes, fence_keys → N; `reset`: first back to the defaults); admins only. Returns them all after. */
  async quotaSet(principal: string, values: Readonly<Record<string, number>>, opts?: WriteOptions & { reset?: boolean }): Promise<QuotaInfo[]> {
    const req = {
      principal,
      set: Object.entries(values).map(([name, value]) => ({ name, value })),
      reset: opts?.reset ?? false,
      requestId: opts?.requestId ?? randomUUID(),
    };
    return (await this.router.unary<AuthQuotaResponse__Output>('Auth.SetQuota', (ep, o, cb) => ep.auth.SetQuota(req, o, cb), this.ctl(opts))).quotas;
  }

  /** `principal`'s quotas in force and what it uses (an admin, or the principal itself). */
  async quotaGet(principal: string, opts?: CallOptions): Promise<QuotaInfo[]> {
    return (await this.router.unary<AuthQuotaResponse__Output>('Auth.GetQuota', (ep, o, cb) => ep.auth.GetQuota({ principal }, o, cb), this.ctl(opts))).quotas;
  }

  // ---- cluster ------------------------------------------------------------------------------

  /** Cluster.Status of the leader (or, with no leader known, of whichever node answers). */
  async status(opts?: CallOptions): Promise<NodeStatus> {
    return toNodeStatus(await this.router.unary<StatusResponse__Output>('Cluster.Status', (ep, o, cb) => ep.cluster.Status({}, o, cb), this.ctl(opts)));
  }

  /** Cluster.Status of every known endpoint and every member they report, each asked once, no retries. */
  async statusAll(opts?: CallOptions): Promise<EndpointStatus[]> {
    const { deadline } = this.ctl(opts);
    const asked = new Map<string, Promise<EndpointStatus>>();
    const ask = (address: string): Promise<EndpointStatus> =>
      new Promise((resolve) => {
        this.router.connections
          .get(address)
          .cluster.Status({}, { deadline: grpcDeadline(deadline) }, (err, res) =>
            resolve(err || !res ? { address, error: toLockdError(err) } : { address, status: toNodeStatus(res) }),
          );
      });
    for (let round = 0; round < 3; round++) {
      const before = asked.size;
      for (const a of this.router.endpoints()) if (!asked.has(a)) asked.set(a, ask(a));
      for (const r of await Promise.all(asked.values()))
        for (const m of r.status?.members ?? []) if (m.address && !asked.has(m.address)) asked.set(m.address, ask(m.address));
      if (asked.size === before) break;
    }
    return Promise.all(asked.values());
  }

  // ---- membership (operators; admin-only once the cluster has ACLs) ---------------------------

  /** The leader's member list: ids, peer and client addresses, roles, match indexes and lag. */
  async memberList(opts?: CallOptions): Promise<MemberListResponse__Output> {
    return this.router.unary<MemberListResponse__Output>('Membership.MemberList', (ep, o, cb) => ep.membership.MemberList({}, o, cb), this.ctl(opts));
  }

  /**
   * Add a member (as a learner unless `learner` is false); retried under one request id, so it is
   * applied once. `expectedConfigIndex`: refuse unless the configuration is still that one.
   */
  async memberAdd(
    m: { id: string; peerUrl: string; clientUrl?: string; learner?: boolean },
    opts: WriteOptions & { expectedConfigIndex?: number } = {},
  ): Promise<MemberChangeResponse__Output> {
    const req = {
      id: m.id,
      peerUrl: m.peerUrl,
      clientUrl: m.clientUrl ?? '',
      learner: m.learner ?? true,
      requestId: opts.requestId ?? randomUUID(),
      ...cas(opts),
    };
    return this.router.unary<MemberChangeResponse__Output>('Membership.MemberAdd', (ep, o, cb) => ep.membership.MemberAdd(req, o, cb), this.ctl(opts));
  }

  /** Promote a caught-up learner to a voter. */
  async memberPromote(id: string, opts: WriteOptions & { expectedConfigIndex?: number } = {}): Promise<MemberChangeResponse__Output> {
    const req = { id, requestId: opts.requestId ?? randomUUID(), ...cas(opts) };
    return this.router.unary<MemberChangeResponse__Output>('Membership.MemberPromote', (ep, o, cb) => ep.membership.MemberPromote(req, o, cb), this.ctl(opts));
  }

  /** Remove a member for good (its id is never usable again). */
  async memberRemove(id: string, opts: WriteOptions & { expectedConfigIndex?: number } = {}): Promise<MemberChangeResponse__Output> {
    const req = { id, requestId: opts.requestId ?? randomUUID(), ...cas(opts) };
    return this.router.unary<MemberChangeResponse__Output>('Membership.MemberRemove', (ep, o, cb) => ep.membership.MemberRemove(req, o, cb), this.ctl(opts));
  }

  /**
   * Hand leadership to `targetId` ('' or omitted: the most caught-up voter) and return once the
   * cluster has a new leader (Cluster.TransferLeader). Retried on UNAVAILABLE like every call: with
   * an explicit target a retry is harmless (the target already leading answers at once), without one
   * a retry after a lost answer may move leadership once more.
   */
  async transferLeader(targetId = '', opts?: CallOptions): Promise<LeaderTransfer> {
    const r = await this.router.unary<TransferLeaderResponse__Output>(
      'Cluster.TransferLeader',
      (ep, o, cb) => ep.cluster.TransferLeader({ targetId }, o, cb),
      this.ctl(opts),
    );
    if (r.leaderAddress) this.router.noteLeader(r.leaderAddress);
    return { leaderId: r.leaderId, leaderAddress: r.leaderAddress, term: r.term, previousLeaderId: r.previousLeaderId, transferred: r.transferred };
  }

  // ---- maintenance (operators; admin-only once the nodes verify client certificates) ----------

  /**
   * Save a backup of the cluster's state to `file` (Maintenance.Snapshot from the leader; written
   * to `file`.part, renamed to `file` once whole and its checksum verified: snapshot-save.ts).
   * Default timeout 5 minutes (a large state takes a while on a slow link).
   */
  async saveSnapshot(file: string, opts?: CallOptions): Promise<SavedSnapshot> {
    const ctl = this.ctl({ ...opts, timeoutMs: opts?.timeoutMs ?? 300_000 });
    return saveSnapshot(this.router, file, ctl);
  }

  /** Stop every lease this client keeps alive (their signals abort: 'closed') and close all connections. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of [...this.leases]) l.close();
    this.router.close();
  }
}

function cas(o: { expectedConfigIndex?: number }): { expectedConfigIndex?: number } {
  return o.expectedConfigIndex === undefined ? {} : { expectedConfigIndex: o.expectedConfigIndex };
}
