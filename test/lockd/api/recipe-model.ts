// A plain reference model of issue 16's recipes, for the recipe property test: per name a list of
// holders and a FIFO queue — semaphores (permits N), read-write locks (shared/exclusive, downgrade
// allowed, upgrade refused), lock-delay after a revoke, SetPermits, and elections (Campaign is a
// waiting mutex Acquire with a value; Leader the one exclusive holder). Written from the contract
// (proto/lockd.proto), sharing no code with src/lockd. The mutex's request-id and CancelWait rules
// have their own model (api-model.ts); here every request has a fresh request id.
//
// Determinism: leases never expire (long TTLs, ended by Revoke) and every lock-delay is the
// maximum (60 s), longer than a run (the runner calls a run that lasts too long inconclusive), so a
// delay started in a run never ends in it: what the API promises — nobody is granted the name, the
// waiters stay queued, Inspect and a refused Acquire show a delay of at most 60 s — is exact. How
// much of it remains depends on the clock: the model expects a Range.

import { isFresh, type Fresh, type Range, type Val } from './answer-match.js';

export const MAX_DELAY_MS = 60_000;
/** A lock-delay's remaining time or end on the logical clock: positive, at most the delay (for the end: any time after 0). */
const REMAINING: Range = { min: 1, max: MAX_DELAY_MS };
const SOMETIME: Range = { min: 1, max: Number.MAX_SAFE_INTEGER };

export const CODE = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9 } as const;

export type RecipeReq =
  | { readonly t: 'grant' }
  | { readonly t: 'revoke'; readonly lease: number }
  | { readonly t: 'acquire'; readonly name: string; readonly lease: number; readonly wait: boolean; readonly permits: number; readonly shared: boolean; readonly lockDelayMs: number }
  | { readonly t: 'release'; readonly name: string; readonly token: number; readonly lease: number }
  | { readonly t: 'setPermits'; readonly name: string; readonly permits: number }
  | { readonly t: 'inspect'; readonly name: string }
  | { readonly t: 'campaign'; readonly name: string; readonly lease: number; readonly value: string }
  | { readonly t: 'proclaim'; readonly name: string; readonly lease: number; readonly token: number; readonly value: string }
  | { readonly t: 'leader'; readonly name: string }
  | { readonly t: 'resign'; readonly name: string; readonly lease: number; readonly token: number };

export type Answer = { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly code: number };

export interface Expectation {
  readonly answer: Answer | 'pending';
  /** Waiting calls (by call id) this request ends, with their answers. */
  readonly resolves: ReadonlyMap<number, Answer>;
}

interface Holder {
  lease: number;
  token: Val;
  shared: boolean;
  lockDelayMs: number;
  value: string;
}
interface Waiter {
  lease: number;
  shared: boolean;
  lockDelayMs: number;
  value: string;
  /** The waiting call's id, and whether it is a Campaign (its answer is a leadership). */
  call: number;
  campaign: boolean;
}
interface Lock {
  permits: number;
  holders: Holder[];
  queue: Waiter[];
  delayed: boolean;
  /** Made by a Campaign: only campaigns join it, SetPermits is refused (one leader). */
  election: boolean;
}

const ok = (body: Record<string, unknown>): Answer => ({ ok: true, body });
const fail = (code: number): Answer => ({ ok: false, code });

export class RecipeModel {
  private readonly leases = new Set<number>();
  private readonly locks = new Map<string, Lock>();
  private readonly bound = new Map<string, number>();
  private nextSym = 0;
  private pendingGrant: Fresh | undefined;
  /** The highest entry index a lease id or token seen names (tokenIndex for a token): a fresh value is made after it. */
  maxSeen = 0;
  readonly granted: number[] = [];
  /** Whether a lock-delay has started in this run (the runner bounds the run's length then). */
  delayStarted = false;
  /** The interesting paths this run's requests took (the test insists each is taken by some seed). */
  readonly tags = new Map<string, number>();

