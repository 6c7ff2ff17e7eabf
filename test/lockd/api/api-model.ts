// A pure reference model of the public lock/lease/fence semantics (proto/lockd.proto), for the API
// property test. Written from the contract, not from the state machine: it shares no code with
// src/lockd. Leases never expire here (the test uses long TTLs and ends them by Revoke), so the model
// is exact. Server-chosen values (lease ids: their Grant's log index; fencing tokens: the granting
// entry's index × 1024 + ordinal) cannot be predicted, so the model expects a Fresh value — one made
// by an entry after every entry an id or token seen so far names, one per symbol in an answer — and
// learns it from the answer (bind).

import { isFresh, type Fresh, type Val } from './answer-match.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';

export const HUGE = 1e12;
/** A lease id no Grant returns in a short run on a fresh cluster. */
export const BOGUS_LEASE = 999_999_999;

/** One concrete request, as sent (the property test's Op resolved against the model). */
export type Req =
  | { readonly t: 'grant'; readonly ttlMs: number; readonly rid: string }
  | { readonly t: 'keepAlive'; readonly lease: number }
  | { readonly t: 'revoke'; readonly lease: number; readonly rid: string }
  | { readonly t: 'ttl'; readonly lease: number }
  | { readonly t: 'acquire'; readonly name: string; readonly lease: number; readonly wait: boolean; readonly rid: string }
  | { readonly t: 'release'; readonly name: string; readonly token: number; readonly rid: string }
  | { readonly t: 'inspect'; readonly name: string }
  | { readonly t: 'cancelWait'; readonly name: string; readonly lease: number; readonly abandonedAt: number; readonly acquireRid: string; readonly rid: string }
  | { readonly t: 'fenceWrite'; readonly key: string; readonly token: number; readonly lock: string; readonly value: string; readonly rid: string }
  | { readonly t: 'fenceDelete'; readonly key: string; readonly token: number; readonly lock: string; readonly rid: string }
  | { readonly t: 'fenceRead'; readonly key: string };

/** An answer: the response's fields, or the status code of the failure. */
export type Answer = { readonly ok: true; readonly body: Record<string, unknown> } | { readonly ok: false; readonly code: number };

/** gRPC codes used here. */
export const CODE = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9 } as const;

/** What the model expects of one request: its answer, and the waiting calls it ends (by call id). */
export interface Expectation {
  readonly answer: Answer | 'pending';
  readonly resolves: ReadonlyMap<number, Answer>;
}

interface Lock {
  holder: number;
  token: Val;
  /** The waiting Acquire the grant answers last, when its log index is known (a create); else undefined. */
  lastIndex: Val | undefined;
  /** That Acquire's request id: a cleanup must name it too ('' : the server gave it one, unknown here). */
  lastRid: string;
  lastWait: boolean;
  waiters: number[];
}

type Rec =
  | { t: 'grant'; ttlMs: number; lease: number }
  | { t: 'acquire'; name: string; lease: number; wait: boolean; st: 'acquired' | 'held' | 'queued'; token: Val }
  | { t: 'release'; name: string; token: number; released: boolean }
  | { t: 'revoke'; lease: number }
  | { t: 'cancelWait'; name: string; lease: number; abandonedAt: number; removed: boolean; released: boolean; heldToken: Val }
  | { t: 'fence'; req: Req; answer: Answer };

const ok = (body: Record<string, unknown>): Answer => ({ ok: true, body });
const fail = (code: number): Answer => ({ ok: false, code });

export class ApiModel {
  private readonly leases = new Map<number, number>(); // live lease → ttl
  private readonly locks = new Map<string, Lock>();
  private readonly fence = new Map<string, { value: string; token: number }>();
  private readonly tombstones = new Map<string, number>();
  private readonly records = new Map<string, Rec>();
  /** Waiting calls in flight: id → (lease, name). */
  private readonly pending = new Map<number, { lease: number; name: string }>();
  private readonly bound = new Map<string, number>();
  private nextSym = 0;
  /** The highest entry index a lease id or token seen names: every fresh value is made after it. */
  maxSeen = 0;
  /** Every lease id granted, and every token seen, in order (the generator picks from them). */
  readonly grantedLeases: number[] = [];
  readonly seenTokens: number[] = [];

