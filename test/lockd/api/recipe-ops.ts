// The recipe property test's operations: symbolic ops drawn from a seeded PRNG (naming leases and
// tokens by what the model knows, so a shrunk sequence still means something), resolved against the
// model into concrete requests, and sent by unary call to a node or on a Session stream. Besides each
// name's own recipe, an op sometimes uses the name as another recipe (mixed recipes: SetPermits,
// shared or a downgrade on an election, a Campaign on a lock), and stale actors keep acting after
// their grant or lease ended, as a paused client does: Release (with and without lease_id), Resign,
// Proclaim and Fence.Write(lock = name) with a grant they once held, KeepAlive of a revoked lease, a
// retried Acquire, and a third party's CancelWait with the index of a QUEUED event.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Prng } from '../../sim/prng.js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { ElectionClient } from '../../../src/proto/gen/lockd/v1/Election.js';
import type { SessionClient } from '../../../src/client/session-client.js';
import type { LockApi } from '../../support/lock-api-client.js';
import { MAX_DELAY_MS, type Answer, type InvalidRpc, type RecipeModel, type RecipeReq } from './recipe-model.js';

/** What each name of a run is used as (drawn per seed): its Acquires ask that recipe, mostly. */
export type Kind = { readonly k: 'mutex' } | { readonly k: 'semaphore'; readonly permits: number } | { readonly k: 'rw' } | { readonly k: 'election' };

/** A lease: the k-th live one, the k-th holder of a name (else a live one), or the k-th ever granted (maybe revoked). */
type LeaseRef = { readonly live: number } | { readonly holderOf: number; readonly k: number } | { readonly any: number };
/** A token: the k-th holder's of a name, or the k-th latest ended grant's of it (a stale actor; else a token seen earlier). */
type TokenRef = { readonly holder: number; readonly k: number } | { readonly stale: number };

export type OpBody =
  | { readonly k: 'grant' }
  | { readonly k: 'revoke'; readonly lease: LeaseRef }
  /** permits: the name's current permits when it has a lock (else this), or `odd`: one more (a disagreement). */
  | {
      readonly k: 'acquire';
      readonly name: number;
      readonly lease: LeaseRef;
      readonly wait: boolean;
      readonly permits: number;
      readonly odd: boolean;
      readonly shared: boolean;
      readonly delay: boolean;
    }
  | { readonly k: 'release' | 'resign'; readonly name: number; readonly token: TokenRef; readonly byLease: boolean }
  /** The name's current permits (1 without a lock) plus delta (at least 1). */
  | { readonly k: 'setPermits'; readonly name: number; readonly delta: number }
  | { readonly k: 'inspect' | 'leader'; readonly name: number }
  | { readonly k: 'campaign'; readonly name: number; readonly lease: LeaseRef; readonly value: number }
  | { readonly k: 'proclaim'; readonly name: number; readonly token: TokenRef; readonly value: number }
  | { readonly k: 'fenceWrite'; readonly name: number; readonly token: TokenRef }
  /** A third party cancels the k-th lease that queued on the name, with the index of its QUEUED event. */
  | { readonly k: 'cancelWait'; readonly name: number; readonly q: number }
  | { readonly k: 'keepAlive'; readonly lease: LeaseRef }
  /** The k-th Acquire answered with a grant, sent again with its request id. */
  | { readonly k: 'retry'; readonly call: number }
  /** An Acquire of a name that is not valid UTF-8 (a lone surrogate: one of two that a lenient decoder merges). */
  | { readonly k: 'badName'; readonly variant: number; readonly lease: LeaseRef }
  /**
   * Another request the proto refuses whole: a fence key, request id or election value that is not
   * UTF-8, or a 64-bit id or token past 2^53 (variant picks the RPC and field). The runner then reads
   * what it would have changed (Inspect, Leader, Fence.Read of the key a lenient decoder would hit).
   */
  | { readonly k: 'bad'; readonly what: BadWhat; readonly variant: number; readonly name: number; readonly lease: LeaseRef; readonly token: TokenRef }
  /** Not a request: a node (the leader, or a follower) is paused for the next `ops` ops and catches up by snapshot (recipe-pause.ts). */
  | { readonly k: 'pause'; readonly ops: number; readonly leader: boolean };