  private tag(t: string): void {
    this.tags.set(t, (this.tags.get(t) ?? 0) + 1);
  }

  // ---- values ----

  val(v: Val): number | undefined {
    return isFresh(v) ? this.bound.get(v.fresh) : v;
  }
  bind(sym: string, value: number, index: number): void {
    this.bound.set(sym, value);
    this.maxSeen = Math.max(this.maxSeen, index);
  }
  saw(index: number): void {
    this.maxSeen = Math.max(this.maxSeen, index);
  }
  private fresh(): Fresh {
    return { fresh: `v${this.nextSym++}` };
  }

  // ---- views for the generator ----

  liveLeases(): number[] {
    return [...this.leases];
  }
  holders(name: string): Array<{ lease: number; token: number | undefined; shared: boolean }> {
    return (this.locks.get(name)?.holders ?? []).map((h) => ({ lease: h.lease, token: this.val(h.token), shared: h.shared }));
  }
  /** The permits of a name that has a lock (held, waited for or delayed). */
  permitsOf(name: string): number | undefined {
    return this.locks.get(name)?.permits;
  }
  isWaiting(lease: number, name: string): boolean {
    return this.locks.get(name)?.queue.some((w) => w.lease === lease) ?? false;
  }
  /** After the runner bound a Grant's fresh id: the lease exists. */
  adopt(): void {
    const g = this.pendingGrant;
    this.pendingGrant = undefined;
    if (!g) return;
    const id = this.bound.get(g.fresh)!;
    this.leases.add(id);
    this.granted.push(id);
  }

  // ---- the semantics ----

  step(req: RecipeReq, call: number): Expectation {
    const resolves = new Map<number, Answer>();
    return { answer: this.apply(req, call, resolves), resolves };
  }

  private apply(req: RecipeReq, call: number, resolves: Map<number, Answer>): Answer | 'pending' {
    switch (req.t) {
      case 'grant':
        this.pendingGrant = this.fresh();
        return ok({ leaseId: this.pendingGrant });
      case 'revoke':
        return this.revoke(req.lease, resolves);
      case 'acquire':
        return this.acquire(req.name, req.lease, { shared: req.shared, lockDelayMs: req.lockDelayMs, value: '' }, req.permits, req.wait, call, false, resolves);
      case 'campaign':
        return this.acquire(req.name, req.lease, { shared: false, lockDelayMs: 0, value: req.value }, 1, true, call, true, resolves);
      case 'release':
      case 'resign':
        return this.release(req, resolves);
      case 'setPermits':
        return this.setPermits(req.name, req.permits, resolves);
      case 'inspect':
        return ok(this.inspect(req.name));
      case 'leader': {
        const h = this.leaderOf(req.name);
        return h ? ok({ hasLeader: true, leader: { name: req.name, leaseId: h.lease, fencingToken: h.token }, value: h.value }) : fail(CODE.NOT_FOUND);
      }
      case 'proclaim': {
        const h = this.leaderOf(req.name);
        if (!h || this.val(h.token) !== req.token || h.lease !== req.lease) return fail(CODE.FAILED_PRECONDITION); // lease and token both the leader's
        h.value = req.value;
        this.tag('proclaimed');
        return ok({});
      }
    }
  }

  /** An election's leader: the one exclusive holder of a mutex. */
  private leaderOf(name: string): Holder | undefined {
    const l = this.locks.get(name);
    return l?.election ? l.holders[0] : undefined;
  }

  private inspect(name: string): Record<string, unknown> {
    const l = this.locks.get(name);
    if (!l) return { held: false, fencingToken: 0, holderLeaseId: 0, waitingLeaseIds: [], permits: 1, holders: [], waitingShared: [], lockDelayUntilMs: 0, lockDelayRemainingMs: 0 };
    const first = l.holders[0];
    return {
      held: first !== undefined,
      fencingToken: first?.token ?? 0,
      holderLeaseId: first?.lease ?? 0,
      waitingLeaseIds: l.queue.map((w) => w.lease),
      permits: l.permits,
      holders: l.holders.map((h) => ({ leaseId: h.lease, fencingToken: h.token, shared: h.shared, lockDelayMs: h.lockDelayMs })),
      waitingShared: l.queue.map((w) => w.shared),
      lockDelayUntilMs: l.delayed ? SOMETIME : 0,
      lockDelayRemainingMs: l.delayed ? REMAINING : 0,
    };
  }

