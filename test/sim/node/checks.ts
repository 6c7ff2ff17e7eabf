// Checks of what clients were told, from the promises in proto/lockd.proto (not from the code),
// judged against the committed log (oracle.ts) and the run's fault timeline:
//  - lease-lost-in-trust: a lease is never gone (ttl 0) before the time its holder may trust it
//    (the send time of the attempt that granted or renewed it + ttl; Lease.Grant/KeepAlive);
//  - exclusion: two leases never both believe, at the same moment within their trust, that they
//    hold one mutex;
//  - stale-write: a lock-bound Fence.Write is acknowledged only while the writer's own grant (the
//    token it was told) is that lock's live grant where the write is applied (FenceWriteRequest.lock);
//  - acquire-token: acquired = true names a grant of that lock to that lease with that token, its
//    own (AcquireResponse.fencing_token);
//  - release-of-own-grant: released = true ended the caller's own grant, the one its token names
//    (ReleaseRequest: "a token names one grant");
//  - retry-answer: all answers of one request id agree (a retried Grant names one lease, a retried
//    Acquire one token; a retried Release answers what the first attempt did);
//  - lost-write: a Fence.Read sent after a write was acknowledged returns that write's token or a
//    higher one (linearizable, and no acknowledged fenced write lost);
//  - unanswered: once the cluster is calm (no partition, pause or loss) for BOUND_MS inside a call's
//    life, the call is answered: a write or read succeeds; a waiting Acquire whose lease was granted
//    the lock is told so, and one whose lease ended is told NOT_FOUND, not left to its deadline.
// The oracle's own log checks (shared tokens, fencing regressions, divergent replicas) come too.
import * as grpc from '@grpc/grpc-js';
import type { OpenCall } from './calls.js';
import type { ClientLog, OpRecord } from './client.js';
import type { ObservedStream } from './observer.js';
import type { Oracle, Violation } from './oracle.js';

/** Calm time within which any call must be answered (a few election timeouts and retries). */
export const BOUND_MS = 2500;

/** Intervals [from, to) during which some fault was active. */
export type FaultTimeline = ReadonlyArray<readonly [number, number]>;

/** Whether [a, b] holds a stretch of `len` ms that no fault interval touches. */
export function calmStretch(faults: FaultTimeline, a: number, b: number, len: number): boolean {
  let t = a;
  const sorted = [...faults].sort((x, y) => x[0] - y[0]);
  for (const [f0, f1] of sorted) {
    if (f1 <= t) continue;
    if (f0 >= b) break;
    if (f0 - t >= len) return true;
    t = Math.max(t, f1);
    if (t >= b) return false;
  }
  return b - t >= len;
}