export type BadWhat = 'fenceKey' | 'requestId' | 'value' | 'big';
const BAD: readonly BadWhat[] = ['fenceKey', 'requestId', 'value', 'big'];

/** An op: a stable id, and where it goes (0–2: that node by unary call, 3: the Session stream, 4: the node the run's pause stops, before it does). */
export interface Op {
  readonly id: number;
  readonly via: number;
  readonly body: OpBody;
}

export const NAMES = 2;
export const TTL_MS = 60_000;

export function nameOf(prefix: string, n: number): string {
  return `${prefix}-r${n}`;
}

function drawKind(rnd: Prng): Kind {
  const r = rnd.int(4);
  return r === 0 ? { k: 'mutex' } : r === 1 ? { k: 'semaphore', permits: 2 + rnd.int(2) } : r === 2 ? { k: 'rw' } : { k: 'election' };
}

export function drawKinds(rnd: Prng): Kind[] {
  const kinds: Kind[] = [];
  for (let n = 0; n < NAMES; n++) kinds.push(drawKind(rnd));
  return kinds;
}

/** Op kinds left out (LOCKD_PROP_OFF=fenceWrite,retry,...): to see what the others find on their own. */
const OFF = new Set((process.env.LOCKD_PROP_OFF ?? '').split(',').filter(Boolean));

export function drawOp(rnd: Prng, id: number, kinds: readonly Kind[]): Op {
  const lease = (name: number): LeaseRef => {
    const r = rnd.int(10);
    return r < 2 ? { holderOf: name, k: rnd.int(3) } : r < 9 ? { live: rnd.int(8) } : { any: rnd.int(8) };
  };
  const token = (name: number): TokenRef => (rnd.int(3) ? { holder: name, k: rnd.int(3) } : { stale: rnd.int(3) });
  const body = (): OpBody => {
    if (id < 5) return { k: 'grant' };
    const name = rnd.int(NAMES);
    // Mostly the name's own recipe; one op in four treats it as another (mixed recipes on one name).
    const kind = rnd.int(4) === 0 ? drawKind(rnd) : kinds[name];
    const r = rnd.int(100);
    if (r < 7) return { k: 'grant' };
    if (r < 14) return { k: 'revoke', lease: lease(name) };
    if (r < 18) return { k: 'inspect', name };
    if (r < 23) return { k: 'setPermits', name, delta: rnd.int(5) - 2 };
    if (r < 28) return { k: 'fenceWrite', name, token: token(name) };
    if (r < 31) return { k: 'retry', call: rnd.int(8) };
    if (r < 33) return { k: 'cancelWait', name, q: rnd.int(3) };
    if (r < 35) return { k: 'keepAlive', lease: rnd.int(2) ? { any: rnd.int(8) } : lease(name) };
    if (r < 36) return { k: 'badName', variant: rnd.int(2), lease: lease(name) };
    if (r < 41) return { k: 'bad', what: BAD[rnd.int(BAD.length)], variant: rnd.int(60), name, lease: lease(name), token: token(name) };
    if (kind.k === 'election') {
      if (r < 50) return { k: 'campaign', name, lease: lease(name), value: rnd.int(100) };
      if (r < 62) return { k: 'leader', name };
      if (r < 74) return { k: 'proclaim', name, token: token(name), value: rnd.int(100) };
      if (r < 86) return { k: 'resign', name, token: token(name), byLease: true };
    }
    if (r < 80) {
      // Mostly the name's own recipe; sometimes another (a disagreement the cluster must refuse).
      const permits = kind.k === 'semaphore' ? kind.permits : rnd.int(2);
      const shared = kind.k === 'rw' ? rnd.int(2) === 0 : false;
      return { k: 'acquire', name, lease: lease(name), wait: rnd.int(3) > 0, permits, odd: rnd.int(12) === 0, shared, delay: rnd.int(3) === 0 };
    }
    return { k: 'release', name, token: token(name), byLease: rnd.int(5) > 0 };
  };
  const via = rnd.int(4);
  let b = body();
  if (OFF.has(b.k)) b = { k: 'inspect', name: 0 };
  return { id, via, body: b };
}