  /** Whether `ask` could be granted now, queue aside: no delay, and a shared ask among shared holders, an exclusive one within the permits among exclusive ones. */
  private fits(l: Lock, shared: boolean): boolean {
    if (l.delayed) return false;
    return shared ? l.holders.every((h) => h.shared) : l.holders.length < l.permits && l.holders.every((h) => !h.shared);
  }

  private acquire(
    name: string,
    lease: number,
    ask: { shared: boolean; lockDelayMs: number; value: string },
    permits: number,
    wait: boolean,
    call: number,
    campaign: boolean,
    resolves: Map<number, Answer>,
  ): Answer | 'pending' {
    if (ask.shared && permits > 1) return fail(CODE.INVALID_ARGUMENT);
    if (!this.leases.has(lease)) return fail(CODE.NOT_FOUND);
    const p = Math.max(1, permits);
    const granted = (token: Val, shared = ask.shared): Answer =>
      campaign ? ok({ leader: { name, leaseId: lease, fencingToken: token } }) : ok({ acquired: true, fencingToken: token, holderLeaseId: lease, grantEnded: false, endedFencingToken: 0, lockDelayRemainingMs: 0, shared });
    const l = this.locks.get(name);
    if (!l) {
      const token = this.fresh();
      this.locks.set(name, { permits: p, holders: [{ lease, token, ...ask }], queue: [], delayed: false, election: campaign });
      return granted(token);
    }
    const idle = l.holders.length === 0 && l.queue.length === 0;
    if (l.election !== campaign && !idle) {
      this.tag(campaign ? 'campaign on a lock refused' : 'acquire on an election refused');
      return fail(CODE.FAILED_PRECONDITION);
    }
    if (l.permits !== p && !idle) {
      this.tag('permits disagree');
      return fail(CODE.FAILED_PRECONDITION);
    }
    const mine = l.holders.find((h) => h.lease === lease);
    if (mine) {
      if (mine.shared && !ask.shared) {
        this.tag('upgrade refused');
        return fail(CODE.FAILED_PRECONDITION);
      }
      if (!mine.shared && ask.shared) {
        this.tag(l.queue[0]?.shared ? 'downgrade grants readers' : 'downgrade');
        mine.shared = true; // downgrade in place: same token; the shared head of the queue joins
        this.grantWaiters(name, l, resolves);
      }
      return granted(mine.token, mine.shared);
    }
    const queued = l.queue.find((w) => w.lease === lease);
    const notAcquired = () => ok({ acquired: false, fencingToken: 0, holderLeaseId: l!.holders[0]?.lease ?? 0, grantEnded: false, endedFencingToken: 0, lockDelayRemainingMs: l!.delayed ? REMAINING : 0, shared: false });
    if (queued) {
      if (queued.shared !== ask.shared) return fail(CODE.FAILED_PRECONDITION);
      if (wait) throw new Error('model: a second waiting call on one wait is not modelled (the runner does not send it)');
      return notAcquired();
    }
    if (l.queue.length === 0 && this.fits(l, ask.shared)) {
      const token = this.fresh();
      l.holders.push({ lease, token, ...ask });
      this.tag(ask.shared ? 'shared beside shared' : 'semaphore holders > 1');
      return granted(token);
    }
    if (l.delayed) this.tag('refused during a lock-delay');
    else if (this.fits(l, ask.shared)) this.tag('queued behind a waiter although it fits'); // FIFO: e.g. a reader behind a waiting writer
    if (!wait) return notAcquired();
    if (idle) {
      l.permits = p;
      l.election = campaign;
    }
    l.queue.push({ lease, ...ask, call, campaign });
    return 'pending';
  }

