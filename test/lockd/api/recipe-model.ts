// A plain reference model of the recipes, for the recipe property test: per name a list of
// holders and a FIFO queue — semaphores (permits N), read-write locks (shared/exclusive, downgrade
// allowed, upgrade refused), lock-delay after a revoke, SetPermits, and elections (Campaign is a
// waiting mutex Acquire with a value; Leader the one exclusive holder). Written from the contract
// (proto/lockd.proto), sharing no code with src/lockd. The mutex's request-id and CancelWait rules
// have their own model (api-model.ts); here every request has a fresh request id.
//
// Tokens: the model knows only what the proto promises — every grant gets a token no other grant
// ever had, increasing per lock — so each grant is its own Fresh symbol, and a grant is named by its
// symbol, not by the number (two grants answered with one number are a violation, in `violations`).
// Stale actors (a client still acting after its grant or lease ended) name the ended grant they
// once held: such a grant never releases, resigns, proclaims or fence-writes anything.
//
// Determinism: leases never expire (long TTLs, ended by Revoke) and every lock-delay is the
// maximum (60 s), longer than a run (the runner calls a run that lasts too long inconclusive), so a
// delay started in a run never ends in it: what the API promises — nobody is granted the name, the
// waiters stay queued, Inspect and a refused Acquire show a delay of at most 60 s — is exact. How
// much of it remains depends on the clock: the model expects a Range.

import { isFresh, type Fresh, type Range, type Val } from './answer-match.js';

export const MAX_DELAY_MS = 60_000;
/** Diagnosis only (LOCKD_PROP_SHARED_TOKENS=1): do not report two grants answered with one token, to see what stale actors do with it. */
const TOLERATE_SHARED_TOKENS = process.env.LOCKD_PROP_SHARED_TOKENS === '1';
/** A lock-delay's remaining time or end on the logical clock: positive, at most the delay (for the end: any time after 0). */
const REMAINING: Range = { min: 1, max: MAX_DELAY_MS };
const SOMETIME: Range = { min: 1, max: Number.MAX_SAFE_INTEGER };

export const CODE = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9, ABORTED: 10 } as const;

export type RecipeReq =
  | { readonly t: 'grant' }
  | { readonly t: 'revoke'; readonly lease: number }
  /** rid: its request id; retryOf: the call whose request this one resends (same request id). */
  | {
      readonly t: 'acquire';
      readonly name: string;
      readonly lease: number;
      readonly wait: boolean;
      readonly permits: number;
      readonly shared: boolean;
      readonly lockDelayMs: number;
      readonly rid: string;
      readonly retryOf?: number;
    }
  /** grant: the grant's symbol when the caller names one it held (maybe ended since); else the token is made up or merely seen. */
  | { readonly t: 'release'; readonly name: string; readonly token: number; readonly lease: number; readonly grant?: string }
  | { readonly t: 'setPermits'; readonly name: string; readonly permits: number }
  | { readonly t: 'inspect'; readonly name: string }
  | { readonly t: 'campaign'; readonly name: string; readonly lease: number; readonly value: string }
  | { readonly t: 'proclaim'; readonly name: string; readonly lease: number; readonly token: number; readonly value: string; readonly grant?: string }
  | { readonly t: 'leader'; readonly name: string }
  | { readonly t: 'resign'; readonly name: string; readonly lease: number; readonly token: number; readonly grant?: string }
  /** Fence.Write(key, token, lock = name). */
  | { readonly t: 'fenceWrite'; readonly name: string; readonly key: string; readonly token: number; readonly grant?: string }
  /** A third party's CancelWait(name, lease, abandoned_at_index = an index it read from a QUEUED event), without the waiter's request id. */
  | { readonly t: 'cancelWait'; readonly name: string; readonly lease: number; readonly index: number }
  /** One KeepAlive on a fresh stream (ttlMs: the leases' TTL). */
  | { readonly t: 'keepAlive'; readonly lease: number; readonly ttlMs: number }
  /** Fence.Read(key): the value and token of the last write the model accepted. */
  | { readonly t: 'fenceRead'; readonly key: string }
  /**
   * A request the proto says is refused whole (INVALID_ARGUMENT, nothing changed): a string field
   * that is not UTF-8 on the wire, or a 64-bit number past 2^53 (sent as a decimal string so it
   * reaches the wire exactly). rpc: the unary method; body: its request message; tag: the coverage tag.
   */
  | { readonly t: 'invalid'; readonly rpc: InvalidRpc; readonly body: Record<string, unknown>; readonly tag: string; readonly after: readonly RecipeReq[] };

