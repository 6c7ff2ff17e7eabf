// The API property test's operations: symbolic ops drawn from a seeded PRNG (they name leases and
// tokens by what the model knows, so a shrunk sequence still means something), resolved against the
// model into concrete requests, and sent to a node over the public gRPC API.
import * as grpc from '@grpc/grpc-js';
import type { Prng } from '../../sim/prng.js';
import type { LockApi } from '../../support/lock-api-client.js';
import type { SessionClient } from '../../../src/client/session-client.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';
import { BOGUS_LEASE, HUGE, type Answer, type ApiModel, type Req } from './api-model.js';

/** A lease: the k-th live one (mod their number), the k-th one granted in this run (live or not), or one never granted. */
type LeaseRef = { readonly live: number } | { readonly any: number } | { readonly holderOf: number } | 'bogus';
/** A token: the current grant's of lock k (else the last one seen), the k-th one seen, or one never issued. */
type TokenRef = { readonly lock: number } | { readonly seen: number } | 'huge';

export type OpBody =
  | { readonly k: 'grant' }
  | { readonly k: 'keepAlive' | 'ttl' | 'revoke'; readonly lease: LeaseRef }
  | { readonly k: 'acquire'; readonly name: number; readonly lease: LeaseRef; readonly wait: boolean }
  | { readonly k: 'release'; readonly name: number; readonly token: TokenRef }
  | { readonly k: 'inspect'; readonly name: number }
  | { readonly k: 'cancelWait'; readonly name: number; readonly lease: LeaseRef; readonly abandoned: 'none' | TokenRef }
  | { readonly k: 'fenceWrite' | 'fenceDelete'; readonly key: number; readonly token: TokenRef; readonly lock: number | undefined; readonly value: number }
  | { readonly k: 'fenceRead'; readonly key: number }
  /** Send op `of`'s request again, exactly (a retry, or a delayed duplicate when ops came between). */
  | { readonly k: 'dup'; readonly of: number }
  /** Send `body` with op `of`'s request id (misuse: INVALID_ARGUMENT unless it is the same request). */
  | { readonly k: 'reuse'; readonly of: number; readonly body: OpBody };

/**
 * An op: a stable id (request ids and dup references use it), where it is sent (node 0–2 by unary
 * call, 3: a Session stream to the leader, for the operations a session carries), whether it
 * carries a request id.
 */
export interface Op {
  readonly id: number;
  readonly via: number;
  readonly rid: boolean;
  readonly body: OpBody;
}

export const TTL_MS = 60_000;
const NAMES = 2;
const KEYS = 2;

export function nameOf(prefix: string, n: number): string {
  return `${prefix}-l${n}`;
}
export function keyOf(prefix: string, n: number): string {
  return `${prefix}-k${n}`;
}