/**
 * A burst: the moves that make one entry grant several waiters and then end one of those grants
 * while the other holds — the way a paused client's token comes to name a grant beside a live one.
 * Waiters queue behind a holder (shared readers behind a writer; a full semaphore's waiters), one
 * entry grants them together (the writer's Release, Revoke or downgrade; SetPermits growing), one of
 * them loses its lease (Revoke), and it keeps acting: Release with and without lease_id, Fence.Write.
 */
export function drawBurst(rnd: Prng, id: number, kinds: readonly Kind[], name = rnd.int(NAMES)): Op[] {
  const kind = kinds[name];
  const k = rnd.int(8);
  const out: OpBody[] = [];
  const acquire = (lease: number, shared: boolean, permits: number): OpBody => ({
    k: 'acquire',
    name,
    lease: { live: lease },
    wait: true,
    permits,
    shared,
    odd: false,
    delay: false,
  });
  // A third party cancels a wait that has just been granted, with the index of its QUEUED event (docs/lessons.md 13).
  const cancel = (): OpBody[] => (rnd.int(2) === 0 ? [{ k: 'cancelWait', name, q: rnd.int(2) }] : []);
  if (kind.k === 'election') {
    // Three campaigners; the leader resigns and the next leads; the one that led acts on (stale Proclaim, Resign).
    for (let i = 0; i < 3; i++) out.push({ k: 'campaign', name, lease: { live: k + i }, value: i });
    // A reader asking for the election, and SetPermits on it (both refused: one leader at most).
    out.push(acquire(k + 3, true, 1), { k: 'setPermits', name, delta: 2 });
    out.push({ k: 'resign', name, token: { holder: name, k: 0 }, byLease: true }, ...cancel());
    out.push({ k: 'proclaim', name, token: { stale: 0 }, value: 50 + rnd.int(50) }, { k: 'resign', name, token: { stale: 0 }, byLease: true });
  } else if (kind.k === 'semaphore' || kind.k === 'mutex') {
    // A full semaphore (a mutex name asked as a semaphore of 2: mixed) with two waiters; SetPermits grants both.
    const permits = kind.k === 'semaphore' ? kind.permits : 2;
    for (let i = 0; i < permits + 2; i++) out.push(acquire(k + i, false, permits));
    out.push({ k: 'setPermits', name, delta: 2 }, ...cancel());
    // Shrinking below the holders now there are permits + 2 of them: refused, no grant taken back.
    if (rnd.int(2) === 0) out.push({ k: 'setPermits', name, delta: -2 });
  } else {
    out.push(acquire(k, false, 1), acquire(k + 1, true, 1), acquire(k + 2, true, 1));
    const r = rnd.int(3);
    out.push(
      r === 0
        ? { k: 'release', name, token: { holder: name, k: 0 }, byLease: true }
        : r === 1
          ? { k: 'revoke', lease: { holderOf: name, k: 0 } }
          : acquire(k, true, 1),
    );
    if (r < 2) out.push(...cancel());
    // After a downgrade: the writer's first request, retried (the fourth latest grant: writer, two readers, the downgrade).
    if (r === 2) out.push({ k: 'retry', call: 3 });
  }
  // A grant of the crowd ends while another holds; its holder acts on.
  out.push({ k: 'revoke', lease: { holderOf: name, k: -1 } });
  const stale = rnd.int(3);
  out.push(stale === 0 ? { k: 'fenceWrite', name, token: { stale: 0 } } : { k: 'release', name, token: { stale: 0 }, byLease: stale === 1 });
  return out.map((body, i) => ({ id: id + i, via: rnd.int(4), body }));
}

/** What resolving an op may read besides the model: tokens seen in answers, and indices of QUEUED events. */
export interface Seen {
  readonly tokens: readonly number[];
  queuedIndex(name: string, lease: number): number | undefined;
}