  /** Grant the head of the queue while it fits (all in one entry, each grant its own token), then drop a lock nothing holds or delays. */
  private grantWaiters(name: string, l: Lock, resolves: Map<number, Answer>): void {
    while (l.queue.length > 0 && this.fits(l, l.queue[0].shared)) {
      const w = l.queue.shift()!;
      const token = this.fresh();
      this.tag(w.campaign ? 'campaign won after waiting' : 'waiter granted');
      l.holders.push({ lease: w.lease, token, shared: w.shared, lockDelayMs: w.lockDelayMs, value: w.value });
      resolves.set(
        w.call,
        w.campaign
          ? ok({ leader: { name, leaseId: w.lease, fencingToken: token } })
          : ok({ acquired: true, fencingToken: token, holderLeaseId: w.lease, grantEnded: false, endedFencingToken: 0, lockDelayRemainingMs: 0, shared: w.shared }),
      );
    }
    if (l.holders.length === 0 && !l.delayed) this.locks.delete(name);
  }

  private release(req: Extract<RecipeReq, { t: 'release' | 'resign' }>, resolves: Map<number, Answer>): Answer {
    const resign = req.t === 'resign';
    const l = this.locks.get(req.name);
    if (!l || l.holders.length === 0) return resign ? ok({ resigned: false }) : fail(CODE.NOT_FOUND);
    const mine = l.holders.filter((h) => this.val(h.token) === req.token && (req.lease === 0 || h.lease === req.lease));
    if (mine.length === 0) return ok(resign ? { resigned: false } : { released: false });
    if (mine.length > 1) return fail(CODE.FAILED_PRECONDITION); // one token, several grants: say whose
    l.holders.splice(l.holders.indexOf(mine[0]), 1);
    this.grantWaiters(req.name, l, resolves);
    return ok(resign ? { resigned: true } : { released: true });
  }

  private setPermits(name: string, permits: number, resolves: Map<number, Answer>): Answer {
    const l = this.locks.get(name);
    if (!l || (l.holders.length === 0 && l.queue.length === 0)) return fail(CODE.NOT_FOUND);
    if (l.election) {
      this.tag('setPermits on an election refused');
      return fail(CODE.FAILED_PRECONDITION);
    }
    if (permits > 1 && (l.holders.some((h) => h.shared) || l.queue.some((w) => w.shared))) return fail(CODE.FAILED_PRECONDITION);
    if (permits < l.holders.length) {
      this.tag('setPermits below the holders refused'); // a grant is never taken back
      return fail(CODE.FAILED_PRECONDITION);
    }
    const previous = l.permits;
    const before = l.holders.length;
    l.permits = permits;
    this.grantWaiters(name, l, resolves);
    this.tag(l.holders.length > before ? 'setPermits granted' : permits < previous ? 'setPermits shrank' : 'setPermits');
    return ok({ previous, granted: l.holders.length - before });
  }

  /** Revoke: the lease's waits end NOT_FOUND, then its grants end (starting their lock-delays), then the queues move — one entry. */
  private revoke(lease: number, resolves: Map<number, Answer>): Answer {
    if (!this.leases.delete(lease)) return fail(CODE.NOT_FOUND);
    const touched = new Set<string>();
    for (const [name, l] of this.locks) {
      const w = l.queue.find((x) => x.lease === lease);
      if (w) {
        l.queue.splice(l.queue.indexOf(w), 1);
        resolves.set(w.call, fail(CODE.NOT_FOUND));
        touched.add(name);
      }
      const h = l.holders.find((x) => x.lease === lease);
      if (h) {
        l.holders.splice(l.holders.indexOf(h), 1);
        if (h.lockDelayMs > 0) {
          l.delayed = this.delayStarted = true;
          this.tag('lock-delay started');
        }
        touched.add(name);
      }
    }
    for (const name of touched) {
      const l = this.locks.get(name);
      if (l) this.grantWaiters(name, l, resolves);
    }
    return ok({});
  }
}