/** Draw one op (ids are assigned by the caller); earlier ops are what dup/reuse may name. */
export function drawOp(rnd: Prng, id: number, earlier: readonly Op[]): Op {
  const lease = (): LeaseRef => {
    const r = rnd.int(20);
    return r === 0 ? 'bogus' : r < 4 ? { any: rnd.int(8) } : { live: rnd.int(8) };
  };
  const token = (name?: number): TokenRef => {
    const r = rnd.int(10);
    return r < 6 ? { lock: name ?? rnd.int(NAMES) } : r < 9 ? { seen: rnd.int(16) } : 'huge';
  };
  /** A fenced op: usually with its own lock's token, sometimes another lock's, sometimes none. */
  const fenced = (k: 'fenceWrite' | 'fenceDelete'): OpBody => {
    const lock = rnd.int(3) ? rnd.int(NAMES) : undefined;
    return { k, key: rnd.int(KEYS), token: token(lock !== undefined && rnd.int(4) ? lock : undefined), lock, value: rnd.int(1000) };
  };
  const mutating = earlier.filter(
    (o) => o.body.k !== 'inspect' && o.body.k !== 'ttl' && o.body.k !== 'fenceRead' && o.body.k !== 'keepAlive' && o.body.k !== 'dup',
  );
  const body = (): OpBody => {
    if (id < 3) return { k: 'grant' };
    const r = rnd.int(100);
    if (r < 7) return { k: 'grant' };
    if (r < 13) return { k: 'keepAlive', lease: lease() };
    if (r < 17) return { k: 'ttl', lease: lease() };
    if (r < 21) return { k: 'revoke', lease: lease() };
    if (r < 41) return { k: 'acquire', name: rnd.int(NAMES), lease: lease(), wait: rnd.int(3) > 0 };
    if (r < 50) {
      const name = rnd.int(NAMES);
      return { k: 'release', name, token: token(rnd.int(4) ? name : undefined) };
    }
    if (r < 57) return { k: 'inspect', name: rnd.int(NAMES) };
    if (r < 63) {
      const name = rnd.int(NAMES);
      const r2 = rnd.int(6);
      return {
        k: 'cancelWait',
        name,
        lease: rnd.int(2) ? { holderOf: name } : lease(),
        abandoned: r2 < 2 ? 'none' : r2 === 2 ? 'huge' : token(rnd.int(2) ? name : undefined),
      };
    }
    if (r < 70) return fenced('fenceWrite');
    if (r < 73) return fenced('fenceDelete');
    if (r < 78) return { k: 'fenceRead', key: rnd.int(KEYS) };
    // Mostly not Grants (the first ops are Grants, and their retries are the least interesting).
    const targets = rnd.int(5) && mutating.some((o) => o.body.k !== 'grant') ? mutating.filter((o) => o.body.k !== 'grant') : mutating;
    const acquires = mutating.filter((o) => o.body.k === 'acquire');
    if (acquires.length && r < 86) return { k: 'dup', of: acquires[Math.max(0, acquires.length - 1 - rnd.int(3))].id }; // a recent Acquire, again
    if (targets.length && r < 97) return { k: 'dup', of: targets[rnd.int(targets.length)].id };
    if (mutating.length) return { k: 'reuse', of: mutating[rnd.int(mutating.length)].id, body: body() };
    return { k: 'grant' };
  };
  return { id, via: rnd.int(4), rid: rnd.int(5) > 0, body: body() };
}

/** Resolve an op against the model into a concrete request; undefined = skip (nothing it could mean). */
export function resolve(op: Op, m: ApiModel, prefix: string, sent: ReadonlyMap<number, Req>): Req | undefined {
  const rid = op.rid ? `${prefix}-r${op.id}` : '';
  const b = op.body;
  if (b.k === 'dup') return sent.get(b.of);
  if (b.k === 'reuse') {
    const first = sent.get(b.of);
    const req = resolveBody({ ...op, body: b.body }, m, prefix, first && 'rid' in first ? first.rid : '');
    return req && 'rid' in req && req.rid ? req : undefined;
  }
  return resolveBody(op, m, prefix, rid);
}

function resolveBody(op: Op, m: ApiModel, prefix: string, rid: string): Req | undefined {
  const lease = (r: LeaseRef): number => {
    if (r !== 'bogus' && 'holderOf' in r) return m.holderOf(nameOf(prefix, r.holderOf)) ?? lease({ live: r.holderOf });
    const from = r === 'bogus' ? [] : 'live' in r && m.liveLeases().length ? m.liveLeases() : m.grantedLeases;
    return r === 'bogus' || from.length === 0 ? BOGUS_LEASE : from[('live' in r ? r.live : r.any) % from.length];
  };
  const token = (r: TokenRef): number => {
    if (r === 'huge') return HUGE;
    const seen = m.seenTokens;
    if ('lock' in r) return m.currentToken(nameOf(prefix, r.lock)) ?? (seen.length ? seen[seen.length - 1] : 1);
    return seen.length ? seen[r.seen % seen.length] : 1;
  };
  const b = op.body;
  switch (b.k) {
    case 'grant':
      return { t: 'grant', ttlMs: TTL_MS, rid };
    case 'keepAlive':
    case 'ttl':
      return { t: b.k, lease: lease(b.lease) };
    case 'revoke':
      return { t: 'revoke', lease: lease(b.lease), rid };
    case 'acquire':
      return { t: 'acquire', name: nameOf(prefix, b.name), lease: lease(b.lease), wait: b.wait, rid };
    case 'release':
      return { t: 'release', name: nameOf(prefix, b.name), token: token(b.token), rid };
    case 'inspect':
      return { t: 'inspect', name: nameOf(prefix, b.name) };
    case 'cancelWait': {
      const req = {
        t: 'cancelWait' as const,
        name: nameOf(prefix, b.name),
        lease: lease(b.lease),
        abandonedAt: b.abandoned === 'none' ? 0 : b.abandoned === 'huge' ? HUGE : Math.max(1, tokenIndex(token(b.abandoned))),
        acquireRid: '',
        rid,
      };
      // A cleanup names the request id of the Acquire the lock's grant answers last, as a node's would.
      if (req.abandonedAt > 0) req.acquireRid = m.lastAcquireRid(req.name);
      // A plain cancel of a wait a call is waiting on makes that call re-queue by itself: not modelled.
      return req.abandonedAt === 0 && m.isWaiting(req.lease, req.name) ? undefined : req;
    }
    case 'fenceWrite':
      return {
        t: 'fenceWrite',
        key: keyOf(prefix, b.key),
        token: token(b.token),
        lock: b.lock === undefined ? '' : nameOf(prefix, b.lock),
        value: `v${b.value}`,
        rid,
      };
    case 'fenceDelete':
      return { t: 'fenceDelete', key: keyOf(prefix, b.key), token: token(b.token), lock: b.lock === undefined ? '' : nameOf(prefix, b.lock), rid };
    case 'fenceRead':
      return { t: 'fenceRead', key: keyOf(prefix, b.key) };
    default:
      return undefined;
  }
}