/** The op as a concrete request; undefined: nothing it could mean now (e.g. no lease yet). */
export function resolve(op: Op, m: RecipeModel, prefix: string, seen: Seen): RecipeReq | undefined {
  const b = op.body;
  const seenTokens = seen.tokens;
  if (b.k === 'pause') return undefined;
  if (b.k === 'grant') return { t: 'grant' };
  const live = m.liveLeases();
  const lease = (r: LeaseRef): number | undefined => {
    if ('holderOf' in r) {
      const hs = m.holders(nameOf(prefix, r.holderOf));
      if (hs.length) return hs[((r.k % hs.length) + hs.length) % hs.length].lease; // -1: the latest grant
      return live.length ? live[r.k % live.length] : undefined;
    }
    const from = 'live' in r ? live : m.granted;
    return from.length ? from[('live' in r ? r.live : r.any) % from.length] : undefined;
  };
  /** A holder's grant; or an ended grant of the name (its holder acts on, stale); else a token seen earlier with a live lease (the model knows whose it is). */
  const grantOf = (name: string, r: TokenRef): { token: number; lease: number; grant?: string } | undefined => {
    const hs = m.holders(name);
    if ('holder' in r && hs.length) {
      const h = hs[r.k % hs.length];
      return h.token === undefined ? undefined : { token: h.token, lease: h.lease, grant: h.sym };
    }
    const ended = m.ended.filter((g) => g.name === name);
    if ('stale' in r && ended.length) {
      const g = ended[ended.length - 1 - (r.stale % ended.length)];
      return { token: g.token, lease: g.lease, grant: g.sym };
    }
    const l = live[0] ?? m.granted[0];
    return seenTokens.length && l !== undefined ? { token: seenTokens[op.id % seenTokens.length], lease: l } : undefined;
  };
  if (b.k === 'revoke') {
    const l = lease(b.lease);
    return l === undefined ? undefined : { t: 'revoke', lease: l };
  }
  if (b.k === 'keepAlive') {
    const l = lease(b.lease);
    return l === undefined ? undefined : { t: 'keepAlive', lease: l, ttlMs: TTL_MS };
  }
  if (b.k === 'retry') {
    const calls = [...m.grantCalls.keys()];
    if (!calls.length) return undefined;
    const of = calls[calls.length - 1 - (b.call % calls.length)];
    const c = m.grantCalls.get(of)!;
    // A retry of a grant whose name is in a lock-delay would be answered by a clock the model does not keep.
    if (m.isDelayed(c.name)) return undefined;
    return { ...c.req, retryOf: of };
  }
  if (b.k === 'badName') {
    const l = lease(b.lease);
    // Short names: protobufjs encodes a lone surrogate as its 3 (invalid UTF-8) bytes below 40 characters.
    return l === undefined
      ? undefined
      : {
          t: 'acquire',
          name: `${prefix}-u${b.variant ? '\uD800' : '\uDFFF'}`,
          lease: l,
          wait: false,
          permits: 1,
          shared: false,
          lockDelayMs: 0,
          rid: randomUUID(),
        };
  }
  const name = nameOf(prefix, b.name);
  switch (b.k) {
    case 'acquire': {
      const l = lease(b.lease);
      const current = m.permitsOf(name) ?? b.permits;
      const permits = b.odd ? Math.max(1, current) + 1 : current;
      return l === undefined
        ? undefined
        : { t: 'acquire', name, lease: l, wait: b.wait, permits, shared: b.shared, lockDelayMs: b.delay ? MAX_DELAY_MS : 0, rid: randomUUID() };
    }
    case 'campaign': {
      const l = lease(b.lease);
      return l === undefined ? undefined : { t: 'campaign', name, lease: l, value: `v${b.value}` };
    }
    case 'release':
    case 'resign': {
      const g = grantOf(name, b.token);
      if (!g) return undefined;
      return b.k === 'release'
        ? { t: 'release', name, token: g.token, lease: b.byLease ? g.lease : 0, grant: g.grant }
        : { t: 'resign', name, token: g.token, lease: g.lease, grant: g.grant };
    }
    case 'proclaim': {
      const g = grantOf(name, b.token);
      return g ? { t: 'proclaim', name, lease: g.lease, token: g.token, value: `v${b.value}`, grant: g.grant } : undefined;
    }
    case 'fenceWrite': {
      const g = grantOf(name, b.token);
      return g ? { t: 'fenceWrite', name, key: `${name}-key`, token: g.token, grant: g.grant } : undefined;
    }
    case 'cancelWait': {
      const qs = [...(m.queuedOn.get(name) ?? [])].filter((l) => m.isLive(l));
      if (!qs.length) return undefined;
      const l = qs[b.q % qs.length];
      const index = seen.queuedIndex(name, l);
      return index === undefined ? undefined : { t: 'cancelWait', name, lease: l, index };
    }
    case 'setPermits':
      return { t: 'setPermits', name, permits: Math.max(1, (m.permitsOf(name) ?? 1) + b.delta) };
    case 'inspect':
    case 'leader':
      return { t: b.k, name };
    case 'bad':
      return badRequest(b, name, m, lease, grantOf);
  }
}