/** The unary methods an `invalid` request is sent to (KeepAlive: one message on a fresh stream). */
export type InvalidRpc =
  | 'Lease.Grant'
  | 'Lease.Revoke'
  | 'Lease.KeepAlive'
  | 'Lock.Acquire'
  | 'Lock.Release'
  | 'Lock.SetPermits'
  | 'Lock.CancelWait'
  | 'Fence.Write'
  | 'Election.Campaign'
  | 'Election.Proclaim';

/** A change the proto says Lock.Observe shows (token: the grant's, 0 for none, undefined: not compared). */
export interface ExpectedEvent {
  readonly type: 'ACQUIRED' | 'RELEASED' | 'DOWNGRADED' | 'PERMITS_CHANGED' | 'PROCLAIMED';
  readonly lease: number;
  readonly token: Val | undefined;
  /** The op that made it. */
  readonly by: number;
}

/** A grant that has ended (released, resigned, its lease revoked): what a paused client still holds. */
export interface EndedGrant {
  readonly name: string;
  readonly lease: number;
  readonly sym: string;
  readonly token: number;
}

/** details: the server's message (diagnosis only, never compared). */
export type Answer = { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly code: number; readonly details?: string };

export interface Expectation {
  readonly answer: Answer | 'pending';
  /** Waiting calls (by call id) this request ends, with their answers. */
  readonly resolves: ReadonlyMap<number, Answer>;
}