export function checkRun(oracle: Oracle, log: ClientLog, allFaults: FaultTimeline, endAt: number): Violation[] {
  const out: Violation[] = [...oracle.violations];
  const v = (kind: string, at: number, message: string) => out.push({ kind, at, message });

  for (const l of log.losses)
    if (l.at < l.trust) v('lease-lost-in-trust', l.at, `${l.client}: lease ${l.leaseId} answered gone at ${l.at}, trusted until ${l.trust}`);

  const byName = new Map<string, typeof log.beliefs>();
  for (const b of log.beliefs) {
    if (!(b.to > b.from)) continue;
    let list = byName.get(b.name);
    if (!list) byName.set(b.name, (list = []));
    list.push(b);
  }
  for (const [name, list] of byName) {
    list.sort((x, y) => x.from - y.from);
    const permits = Math.max(...list.map((b) => b.permits)); // SetPermits may have changed it
    // More leases than permits believing at one moment (a mutex: two): at each belief's start, count those still on.
    for (let j = 0; j < list.length; j++) {
      const on = list.filter((b, i) => i < j && b.to > list[j].from && b.leaseId !== list[j].leaseId);
      const leases = new Set(on.map((b) => b.leaseId));
      if (leases.size + 1 > permits)
        v(
          'exclusion',
          list[j].from,
          `${name} (permits ${permits}): ${list[j].client} (lease ${list[j].leaseId}, token ${list[j].token}) held it from ${list[j].from} while ${on.map((b) => `${b.client} (lease ${b.leaseId}, token ${b.token}, trusted ${b.from}-${b.to})`).join(', ')} did`,
        );
    }
  }

  const writesByKey = new Map<string, OpRecord[]>();
  for (const op of log.ops) {
    const r = op.result;
    if (!r) continue;
    if (op.kind === 'Campaign' && r.ok) {
      const key = r.res.leader as { leaseId: number; fencingToken: number } | undefined;
      const token = Number(key?.fencingToken ?? 0);
      const g = oracle.grantOf(String(op.req.name), token);
      if (!g || g.leaseId !== op.leaseId || Number(key?.leaseId) !== op.leaseId)
        v(
          'acquire-token',
          op.doneAt!,
          `${op.client}: Campaign ${String(op.req.name)} for lease ${op.leaseId} answered leadership token ${token} (lease ${key?.leaseId}), which ${g ? `is lease ${g.leaseId}'s grant` : 'no entry granted'}`,
        );
    }
    if (op.kind === 'CancelWait' && r.ok && Number(r.res.fencingToken) > 0) {
      const token = Number(r.res.fencingToken);
      const g = oracle.grantOf(String(op.req.name), token);
      if (!g || g.leaseId !== op.leaseId)
        v(
          'acquire-token',
          op.doneAt!,
          `${op.client}: CancelWait ${String(op.req.name)} for lease ${op.leaseId} answered it holds token ${token}, which ${g ? `is lease ${g.leaseId}'s grant` : 'no entry granted'}`,
        );
    }
    if (op.kind === 'Proclaim' && r.ok) {
      // Not deduplicated and without request id: it was applied between its send and its answer,
      // so its grant, the caller's own, had not ended before the send.
      const key = op.req.leader as { name: string; leaseId: number; fencingToken: number };
      const g = oracle.grantOf(key.name, Number(key.fencingToken));
      if (!g || g.leaseId !== op.leaseId || (g.endAt !== undefined && g.endAt < op.sentAt))
        v(
          'stale-write',
          op.doneAt!,
          `${op.client}${op.stale ? ' (stale)' : ''}: Proclaim ${key.name} token ${key.fencingToken} (lease ${op.leaseId}) acknowledged at ${op.doneAt}, sent at ${op.sentAt}, though ${g ? (g.leaseId !== op.leaseId ? `the token is lease ${g.leaseId}'s` : `that leadership ended at ${g.endAt}`) : 'no such leadership existed'}`,
        );
    }
    if (op.kind === 'Resign' && r.ok && r.res.resigned) {
      const key = op.req.leader as { name: string; fencingToken: number };
      const g = oracle.grantOf(key.name, Number(key.fencingToken));
      const landed = oracle.requests.get(op.requestId);
      if (landed && !(g && g.leaseId === op.leaseId && g.endIndex === landed.index && g.endedBy === 'RELEASED'))
        v(
          'release-of-own-grant',
          op.doneAt!,
          `${op.client}: Resign ${key.name} token ${key.fencingToken} (lease ${op.leaseId}) answered resigned, applied at ${landed.index}, which did not end that leadership`,
        );
    }
    if (op.kind === 'Grant' || op.kind === 'Acquire' || op.kind === 'Campaign') {
      const field = op.kind === 'Grant' ? 'leaseId' : 'fencingToken';
      const pick = (a: Record<string, unknown>) => (op.kind === 'Campaign' ? (a.leader as Record<string, unknown>) : a);
      const seen = new Set(op.answers.filter((a) => op.kind !== 'Acquire' || a.acquired).map((a) => Number(pick(a)[field])));
      if (seen.size > 1)
        v('retry-answer', op.doneAt!, `${op.client} ${op.kind} ${op.requestId}: its attempts were answered ${field} ${[...seen].join(' and ')}`);
    }
    if (op.kind === 'Acquire' && r.ok && r.res.acquired) {
      const token = Number(r.res.fencingToken);
      const g = oracle.grantOf(String(op.req.name), token);
      if (!g || g.name !== op.req.name || g.leaseId !== op.leaseId)
        v(
          'acquire-token',
          op.doneAt!,
          `${op.client}: Acquire ${String(op.req.name)} for lease ${op.leaseId} answered token ${token}, which ${g ? `is lease ${g.leaseId}'s grant of ${g.name}` : 'no entry granted'}`,
        );
    }
    if (op.kind === 'Write' && r.ok) {
      const lock = String(op.req.lock ?? '');
      const token = Number(op.req.fencingToken);
      const landed = oracle.requests.get(op.requestId);
      if (lock && landed) {
        const g = oracle.grantOf(lock, token);
        const live = g && g.name === lock && g.leaseId === op.leaseId && g.index < landed.index && (g.endIndex === undefined || g.endIndex > landed.index);
        if (!live)
          v(
            'stale-write',
            op.doneAt!,
            `${op.client}${op.stale ? ' (stale)' : ''}: Fence.Write ${String(op.req.key)} with lock ${lock}, token ${token} (lease ${op.leaseId}) acknowledged, applied at ${landed.index}, where that grant ${g ? (g.endIndex !== undefined && g.endIndex <= landed.index ? `had ended at ${g.endIndex}` : `is lease ${g.leaseId}'s of ${g.name}`) : 'does not exist'}`,
          );
      }
      const key = String(op.req.key);
      let list = writesByKey.get(key);
      if (!list) writesByKey.set(key, (list = []));
      list.push(op);
    }
    if (op.kind === 'Release') {
      const token = Number(op.req.fencingToken);
      const g = oracle.grantOf(String(op.req.name), token);
      const released = r.ok && Boolean(r.res.released);
      const landed = oracle.requests.get(op.requestId);
      if (released && landed && !(g && g.leaseId === op.leaseId && g.endIndex === landed.index && g.endedBy === 'RELEASED'))
        v(
          'release-of-own-grant',
          op.doneAt!,
          `${op.client}: Release ${String(op.req.name)} token ${token} (lease ${op.leaseId}) answered released, applied at ${landed.index}, which did not end that grant`,
        );
      const definite = (r.ok && !released) || (!r.ok && r.code === grpc.status.NOT_FOUND);
      const endAt = g?.endIndex !== undefined ? oracle.appliedAt.get(g.endIndex) : undefined;
      if (definite && g && g.leaseId === op.leaseId && g.endedBy === 'RELEASED' && endAt !== undefined && endAt >= op.sentAt && endAt <= op.doneAt!)
        v(
          'retry-answer',
          op.doneAt!,
          `${op.client}: Release ${String(op.req.name)} token ${token} ${op.requestId}: an attempt released it (entry ${g.endIndex}) and the call was answered ${r.ok ? 'released = false' : 'NOT_FOUND'}`,
        );
    }
  }

  for (const op of log.ops) {
    if (op.kind !== 'Read' || !op.result?.ok) continue;
    const got = Number(op.result.res.fencingToken);
    for (const w of writesByKey.get(String(op.req.key)) ?? []) {
      const wt = Number(w.req.fencingToken);
      if (w.doneAt! < op.sentAt && got < wt)
        v(
          'lost-write',
          op.doneAt!,
          `${op.client}: Fence.Read ${String(op.req.key)} sent at ${op.sentAt} answered token ${got}, below the write (token ${wt}) acknowledged to ${w.client} at ${w.doneAt}`,
        );
    }
  }

  for (const op of log.ops) {
    const r = op.result;
    if (!r || r.ok || op.stale || op.doneAt === undefined || op.doneAt >= endAt) continue;
    const mine = log.pauses.get(op.client);
    const faults = mine ? [...allFaults, ...mine] : allFaults;
    if (r.code !== grpc.status.UNAVAILABLE && r.code !== grpc.status.DEADLINE_EXCEEDED) continue;
    if (!op.wait) {
      if (calmStretch(faults, op.sentAt, op.doneAt, BOUND_MS))
        v(
          'unanswered',
          op.doneAt,
          `${op.client}: ${op.kind} ${op.requestId} sent at ${op.sentAt} failed ${grpc.status[r.code]} at ${op.doneAt} though the cluster was calm for ${BOUND_MS} ms meanwhile`,
        );
      continue;
    }
    const name = String(op.req.name);
    const g = oracle.grants.find((x) => x.name === name && x.leaseId === op.leaseId && x.at >= op.sentAt && x.at <= op.doneAt!);
    if (g && calmStretch(faults, g.at, op.doneAt, BOUND_MS))
      v(
        'unanswered',
        op.doneAt,
        `${op.client}: waiting Acquire ${name} ${op.requestId} (lease ${op.leaseId}) was granted (token ${g.token}) at ${g.at} and failed ${grpc.status[r.code]} at ${op.doneAt}, with the cluster calm for ${BOUND_MS} ms meanwhile`,
      );
    const ended = oracle.leaseEndAt.get(op.leaseId!);
    if (!g && ended !== undefined && ended >= op.sentAt && calmStretch(faults, ended, op.doneAt, BOUND_MS))
      v(
        'unanswered',
        op.doneAt,
        `${op.client}: waiting Acquire ${name} ${op.requestId}: lease ${op.leaseId} ended at ${ended}; the call failed ${grpc.status[r.code]} at ${op.doneAt} instead of NOT_FOUND, with the cluster calm for ${BOUND_MS} ms meanwhile`,
      );
  }
  return out;
}