/** Two lone surrogates: protobufjs writes each as its 3 bytes (invalid UTF-8) in strings under 40 characters; a lenient decoder makes both U+FFFD. */
const SURROGATES = ['\uD800', '\uDFFF'];
/** 64-bit values past 2^53 - 1, as decimal strings (protobufjs writes them exactly). */
const BIG = ['9007199254740992', '9007199254740993', '9223372036854775808', '18446744073709551615'];

/**
 * A request refused whole, and the reads that show nothing changed. Lease and token fields are real
 * (a live lease, a holder's token) where they exist, so the bad field is the only reason to refuse.
 */
function badRequest(
  b: Extract<OpBody, { k: 'bad' }>,
  name: string,
  m: RecipeModel,
  lease: (r: LeaseRef) => number | undefined,
  grantOf: (name: string, r: TokenRef) => { token: number; lease: number } | undefined,
): RecipeReq | undefined {
  const bad = SURROGATES[b.variant % 2];
  const big = BIG[b.variant % BIG.length];
  const l = lease(b.lease);
  const g = grantOf(name, b.token);
  const rid = randomUUID();
  const inspect: RecipeReq = { t: 'inspect', name };
  const v = Math.floor(b.variant / 2);
  switch (b.what) {
    case 'fenceKey': {
      // The key two such writes would share once decoded leniently (a real U+FFFD, valid UTF-8): never written.
      const key = `${name}-k${bad}`;
      return {
        t: 'invalid',
        rpc: 'Fence.Write',
        body: { key, value: Buffer.from('bad'), fencingToken: g?.token ?? 1, lock: v % 2 ? name : '', requestId: rid },
        tag: 'invalid UTF-8 fence key refused',
        after: [inspect, { t: 'fenceRead', key: `${name}-k\uFFFD` }],
      };
    }
    case 'requestId': {
      const requestId = `q${bad}`;
      const withRid = (rpc: InvalidRpc, body: Record<string, unknown>, after: RecipeReq[] = [inspect]): RecipeReq => ({
        t: 'invalid',
        rpc,
        body: { ...body, requestId },
        tag: 'invalid UTF-8 request id refused',
        after,
      });
      switch (v % 5) {
        case 0:
          return l === undefined ? undefined : withRid('Lock.Acquire', { name, leaseId: l, wait: false, permits: m.permitsOf(name) ?? 1 });
        case 1:
          return g ? withRid('Lock.Release', { name, fencingToken: g.token, leaseId: g.lease }) : undefined;
        case 2:
          return withRid('Lease.Grant', { ttlMs: TTL_MS }, []);
        case 3:
          // The lease stays: its holders (Inspect) and a KeepAlive say so.
          return l === undefined ? undefined : withRid('Lease.Revoke', { leaseId: l }, [inspect, { t: 'keepAlive', lease: l, ttlMs: TTL_MS }]);
        default:
          return withRid('Lock.SetPermits', { name, permits: (m.permitsOf(name) ?? 1) + 1 });
      }
    }
    case 'value': {
      const value = `v${bad}`;
      const after: RecipeReq[] = [inspect, { t: 'leader', name }];
      if (v % 2 === 0)
        return l === undefined
          ? undefined
          : { t: 'invalid', rpc: 'Election.Campaign', body: { name, leaseId: l, value, requestId: rid }, tag: 'invalid UTF-8 election value refused', after };
      // The leader's own key, so only the value is wrong.
      const h = m.holders(name)[0] ?? g;
      return h?.token === undefined
        ? undefined
        : {
            t: 'invalid',
            rpc: 'Election.Proclaim',
            body: { leader: { name, leaseId: h.lease, fencingToken: h.token }, value },
            tag: 'invalid UTF-8 election value refused',
            after,
          };
    }
    case 'big': {
      const tag = 'out-of-range 64-bit number refused';
      switch (v % 6) {
        case 0:
          return { t: 'invalid', rpc: 'Lock.Acquire', body: { name, leaseId: big, wait: false, requestId: rid }, tag, after: [inspect] };
        case 1:
          return { t: 'invalid', rpc: 'Lease.Revoke', body: { leaseId: big, requestId: rid }, tag, after: [inspect] };
        case 2:
          return { t: 'invalid', rpc: 'Lease.KeepAlive', body: { leaseId: big }, tag, after: [] };
        case 3:
          return { t: 'invalid', rpc: 'Lock.Release', body: { name, fencingToken: big, leaseId: g?.lease ?? 0, requestId: rid }, tag, after: [inspect] };
        case 4:
          // Unbound (no lock): accepted, it would raise the key's highest token past every real grant's.
          return {
            t: 'invalid',
            rpc: 'Fence.Write',
            body: { key: `${name}-key`, value: Buffer.from('big'), fencingToken: big, lock: '', requestId: rid },
            tag,
            after: [{ t: 'fenceRead', key: `${name}-key` }],
          };
        default:
          return l === undefined
            ? undefined
            : {
                t: 'invalid',
                rpc: 'Lock.CancelWait',
                body: { name, leaseId: l, abandonedAtIndex: big, requestId: rid, acquireRequestId: randomUUID() },
                tag,
                after: [inspect],
              };
      }
    }
  }
}