/** A request's answer as the model states answers (see Answer). */
async function answerOf(p: Promise<Record<string, unknown>>): Promise<Answer> {
  try {
    return { ok: true, body: await p };
  } catch (e) {
    const code = (e as grpc.ServiceError).code;
    if (typeof code !== 'number') throw e;
    return { ok: false, code };
  }
}

const CALL_MS = 10_000;
/** A waiting Acquire's deadline: far past a run, so only the model's events end it. */
const WAIT_MS = 120_000;

/** The operations a Session stream carries (the others go by unary call). */
export const ON_SESSION: ReadonlySet<Req['t']> = new Set(['grant', 'revoke', 'ttl', 'acquire', 'release', 'inspect', 'fenceWrite', 'fenceDelete', 'fenceRead']);

/** Send `req` on a Session stream: the same answers as the unary call (SessionClient errors carry the code). */
export function sendOnSession(s: SessionClient, req: Req): Promise<Answer> {
  const o = { timeoutMs: CALL_MS };
  switch (req.t) {
    case 'grant':
      return answerOf(s.grant(req.ttlMs, { ...o, requestId: req.rid }).then((r) => ({ leaseId: r.leaseId, ttlMs: r.ttlMs })));
    case 'revoke':
      return answerOf(s.revoke(req.lease, { ...o, requestId: req.rid }).then(() => ({})));
    case 'ttl':
      return answerOf(s.timeToLive(req.lease, o).then((r) => ({ leaseId: r.leaseId, grantedTtlMs: r.grantedTtlMs, locks: [...r.locks] })));
    case 'acquire':
      return answerOf(
        s.acquire(req.name, req.lease, { timeoutMs: req.wait ? WAIT_MS : CALL_MS, wait: req.wait, requestId: req.rid }).then((r) => ({
          acquired: r.acquired,
          fencingToken: r.fencingToken,
          holderLeaseId: r.holderLeaseId,
          grantEnded: r.grantEnded,
          endedFencingToken: r.endedFencingToken,
        })),
      );
    case 'release':
      return answerOf(s.release(req.name, req.token, { ...o, requestId: req.rid }).then((released) => ({ released })));
    case 'inspect':
      return answerOf(
        s
          .inspect(req.name, o)
          .then((r) => ({ held: r.held, fencingToken: r.fencingToken, holderLeaseId: r.holderLeaseId, waitingLeaseIds: [...r.waitingLeaseIds] })),
      );
    case 'fenceWrite':
      return answerOf(s.fenceWrite(req.key, req.value, req.token, { ...o, requestId: req.rid, lock: req.lock }).then((highestToken) => ({ highestToken })));
    case 'fenceDelete':
      return answerOf(
        s.fenceDelete(req.key, req.token, { ...o, requestId: req.rid, lock: req.lock }).then((r) => ({ deleted: r.deleted, highestToken: r.highestToken })),
      );
    case 'fenceRead':
      return answerOf(s.fenceRead(req.key, o).then((r) => ({ value: Buffer.from(r.value).toString('utf8'), fencingToken: r.fencingToken })));
    default:
      throw new Error(`${req.t} is not a Session operation`);
  }
}