/**
 * At world time `now`, the calls nodes hold unanswered: none may be older than BOUND_MS of calm,
 * except a waiting Acquire whose lease is still queued — one whose lease was granted the lock, or
 * ended, BOUND_MS of calm ago must have been answered (acquired, NOT_FOUND). Seen from the
 * servers, so a paused client does not hide it. `seen` keeps one report per call.
 */
export function checkOpenCalls(oracle: Oracle, calls: Iterable<OpenCall>, faults: FaultTimeline, now: number, seen: Set<OpenCall>): Violation[] {
  const out: Violation[] = [];
  for (const c of calls) {
    if (seen.has(c)) continue;
    const req = c.request;
    const where = `${c.node}${c.forwarded ? ' (forwarded)' : ''}`;
    if ((c.path.endsWith('/Acquire') && req.wait) || c.path.endsWith('/Campaign')) {
      const name = String(req.name);
      const lease = Number(req.leaseId);
      const g = oracle.grants.find((x) => x.name === name && x.leaseId === lease && x.at >= c.arrivedAt && x.at <= now - BOUND_MS);
      const ended = oracle.leaseEndAt.get(lease);
      const since = g ? g.at : ended !== undefined && ended >= c.arrivedAt ? ended : undefined;
      if (since !== undefined && calmStretch(faults, since, now, BOUND_MS)) {
        seen.add(c);
        out.push({
          kind: 'unanswered',
          at: now,
          message: `${where} holds a waiting Acquire ${name} ${String(req.requestId)} (lease ${lease}, since ${c.arrivedAt}) unanswered at ${now}, though ${g ? `the lease was granted the lock (token ${g.token}) at ${g.at}` : `the lease ended at ${ended}`} and the cluster was calm for ${BOUND_MS} ms since`,
        });
      }
      continue;
    }
    if (c.path.endsWith('/Acquire') || c.path.endsWith('/CancelWait') || c.path.endsWith('/KeepAlive')) continue; // waits, and cleanups behind them
    if (calmStretch(faults, c.arrivedAt, now, BOUND_MS)) {
      seen.add(c);
      out.push({
        kind: 'unanswered',
        at: now,
        message: `${where} holds ${c.path} ${String(req.requestId ?? '')} (since ${c.arrivedAt}) unanswered at ${now}, with the cluster calm for ${BOUND_MS} ms meanwhile`,
      });
    }
  }
  return out;
}