/** A waiting call's deadline: far past a run, so only the model's events end it. */
const WAIT_MS = 120_000;
const CALL_MS = 10_000;

/** The fields the model states, from a raw response. */
function project(t: RecipeReq['t'], r: Record<string, unknown>): Record<string, unknown> {
  const key = (k: unknown) => {
    const v = k as { name: string; leaseId: number; fencingToken: number } | null;
    return v ? { name: v.name, leaseId: v.leaseId, fencingToken: v.fencingToken } : null;
  };
  switch (t) {
    case 'grant':
      return { leaseId: r.leaseId };
    case 'revoke':
    case 'proclaim':
      return {};
    case 'acquire':
      return {
        acquired: r.acquired,
        fencingToken: r.fencingToken,
        holderLeaseId: r.holderLeaseId,
        grantEnded: r.grantEnded,
        endedFencingToken: r.endedFencingToken,
        lockDelayRemainingMs: r.lockDelayRemainingMs,
        shared: r.shared,
      };
    case 'release':
      return { released: r.released };
    case 'resign':
      return { resigned: r.resigned };
    case 'setPermits':
      return { previous: r.previous, granted: r.granted };
    case 'campaign':
      return { leader: key(r.leader) };
    case 'leader':
      return { hasLeader: r.hasLeader, leader: key(r.leader), value: r.value };
    case 'fenceWrite':
      return { highestToken: r.highestToken };
    case 'cancelWait':
      return { removed: r.removed, released: r.released };
    case 'keepAlive':
      return { ttlMs: r.ttlMs };
    case 'fenceRead':
      return { value: Buffer.from(r.value as Uint8Array).toString(), fencingToken: r.fencingToken };
    case 'invalid':
      return {};
    case 'inspect':
      return {
        held: r.held,
        fencingToken: r.fencingToken,
        holderLeaseId: r.holderLeaseId,
        waitingLeaseIds: [...(r.waitingLeaseIds as number[])],
        permits: r.permits,
        holders: (r.holders as Array<Record<string, unknown>>).map((h) => ({
          leaseId: h.leaseId,
          fencingToken: h.fencingToken,
          shared: h.shared,
          lockDelayMs: h.lockDelayMs,
        })),
        waitingShared: [...(r.waitingShared as boolean[])],
        lockDelayUntilMs: r.lockDelayUntilMs,
        lockDelayRemainingMs: r.lockDelayRemainingMs,
      };
  }
}