  // ---- values ----

  val(v: Val): number | undefined {
    return isFresh(v) ? this.bound.get(v.fresh) : v;
  }

  private fresh(): Fresh {
    return { fresh: `v${this.nextSym++}` };
  }

  /** Learn the server's value for a symbol (the runner checked it is fresh). */
  bind(sym: string, value: number, index: number): void {
    this.bound.set(sym, value);
    this.maxSeen = Math.max(this.maxSeen, index);
  }

  /** Note a value seen in an answer that the model knew already. */
  saw(kind: 'lease' | 'token', value: number): void {
    this.maxSeen = Math.max(this.maxSeen, kind === 'token' ? tokenIndex(value) : value);
    if (kind === 'token' && value > 0 && !this.seenTokens.includes(value)) this.seenTokens.push(value);
  }

  // ---- read-only views for the generator ----

  liveLeases(): number[] {
    return [...this.leases.keys()];
  }
  currentToken(name: string): number | undefined {
    const l = this.locks.get(name);
    return l ? this.val(l.token) : undefined;
  }
  /** The request id a cleanup of the lock's grant must name ('' when none is known). */
  lastAcquireRid(name: string): string {
    return this.locks.get(name)?.lastRid ?? '';
  }
  holderOf(name: string): number | undefined {
    return this.locks.get(name)?.holder;
  }
  isWaiting(lease: number, name: string): boolean {
    return this.locks.get(name)?.waiters.includes(lease) ?? false;
  }
  pendingCalls(): number[] {
    return [...this.pending.keys()];
  }

  // ---- the semantics ----

  /** Apply one request (call id `id` if it may wait) and say what the cluster must answer. */
  step(req: Req, id: number): Expectation {
    const resolves = new Map<number, Answer>();
    const answer = this.apply(req, id, resolves);
    return { answer, resolves };
  }

  private apply(req: Req, id: number, resolves: Map<number, Answer>): Answer | 'pending' {
    switch (req.t) {
      case 'grant':
        return this.grant(req);
      case 'keepAlive':
        return ok({ leaseId: req.lease, ttlMs: this.leases.get(req.lease) ?? 0 });
      case 'ttl': {
        const ttl = this.leases.get(req.lease);
        if (ttl === undefined) return fail(CODE.NOT_FOUND);
        const locks = [...this.locks.entries()]
          .filter(([, l]) => l.holder === req.lease)
          .map(([n]) => n)
          .sort();
        return ok({ leaseId: req.lease, grantedTtlMs: ttl, locks });
      }
      case 'revoke':
        return this.once(req.rid, req, () => this.revoke(req, resolves));
      case 'acquire':
        return this.acquire(req, id);
      case 'release':
        return this.once(req.rid, req, () => this.release(req, resolves));
      case 'inspect': {
        const l = this.locks.get(req.name);
        return ok(
          l
            ? { held: true, fencingToken: l.token, holderLeaseId: l.holder, waitingLeaseIds: [...l.waiters] }
            : { held: false, fencingToken: 0, holderLeaseId: 0, waitingLeaseIds: [] },
        );
      }
      case 'cancelWait':
        return this.once(req.rid, req, () => this.cancelWait(req, resolves));
      case 'fenceWrite':
      case 'fenceDelete':
        return this.once(req.rid, req, () => this.fenceOp(req));
      case 'fenceRead': {
        const e = this.fence.get(req.key);
        return ok({ value: e?.value ?? '', fencingToken: e?.token ?? 0 });
      }
    }
  }