interface Holder {
  lease: number;
  token: Fresh;
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
  req: Extract<RecipeReq, { t: 'acquire' }> | undefined;
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
  /** The highest lease id or token seen: a fresh value must exceed it. */
  maxSeen = 0;
  /** The highest value seen per class (lease ids; each lock's tokens): a fresh value of a class exceeds its class's. */
  private readonly floors = new Map<string, number>();
  private readonly symCls = new Map<string, string>();
  /** Which symbol holds each lease id and each token: two grants (or leases) with one value is a violation. */
  private readonly owners = new Map<string, string>();
  /** Broken promises the answers showed that no single answer's shape reveals (e.g. two grants, one token). */
  readonly violations: string[] = [];
  readonly granted: number[] = [];
  readonly ended: EndedGrant[] = [];
  /** Per name, the changes Lock.Observe must show. */
  readonly events = new Map<string, ExpectedEvent[]>();
  /** Per name, the leases that queued on it (a third party can read their QUEUED events). */
  readonly queuedOn = new Map<string, Set<number>>();
  /** Acquire calls answered with a grant: their request and that grant (a retry asks about it). */
  readonly grantCalls = new Map<number, { req: Extract<RecipeReq, { t: 'acquire' }>; name: string; holder: Holder }>();
  private readonly fenced = new Map<string, number>();
  private op = -1;
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
  bind(sym: string, value: number): void {
    this.bound.set(sym, value);
    this.maxSeen = Math.max(this.maxSeen, value);
    const cls = this.symCls.get(sym) ?? '';
    this.floors.set(cls, Math.max(this.floors.get(cls) ?? 0, value));
    const what = cls === 'lease' ? 'lease' : 'token';
    // A token is unique per lock (proto: "no other grant of that lock ever had it"): one entry
    // granting two locks gives both the same index × 1024 + 0. The class is the lock's.
    const key = `${cls}:${value}`;
    const other = this.owners.get(key);
    if (other !== undefined && other !== sym && !(what === 'token' && TOLERATE_SHARED_TOKENS))
      this.violations.push(
        what === 'token'
          ? `two grants of ${cls.slice('token:'.length)} got one fencing token ${value} (a token names one grant of its lock)`
          : `two leases got one id ${value}`,
      );
    this.owners.set(key, sym);
  }
  saw(value: number): void {
    this.maxSeen = Math.max(this.maxSeen, value);
  }
  /**
   * What a fresh value must exceed: the highest of its class (each lock's tokens; lease ids; else
   * any value) seen when the model made it, i.e. before the request that makes it was sent. Not as
   * of when it is first seen: a grant made while its answer is held up (a waiter on a paused node)
   * is older than the tokens seen meanwhile. Seed 14 with LOCKD_PROP_BURST=5: a Revoke hands the
   * paused node's waiter token 11508736, a SetPermits then grants 11512832 on another node and is
   * answered at once, and an Inspect shows the waiter's token below it — right, not a stale token.
   */
  floorOf = (f: Fresh): number => this.symFloor.get(f.fresh) ?? 0;
  private readonly symFloor = new Map<string, number>();
  private fresh(cls?: string): Fresh {
    const f = { fresh: `v${this.nextSym++}`, cls };
    if (cls !== undefined) this.symCls.set(f.fresh, cls);
    this.symFloor.set(f.fresh, cls === undefined ? this.maxSeen : (this.floors.get(cls) ?? 0));
    return f;
  }
  private tokenFor(name: string): Fresh {
    return this.fresh(`token:${name}`);
  }
  private event(name: string, type: ExpectedEvent['type'], lease: number, token: Val | undefined): void {
    let l = this.events.get(name);
    if (!l) this.events.set(name, (l = []));
    l.push({ type, lease, token, by: this.op });
  }
  private ends(name: string, h: Holder): void {
    this.event(name, 'RELEASED', h.lease, h.token);
    const token = this.val(h.token);
    if (token !== undefined) this.ended.push({ name, lease: h.lease, sym: h.token.fresh, token });
  }

  // ---- views for the generator ----

  liveLeases(): number[] {
    return [...this.leases];
  }
  holders(name: string): Array<{ lease: number; token: number | undefined; shared: boolean; sym: string }> {
    return (this.locks.get(name)?.holders ?? []).map((h) => ({ lease: h.lease, token: this.val(h.token), shared: h.shared, sym: h.token.fresh }));
  }
  isLive(lease: number): boolean {
    return this.leases.has(lease);
  }
  /** Whether the grant named by this symbol still holds. */
  holds(name: string, sym: string): boolean {
    return this.locks.get(name)?.holders.some((h) => h.token.fresh === sym) ?? false;
  }
  /** Whether the name is an election now (made by a Campaign): at most one holder, whatever else is sent. */
  isElection(name: string): boolean {
    return this.locks.get(name)?.election ?? false;
  }
  isDelayed(name: string): boolean {
    return this.locks.get(name)?.delayed ?? false;
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
    this.op = call;
    return { answer: this.apply(req, call, resolves), resolves };
  }