/** The request's session operation and message (the unary RPC's request message). */
function message(req: Exclude<RecipeReq, { t: UnaryOnly }>): {
  op: 'grant' | 'revoke' | 'acquire' | 'release' | 'setPermits' | 'inspect' | 'campaign' | 'proclaim' | 'leader' | 'resign';
  body: Record<string, unknown>;
} {
  switch (req.t) {
    case 'grant':
      return { op: 'grant', body: { ttlMs: TTL_MS } };
    case 'revoke':
      return { op: 'revoke', body: { leaseId: req.lease } };
    case 'acquire':
      return {
        op: 'acquire',
        body: { name: req.name, leaseId: req.lease, wait: req.wait, permits: req.permits, shared: req.shared, lockDelayMs: req.lockDelayMs },
      };
    case 'release':
      return { op: 'release', body: { name: req.name, fencingToken: req.token, leaseId: req.lease } };
    case 'setPermits':
      return { op: 'setPermits', body: { name: req.name, permits: req.permits } };
    case 'inspect':
      return { op: 'inspect', body: { name: req.name } };
    case 'campaign':
      return { op: 'campaign', body: { name: req.name, leaseId: req.lease, value: req.value } };
    case 'proclaim':
      return { op: 'proclaim', body: { leader: { name: req.name, leaseId: req.lease, fencingToken: req.token }, value: req.value } };
    case 'leader':
      return { op: 'leader', body: { name: req.name } };
    case 'resign':
      return { op: 'resign', body: { leader: { name: req.name, leaseId: req.lease, fencingToken: req.token } } };
  }
}

/** A call that may wait (in the model: may be 'pending'). */
export const waits = (req: RecipeReq) => (req.t === 'acquire' && req.wait) || req.t === 'campaign';

async function answerOf(t: RecipeReq['t'], p: Promise<unknown>): Promise<Answer> {
  try {
    return { ok: true, body: project(t, (await p) as Record<string, unknown>) };
  } catch (e) {
    const code = (e as grpc.ServiceError).code;
    if (typeof code !== 'number') throw e;
    return { ok: false, code, details: (e as grpc.ServiceError).details };
  }
}

/** Where requests go: unary calls to one node, or the Session stream. */
export type Sender = (req: RecipeReq) => Promise<Answer>;

type UnaryOnly = 'fenceWrite' | 'fenceRead' | 'cancelWait' | 'keepAlive' | 'invalid';
/** The calls only a node's unary API makes here (Fence, CancelWait, one KeepAlive, the refused requests). */
export const unaryOnly = (req: RecipeReq): req is Extract<RecipeReq, { t: UnaryOnly }> =>
  req.t === 'fenceWrite' || req.t === 'fenceRead' || req.t === 'cancelWait' || req.t === 'keepAlive' || req.t === 'invalid';