  /** Request-id rules shared by Revoke, Release, CancelWait, Fence.Write/Delete: first outcome, as true now. */
  private once(rid: string, req: Req, first: () => Answer): Answer {
    if (rid) {
      const rec = this.records.get(rid);
      if (rec) return this.replayOnce(rec, req);
    }
    const a = first();
    if (rid) {
      const r = this.recordOnce(req, a);
      if (r) this.records.set(rid, r);
    }
    return a;
  }

  private recordOnce(req: Req, a: Answer): Rec | undefined {
    if (req.t === 'fenceWrite' || req.t === 'fenceDelete') return { t: 'fence', req, answer: a }; // refusals too
    if (!a.ok) return undefined; // a failure is not remembered: a retry is applied again
    if (req.t === 'revoke') return { t: 'revoke', lease: req.lease };
    if (req.t === 'release') return { t: 'release', name: req.name, token: req.token, released: a.body.released as boolean };
    if (req.t === 'cancelWait')
      return {
        t: 'cancelWait',
        name: req.name,
        lease: req.lease,
        abandonedAt: req.abandonedAt,
        removed: a.body.removed as boolean,
        released: a.body.released as boolean,
        heldToken: a.body.fencingToken as Val,
      };
    return undefined;
  }

  private replayOnce(rec: Rec, req: Req): Answer {
    const other = fail(CODE.INVALID_ARGUMENT);
    switch (req.t) {
      case 'revoke':
        return rec.t === 'revoke' && rec.lease === req.lease ? ok({}) : other;
      case 'release':
        return rec.t === 'release' && rec.name === req.name && rec.token === req.token ? ok({ released: rec.released }) : other;
      case 'cancelWait': {
        if (rec.t !== 'cancelWait' || rec.name !== req.name || rec.lease !== req.lease || rec.abandonedAt !== req.abandonedAt) return other;
        const l = this.locks.get(req.name);
        const holds = l !== undefined && l.holder === req.lease && this.leases.has(req.lease);
        const heldToken = rec.released ? rec.heldToken : rec.abandonedAt === 0 && holds ? l.token : 0;
        return ok({ removed: rec.removed, fencingToken: heldToken, released: rec.released });
      }
      case 'fenceWrite':
      case 'fenceDelete':
        return rec.t === 'fence' && sameFence(rec.req, req) ? rec.answer : other;
      default:
        return other;
    }
  }

  private grant(req: Extract<Req, { t: 'grant' }>): Answer {
    const rec = req.rid ? this.records.get(req.rid) : undefined;
    if (rec) return rec.t === 'grant' && rec.ttlMs === req.ttlMs ? ok({ leaseId: rec.lease, ttlMs: rec.ttlMs }) : fail(CODE.INVALID_ARGUMENT);
    const id = this.fresh();
    // The lease exists from here; its id is learned from the answer (see adopt).
    this.pendingGrant = { sym: id.fresh, ttlMs: req.ttlMs, rid: req.rid };
    return ok({ leaseId: id, ttlMs: req.ttlMs });
  }

  private pendingGrant: { sym: string; ttlMs: number; rid: string } | undefined;

  /** After the runner bound a fresh answer: make the new lease (Grant) real. */
  adopt(): void {
    const g = this.pendingGrant;
    this.pendingGrant = undefined;
    if (!g) return;
    const id = this.bound.get(g.sym)!;
    this.leases.set(id, g.ttlMs);
    if (!this.grantedLeases.includes(id)) this.grantedLeases.push(id);
    if (g.rid) this.records.set(g.rid, { t: 'grant', ttlMs: g.ttlMs, lease: id });
  }

  private revoke(req: Extract<Req, { t: 'revoke' }>, resolves: Map<number, Answer>): Answer {
    if (!this.leases.has(req.lease)) return fail(CODE.NOT_FOUND);
    this.leases.delete(req.lease);
    // Its waits go first (their calls fail NOT_FOUND), then its locks are handed on, in one entry.
    for (const [name, l] of this.locks) if (l.waiters.includes(req.lease)) this.dropWaiter(name, l, req.lease, resolves);
    const token = this.fresh();
    for (const name of [...this.locks.keys()].sort()) {
      const l = this.locks.get(name)!;
      if (l.holder === req.lease) this.handOn(name, l, token, resolves);
    }
    return ok({});
  }