/** Send `req` to `api`; the promise resolves with its answer (a waiting Acquire: when it ends). */
export function send(api: LockApi, req: Req): Promise<Answer> {
  const o = { timeoutMs: CALL_MS };
  switch (req.t) {
    case 'grant':
      return answerOf(api.grant(req.ttlMs, { ...o, requestId: req.rid }).then((r) => ({ leaseId: r.leaseId, ttlMs: r.ttlMs })));
    case 'keepAlive':
      return answerOf(keepAliveOnce(api, req.lease));
    case 'ttl':
      return answerOf(
        api.timeToLive(req.lease, o).then((r) => {
          // Remaining time: positive and at most the TTL plus the clock's margin (a few ticks).
          if (!(r.remainingMs > 0 && r.remainingMs <= r.grantedTtlMs + 5_000)) throw new Error(`TimeToLive remaining_ms ${r.remainingMs} out of range`);
          return { leaseId: r.leaseId, grantedTtlMs: r.grantedTtlMs, locks: [...r.locks] };
        }),
      );
    case 'revoke':
      return answerOf(api.revoke(req.lease, { ...o, requestId: req.rid }).then(() => ({})));
    case 'acquire':
      return answerOf(
        api.acquire(req.name, req.lease, { timeoutMs: req.wait ? WAIT_MS : CALL_MS, wait: req.wait, requestId: req.rid }).then((r) => ({
          acquired: r.acquired,
          fencingToken: r.fencingToken,
          holderLeaseId: r.holderLeaseId,
          grantEnded: r.grantEnded,
          endedFencingToken: r.endedFencingToken,
        })),
      );
    case 'release':
      return answerOf(api.release(req.name, req.token, { ...o, requestId: req.rid }).then((r) => ({ released: r.released })));
    case 'inspect':
      return answerOf(
        api
          .inspect(req.name, o)
          .then((r) => ({ held: r.held, fencingToken: r.fencingToken, holderLeaseId: r.holderLeaseId, waitingLeaseIds: [...r.waitingLeaseIds] })),
      );
    case 'cancelWait':
      return answerOf(
        new Promise<Record<string, unknown>>((resolve, reject) =>
          api.lock.CancelWait(
            { name: req.name, leaseId: req.lease, abandonedAtIndex: req.abandonedAt, acquireRequestId: req.acquireRid, requestId: req.rid },
            { deadline: Date.now() + CALL_MS },
            (err, r) => (err ? reject(err) : resolve({ removed: r!.removed, fencingToken: r!.fencingToken, released: r!.released })),
          ),
        ),
      );
    case 'fenceWrite':
      return answerOf(
        api.fenceWrite(req.key, req.value, req.token, { ...o, requestId: req.rid, lock: req.lock }).then((r) => ({ highestToken: r.highestToken })),
      );
    case 'fenceDelete':
      return answerOf(
        api.fenceDelete(req.key, req.token, { ...o, requestId: req.rid, lock: req.lock }).then((r) => ({ deleted: r.deleted, highestToken: r.highestToken })),
      );
    case 'fenceRead':
      return answerOf(api.fenceRead(req.key, o).then((r) => ({ value: Buffer.from(r.value).toString('utf8'), fencingToken: r.fencingToken })));
  }
}

/** One keepalive on a stream of its own: the first answer. */
function keepAliveOnce(api: LockApi, leaseId: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const s = api.keepAliveStream();
    const timer = setTimeout(() => {
      s.cancel();
      reject(new Error(`no keepalive answer for lease ${leaseId} within ${CALL_MS} ms`));
    }, CALL_MS);
    s.on('data', (r: { leaseId: number; ttlMs: number }) => {
      clearTimeout(timer);
      s.cancel();
      resolve({ leaseId: r.leaseId, ttlMs: r.ttlMs });
    });
    s.on('error', (e) => {
      clearTimeout(timer);
      if ((e as grpc.ServiceError).code !== grpc.status.CANCELLED) reject(e);
    });
    s.write({ leaseId });
  });
}

/** One line per op, for a failure report. */
export function describe(op: Op, req: Req | undefined): string {
  const body =
    op.body.k === 'dup' ? `dup of #${op.body.of}` : op.body.k === 'reuse' ? `reuse the request id of #${op.body.of} for ${op.body.body.k}` : op.body.k;
  const via = op.via === 3 ? (req && ON_SESSION.has(req.t) ? 'session' : 'n1') : `n${op.via + 1}`;
  return `#${op.id} via ${via} ${body}: ${req ? JSON.stringify(req) : '(skipped)'}`;
}