/** A node's unary RPCs (Lease, Lock, Election, Fence). */
export function unarySender(api: LockApi, election: ElectionClient): Sender {
  return (req) => {
    const deadline = Date.now() + (waits(req) ? WAIT_MS : CALL_MS);
    const call = <T>(start: (cb: (err: grpc.ServiceError | null, res?: T) => void) => void) =>
      new Promise<T>((res, rej) => start((err, r) => (err ? rej(err) : res(r as T))));
    const o = { deadline };
    if (unaryOnly(req)) {
      switch (req.t) {
        case 'fenceWrite':
          return answerOf(
            req.t,
            call((cb) =>
              api.fence.Write({ key: req.key, value: Buffer.from(`t${req.token}`), fencingToken: req.token, lock: req.name, requestId: randomUUID() }, o, cb),
            ),
          );
        case 'cancelWait':
          // A third party: it read the index, not the waiting call's request id.
          return answerOf(
            req.t,
            call((cb) =>
              api.lock.CancelWait({ name: req.name, leaseId: req.lease, abandonedAtIndex: req.index, requestId: randomUUID(), acquireRequestId: '' }, o, cb),
            ),
          );
        case 'keepAlive':
          return answerOf(req.t, keepAliveOnce(api, req.lease));
        case 'fenceRead':
          return answerOf(
            req.t,
            call((cb) => api.fence.Read({ key: req.key }, o, cb)),
          );
        case 'invalid':
          return answerOf(req.t, invalidCall(api, election, req, o, call));
      }
    }
    const { op, body } = message(req);
    const rid = { requestId: req.t === 'acquire' ? req.rid : randomUUID() };
    const p: Promise<unknown> = (() => {
      switch (op) {
        case 'grant':
          return call((cb) => api.lease.Grant({ ...body, ...rid }, o, cb));
        case 'revoke':
          return call((cb) => api.lease.Revoke({ ...body, ...rid }, o, cb));
        case 'acquire':
          return call((cb) => api.lock.Acquire({ ...body, ...rid }, o, cb));
        case 'release':
          return call((cb) => api.lock.Release({ ...body, ...rid }, o, cb));
        case 'setPermits':
          return call((cb) => api.lock.SetPermits({ ...body, ...rid }, o, cb));
        case 'inspect':
          return call((cb) => api.lock.Inspect(body, o, cb));
        case 'campaign':
          return call((cb) => election.Campaign({ ...body, ...rid }, o, cb));
        case 'proclaim':
          return call((cb) => election.Proclaim(body, o, cb));
        case 'leader':
          return call((cb) => election.Leader(body, o, cb));
        case 'resign':
          return call((cb) => election.Resign({ ...body, ...rid }, o, cb));
      }
    })();
    return answerOf(req.t, p);
  };
}

/** A refused request, sent as built (its bad field reaches the wire as it is). */
function invalidCall(
  api: LockApi,
  election: ElectionClient,
  req: Extract<RecipeReq, { t: 'invalid' }>,
  o: grpc.CallOptions,
  call: <T>(start: (cb: (err: grpc.ServiceError | null, res?: T) => void) => void) => Promise<T>,
): Promise<unknown> {
  const b = req.body as never;
  switch (req.rpc) {
    case 'Lease.Grant':
      return call((cb) => api.lease.Grant(b, o, cb));
    case 'Lease.Revoke':
      return call((cb) => api.lease.Revoke(b, o, cb));
    case 'Lease.KeepAlive':
      return keepAliveOnce(api, req.body.leaseId as string);
    case 'Lock.Acquire':
      return call((cb) => api.lock.Acquire(b, o, cb));
    case 'Lock.Release':
      return call((cb) => api.lock.Release(b, o, cb));
    case 'Lock.SetPermits':
      return call((cb) => api.lock.SetPermits(b, o, cb));
    case 'Lock.CancelWait':
      return call((cb) => api.lock.CancelWait(b, o, cb));
    case 'Fence.Write':
      return call((cb) => api.fence.Write(b, o, cb));
    case 'Election.Campaign':
      return call((cb) => election.Campaign(b, o, cb));
    case 'Election.Proclaim':
      return call((cb) => election.Proclaim(b, o, cb));
  }
}

/** One renewal on a fresh KeepAlive stream: its first response. */
function keepAliveOnce(api: LockApi, lease: number | string): Promise<unknown> {
  return new Promise((res, rej) => {
    const s = api.keepAliveStream();
    const timer = setTimeout(() => {
      s.cancel();
      rej(Object.assign(new Error('keepalive: no answer'), { code: 4 }));
    }, CALL_MS);
    s.once('data', (r) => {
      clearTimeout(timer);
      s.cancel();
      res(r);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      rej(e);
    });
    s.write({ leaseId: lease });
  });
}

export function electionStub(address: string): ElectionClient {
  return new lockdProto.lockd.v1.Election(address, grpc.credentials.createInsecure());
}

/** The same requests as Session operations (the same request messages, request ids included). */
export function sessionSender(s: SessionClient): Sender {
  return (req) => {
    if (unaryOnly(req)) throw new Error('sessionSender: send this request by unary call');
    const { op, body } = message(req);
    const withId = op === 'inspect' || op === 'leader' || op === 'proclaim' ? body : { ...body, requestId: req.t === 'acquire' ? req.rid : randomUUID() };
    return answerOf(req.t, s.call(op, withId as never, { timeoutMs: waits(req) ? WAIT_MS : CALL_MS }));
  };
}