  private dropWaiter(name: string, l: Lock, lease: number, resolves: Map<number, Answer>): void {
    l.waiters = l.waiters.filter((w) => w !== lease);
    for (const [id, p] of this.pending)
      if (p.lease === lease && p.name === name) {
        resolves.set(id, fail(CODE.NOT_FOUND));
        this.pending.delete(id);
      }
    // The wait ended without a grant: its requests are forgotten (a retry is a new request).
    for (const [rid, r] of this.records) if (r.t === 'acquire' && r.wait && r.st === 'queued' && r.lease === lease && r.name === name) this.records.delete(rid);
  }

  /** The holder lets go: the first waiter is granted with `token` (this entry's index), else the lock goes. */
  private handOn(name: string, l: Lock, token: Fresh, resolves: Map<number, Answer>): void {
    const next = l.waiters.shift();
    if (next === undefined) {
      this.locks.delete(name);
      return;
    }
    l.holder = next;
    l.token = token;
    l.lastIndex = undefined; // the waiter's queueing entry: its index is not known here
    l.lastWait = true;
    for (const [id, p] of this.pending)
      if (p.lease === next && p.name === name) {
        resolves.set(id, ok({ acquired: true, fencingToken: token, holderLeaseId: next, grantEnded: false, endedFencingToken: 0 }));
        this.pending.delete(id);
      }
    for (const [rid, r] of this.records)
      if (r.t === 'acquire' && r.wait && r.st === 'queued' && r.lease === next && r.name === name) this.records.set(rid, { ...r, st: 'acquired', token });
  }

  private acquire(req: Extract<Req, { t: 'acquire' }>, id: number): Answer | 'pending' {
    const notAcquired = (holder: number, ended: Val = 0) =>
      ok({ acquired: false, fencingToken: 0, holderLeaseId: holder, grantEnded: ended !== 0, endedFencingToken: ended });
    const acquired = (l: Lock) => ok({ acquired: true, fencingToken: l.token, holderLeaseId: l.holder, grantEnded: false, endedFencingToken: 0 });
    const rec = req.rid ? this.records.get(req.rid) : undefined;
    if (rec) {
      if (rec.t !== 'acquire' || rec.name !== req.name || rec.lease !== req.lease || rec.wait !== req.wait) return fail(CODE.INVALID_ARGUMENT);
      // A retry: what is true now about this request, never a second grant.
      if (!this.leases.has(req.lease)) return fail(CODE.NOT_FOUND);
      const l = this.locks.get(req.name);
      if (rec.st === 'acquired') {
        if (l && l.holder === req.lease && this.val(l.token) === this.val(rec.token)) {
          l.lastIndex = undefined;
          l.lastWait = req.wait;
          return acquired(l);
        }
        return notAcquired(l?.holder ?? 0, rec.token);
      }
      if (rec.st === 'queued' && rec.wait) {
        this.pending.set(id, { lease: req.lease, name: req.name }); // waits again at its place
        return 'pending';
      }
      return notAcquired(l?.holder ?? 0); // a try-lock that got nothing: the holder now
    }
    if (!this.leases.has(req.lease)) return fail(CODE.NOT_FOUND);
    const remember = (st: 'acquired' | 'held' | 'queued', token: Val) => {
      if (req.rid) this.records.set(req.rid, { t: 'acquire', name: req.name, lease: req.lease, wait: req.wait, st, token });
    };
    let l = this.locks.get(req.name);
    if (!l) {
      const token = this.fresh();
      l = { holder: req.lease, token, lastIndex: token, lastRid: req.rid, lastWait: req.wait, waiters: [] };
      this.locks.set(req.name, l);
      remember('acquired', token);
      return acquired(l);
    }
    if (l.holder === req.lease) {
      l.lastIndex = undefined;
      l.lastWait = req.wait;
      remember('acquired', l.token);
      return acquired(l);
    }
    if (!req.wait) {
      remember(l.waiters.includes(req.lease) ? 'queued' : 'held', 0);
      return notAcquired(l.holder);
    }
    if (!l.waiters.includes(req.lease)) l.waiters.push(req.lease);
    remember('queued', 0);
    this.pending.set(id, { lease: req.lease, name: req.name });
    return 'pending';
  }