  private apply(req: RecipeReq, call: number, resolves: Map<number, Answer>): Answer | 'pending' {
    switch (req.t) {
      case 'grant':
        this.pendingGrant = this.fresh('lease');
        return ok({ leaseId: this.pendingGrant });
      case 'revoke':
        return this.revoke(req.lease, resolves);
      case 'acquire':
        if (req.retryOf !== undefined) return this.retry(req.retryOf);
        return this.acquire(
          req.name,
          req.lease,
          { shared: req.shared, lockDelayMs: req.lockDelayMs, value: '' },
          req.permits,
          req.wait,
          call,
          false,
          resolves,
          req,
        );
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
        if (req.grant !== undefined && !this.holds(req.name, req.grant)) this.tag('stale proclaim');
        // The whole key: its token and its lease_id (proto: Proclaim's key must name the leader's lease and token).
        if (!h || !this.names(h, req) || h.lease !== req.lease) return fail(CODE.FAILED_PRECONDITION);
        h.value = req.value;
        this.event(req.name, 'PROCLAIMED', h.lease, h.token);
        this.tag('proclaimed');
        return ok({});
      }
      case 'fenceWrite':
        return this.fenceWrite(req);
      case 'cancelWait':
        // Without the waiting call's request id nothing changes, whatever the index (the proto: no
        // third party can release a grant handed to a waiter, nor take it out of the queue this way).
        this.tag(this.holders(req.name).some((h) => h.lease === req.lease) ? 'third-party cancel of a grant' : 'third-party cancel');
        return ok({ removed: false, released: false });
      case 'keepAlive':
        if (!this.leases.has(req.lease)) this.tag('keepalive of an ended lease');
        return ok({ ttlMs: this.leases.has(req.lease) ? { min: 1, max: req.ttlMs } : 0 });
      case 'fenceRead': {
        const t = this.fenced.get(req.key);
        return ok({ value: t === undefined ? '' : `t${t}`, fencingToken: t ?? 0 });
      }
      case 'invalid':
        // Refused before anything reads it: no lock, lease, wait, key or value changes.
        this.tag(req.tag);
        return fail(CODE.INVALID_ARGUMENT);
    }
  }

  /** Whether a request's token names holder h: by the grant it names, else (a made-up or seen token) by number. */
  private names(h: Holder, req: { token: number; grant?: string }): boolean {
    return req.grant !== undefined ? h.token.fresh === req.grant : this.val(h.token) === req.token;
  }

  /** Fence.Write bound to the lock: only a live exclusive (or semaphore) holder's token, and not below the key's highest. */
  private fenceWrite(req: Extract<RecipeReq, { t: 'fenceWrite' }>): Answer {
    const stale = req.grant !== undefined && !this.holds(req.name, req.grant);
    if (stale) this.tag('stale fence write');
    const h = this.locks.get(req.name)?.holders.find((x) => this.names(x, req));
    const highest = this.fenced.get(req.key) ?? 0;
    if (!h || h.shared || req.token < highest) return fail(CODE.FAILED_PRECONDITION);
    this.fenced.set(req.key, req.token);
    this.tag('fence write accepted');
    return ok({ highestToken: req.token });
  }

  /** A retry (same request id) of an Acquire answered with a grant: that grant now, as the proto's Acquire says. */
  private retry(of: number): Answer {
    const c = this.grantCalls.get(of)!;
    if (!this.leases.has(c.req.lease)) return fail(CODE.NOT_FOUND);
    const l = this.locks.get(c.name);
    if (l?.holders.includes(c.holder)) {
      this.tag(c.holder.shared !== c.req.shared ? 'retry after a downgrade' : 'retry of a live grant');
      return ok({
        acquired: true,
        fencingToken: c.holder.token,
        holderLeaseId: c.req.lease,
        grantEnded: false,
        endedFencingToken: 0,
        lockDelayRemainingMs: 0,
        shared: c.holder.shared,
      });
    }
    this.tag('retry of an ended grant');
    return ok({
      acquired: false,
      fencingToken: 0,
      holderLeaseId: l?.holders[0]?.lease ?? 0,
      grantEnded: true,
      endedFencingToken: c.holder.token,
      lockDelayRemainingMs: l?.delayed ? REMAINING : 0,
      shared: false,
    });
  }

  /** An election's leader: the one exclusive holder of a mutex. */
  /**
   * How a waiting call the model granted (answered `granted`) is settled from the state now, as a
   * node that catches up by a snapshot of this state does (proto, Lock.Acquire): a grant that still
   * holds is answered; a lease ended, NOT_FOUND; a live lease whose grant has ended asks again as a
   * retry with its request_id: an Acquire answers grant_ended, a Campaign ABORTED.
   */
  settleAnswer(req: RecipeReq, granted: Answer): Answer {
    if (!granted.ok || (req.t !== 'acquire' && req.t !== 'campaign')) return granted;
    if (!this.leases.has(req.lease)) return fail(CODE.NOT_FOUND);
    const token = (req.t === 'campaign' ? (granted.body.leader as { fencingToken: Fresh }).fencingToken : granted.body.fencingToken) as Fresh;
    if (this.holds(req.name, token.fresh)) return granted;
    if (req.t === 'campaign') return fail(CODE.ABORTED);
    const l = this.locks.get(req.name);
    return ok({
      acquired: false,
      fencingToken: 0,
      holderLeaseId: l?.holders[0]?.lease ?? 0,
      grantEnded: true,
      endedFencingToken: token,
      lockDelayRemainingMs: l?.delayed ? REMAINING : 0,
      shared: false,
    });
  }

  /** The leadership Election.Observe must show last for `name` (undefined: nobody leads). */
  leadership(name: string): { lease: number; token: number | undefined; value: string } | undefined {
    const h = this.leaderOf(name);
    return h ? { lease: h.lease, token: this.val(h.token), value: h.value } : undefined;
  }

  private leaderOf(name: string): Holder | undefined {
    const l = this.locks.get(name);
    return l?.election ? l.holders[0] : undefined;
  }

  private inspect(name: string): Record<string, unknown> {
    const l = this.locks.get(name);
    if (!l)
      return {
        held: false,
        fencingToken: 0,
        holderLeaseId: 0,
        waitingLeaseIds: [],
        permits: 1,
        holders: [],
        waitingShared: [],
        lockDelayUntilMs: 0,
        lockDelayRemainingMs: 0,
      };
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
    req?: Extract<RecipeReq, { t: 'acquire' }>,
  ): Answer | 'pending' {
    if (/[\uD800-\uDFFF]/.test(name)) {
      this.tag('invalid UTF-8 name refused');
      return fail(CODE.INVALID_ARGUMENT);
    }
    if (ask.shared && permits > 1) return fail(CODE.INVALID_ARGUMENT);
    if (!this.leases.has(lease)) return fail(CODE.NOT_FOUND);
    const p = Math.max(1, permits);
    const granted = (h: Holder): Answer => {
      if (req) this.grantCalls.set(call, { req, name, holder: h });
      return campaign
        ? ok({ leader: { name, leaseId: lease, fencingToken: h.token } })
        : ok({
            acquired: true,
            fencingToken: h.token,
            holderLeaseId: lease,
            grantEnded: false,
            endedFencingToken: 0,
            lockDelayRemainingMs: 0,
            shared: h.shared,
          });
    };
    const l = this.locks.get(name);
    if (!l) {
      const h = { lease, token: this.tokenFor(name), ...ask };
      this.locks.set(name, { permits: p, holders: [h], queue: [], delayed: false, election: campaign });
      this.event(name, 'ACQUIRED', lease, h.token);
      return granted(h);
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
        this.event(name, 'DOWNGRADED', mine.lease, mine.token);
        this.grantWaiters(name, l, resolves);
      }
      return granted(mine);
    }
    const queued = l.queue.find((w) => w.lease === lease);
    const notAcquired = () =>
      ok({
        acquired: false,
        fencingToken: 0,
        holderLeaseId: l!.holders[0]?.lease ?? 0,
        grantEnded: false,
        endedFencingToken: 0,
        lockDelayRemainingMs: l!.delayed ? REMAINING : 0,
        shared: false,
      });
    if (queued) {
      if (queued.shared !== ask.shared) return fail(CODE.FAILED_PRECONDITION);
      if (wait) throw new Error('model: a second waiting call on one wait is not modelled (the runner does not send it)');
      return notAcquired();
    }
    if (l.queue.length === 0 && this.fits(l, ask.shared)) {
      const h = { lease, token: this.tokenFor(name), ...ask };
      l.holders.push(h);
      this.event(name, 'ACQUIRED', lease, h.token);
      this.tag(ask.shared ? 'shared beside shared' : 'semaphore holders > 1');
      return granted(h);
    }
    if (l.delayed) this.tag('refused during a lock-delay');
    else if (this.fits(l, ask.shared)) this.tag('queued behind a waiter although it fits'); // FIFO: e.g. a reader behind a waiting writer
    if (!wait) return notAcquired();
    if (idle) {
      l.permits = p;
      l.election = campaign;
    }
    l.queue.push({ lease, ...ask, call, campaign, req });
    let q = this.queuedOn.get(name);
    if (!q) this.queuedOn.set(name, (q = new Set()));
    q.add(lease);
    return 'pending';
  }

  /** Grant the head of the queue while it fits (in one entry, but each grant its own token), then drop a lock nothing holds or delays. */
  private grantWaiters(name: string, l: Lock, resolves: Map<number, Answer>): void {
    let n = 0;
    while (l.queue.length > 0 && this.fits(l, l.queue[0].shared)) {
      const w = l.queue.shift()!;
      const token = this.tokenFor(name);
      this.tag(w.campaign ? 'campaign won after waiting' : 'waiter granted');
      if (++n === 2) this.tag('one entry granted several');
      const h = { lease: w.lease, token, shared: w.shared, lockDelayMs: w.lockDelayMs, value: w.value };
      l.holders.push(h);
      this.event(name, 'ACQUIRED', w.lease, token);
      if (w.req) this.grantCalls.set(w.call, { req: w.req, name, holder: h });
      resolves.set(
        w.call,
        w.campaign
          ? ok({ leader: { name, leaseId: w.lease, fencingToken: token } })
          : ok({
              acquired: true,
              fencingToken: token,
              holderLeaseId: w.lease,
              grantEnded: false,
              endedFencingToken: 0,
              lockDelayRemainingMs: 0,
              shared: w.shared,
            }),
      );
    }
    if (l.holders.length === 0 && !l.delayed) this.locks.delete(name);
  }

  private release(req: Extract<RecipeReq, { t: 'release' | 'resign' }>, resolves: Map<number, Answer>): Answer {
    const resign = req.t === 'resign';
    const l = this.locks.get(req.name);
    if (!l || l.holders.length === 0) return resign ? ok({ resigned: false }) : fail(CODE.NOT_FOUND);
    if (req.grant !== undefined && !this.holds(req.name, req.grant))
      this.tag(req.lease === 0 ? 'stale release without lease' : resign ? 'stale resign' : 'stale release');
    const mine = l.holders.filter((h) => this.names(h, req) && (req.lease === 0 || h.lease === req.lease));
    if (mine.length === 0) return ok(resign ? { resigned: false } : { released: false });
    l.holders.splice(l.holders.indexOf(mine[0]), 1);
    this.ends(req.name, mine[0]);
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
    // SetPermits with nobody to grant: no waiter is granted, so only the PERMITS_CHANGED event shows the change.
    if (permits !== previous && l.queue.length === 0) this.tag('setPermits changed with no waiters');
    l.permits = permits;
    if (permits !== previous) this.event(name, 'PERMITS_CHANGED', 0, 0);
    this.grantWaiters(name, l, resolves);
    this.tag(l.holders.length > before ? 'setPermits granted' : permits < previous ? 'setPermits shrank' : 'setPermits');
    return ok({ previous, granted: l.holders.length - before });
  }

  /** Revoke: the lease's waits end NOT_FOUND, then its grants end (starting their lock-delays), then the queues move — one entry, one token. */
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
        this.ends(name, h);
        if (l.holders.length > 0) this.tag('a holder ended beside another');
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