/**
 * Lock.Observe: each stream delivers the lock's changes one event per change in log order, or
 * says RESYNC (proto: Lock.Observe). So every event delivered is one of the log's (same index,
 * type, lease, token), and the one after it is the log's next event of that lock — or, after a
 * RESYNC at index r, the log's first event of that lock past r. Nothing is skipped silently.
 */
export function checkObserve(oracle: Oracle, streams: readonly ObservedStream[]): Violation[] {
  const out: Violation[] = [];
  for (const st of streams) {
    const log = oracle.eventsByName.get(st.name) ?? [];
    const pos = (e: { index: number; type: string; leaseId: number; token: number }) =>
      log.findIndex((x) => x.index === e.index && x.type === e.type && x.leaseId === e.leaseId && x.token === e.token);
    let prev: number | undefined; // position in `log` of the last event delivered
    let resyncAt: number | undefined;
    for (const e of st.events) {
      if (e.index > oracle.applied) break; // beyond what the oracle has (the run ended)
      if (e.type === 'RESYNC') {
        prev = undefined;
        resyncAt = e.index;
        continue;
      }
      const p = pos(e);
      const what = `${st.observer}'s Observe ${st.name} on ${st.node} (opened at ${st.openedAt})`;
      if (p < 0) {
        out.push({
          kind: 'observe',
          at: st.openedAt,
          message: `${what} delivered ${e.type} at ${e.index} (lease ${e.leaseId}, token ${e.token}), which the log has not`,
        });
        break;
      }
      const expected = prev !== undefined ? prev + 1 : resyncAt !== undefined ? log.findIndex((x) => x.index > resyncAt!) : p;
      if (p !== expected) {
        const missed = log[expected];
        out.push({
          kind: 'observe',
          at: st.openedAt,
          message: `${what} went from ${prev !== undefined ? `${log[prev].type} at ${log[prev].index}` : `RESYNC at ${resyncAt}`} to ${e.type} at ${e.index}, skipping ${missed ? `${missed.type} at ${missed.index}` : 'events'} without a RESYNC`,
        });
        break;
      }
      prev = p;
      resyncAt = undefined;
    }
  }
  return out;
}