  private release(req: Extract<Req, { t: 'release' }>, resolves: Map<number, Answer>): Answer {
    const l = this.locks.get(req.name);
    if (!l) return fail(CODE.NOT_FOUND);
    if (this.val(l.token) !== req.token) return ok({ released: false });
    this.handOn(req.name, l, this.fresh(), resolves);
    return ok({ released: true });
  }

  private cancelWait(req: Extract<Req, { t: 'cancelWait' }>, resolves: Map<number, Answer>): Answer {
    const nothing = ok({ removed: false, fencingToken: 0, released: false });
    if (req.abandonedAt >= HUGE) return fail(CODE.INVALID_ARGUMENT); // names no earlier entry
    const l = this.locks.get(req.name);
    if (!l || !this.leases.has(req.lease)) return nothing;
    const holds = l.holder === req.lease;
    if (req.abandonedAt === 0) {
      // Cancelling a wait a call is waiting on makes that call re-queue on its own: not modelled (the
      // runner never sends it).
      if (l.waiters.includes(req.lease)) throw new Error('model: a plain CancelWait of a waiting lease is not modelled');
      return ok({ removed: false, fencingToken: holds ? l.token : 0, released: false });
    }
    // A cleanup acts only when it names exactly the waiting Acquire the grant answers (its entry:
    // the token's tokenIndex) and that call's request id; waiters' queueing entries are never known
    // here (they grant nothing), so they never match.
    if (!holds || !l.lastWait || l.lastIndex === undefined || tokenIndex(this.val(l.lastIndex)!) !== req.abandonedAt) return nothing;
    if (l.lastRid === '' || req.acquireRid !== l.lastRid) return nothing;
    const token = l.token;
    for (const [rid, r] of this.records)
      if (r.t === 'acquire' && r.st === 'acquired' && r.lease === req.lease && r.name === req.name && this.val(r.token) === this.val(token)) {
        this.records.delete(rid); // a grant handed to no call: its request is forgotten
        break; // only the granting request's own record (the first one)
      }
    this.handOn(req.name, l, this.fresh(), resolves);
    return ok({ removed: false, fencingToken: token, released: true });
  }

  private fenceOp(req: Extract<Req, { t: 'fenceWrite' | 'fenceDelete' }>): Answer {
    if (req.token >= HUGE) return fail(CODE.INVALID_ARGUMENT); // never issued
    if (req.lock && this.currentToken(req.lock) !== req.token) return fail(CODE.FAILED_PRECONDITION);
    const cur = this.fence.get(req.key);
    const highest = cur?.token ?? this.tombstones.get(req.key);
    if (highest !== undefined && req.token < highest) return fail(CODE.FAILED_PRECONDITION);
    if (req.t === 'fenceDelete') {
      if (!cur) return ok({ deleted: false, highestToken: highest ?? 0 });
      this.fence.delete(req.key);
      this.tombstones.set(req.key, req.token);
      return ok({ deleted: true, highestToken: req.token });
    }
    this.fence.set(req.key, { value: req.value, token: req.token });
    this.tombstones.delete(req.key);
    return ok({ highestToken: req.token });
  }
}

function sameFence(a: Req, b: Req): boolean {
  if (a.t !== b.t || (a.t !== 'fenceWrite' && a.t !== 'fenceDelete') || (b.t !== 'fenceWrite' && b.t !== 'fenceDelete')) return false;
  return a.key === b.key && a.token === b.token && a.lock === b.lock && (a.t === 'fenceDelete' || a.value === (b as typeof a).value);
}
