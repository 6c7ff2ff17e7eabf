// Checker 2: is the history linearizable? Split into parts (P-compositionality): one per lock name
// — its Acquire/Release/Inspect/CancelWait plus the KeepAlive/Revoke of the leases that touched it —
// and one per fenced key. The adversary's calls belong to the part of the lock they name.
//
// Why a part's verdict can be trusted. The full model's state is: per lock, (holder, token, …); per
// fenced key, (token, value); per lease, alive or dead. Every operation reads and writes one lock
// (or one key) and the liveness of the leases it names; nothing else.
//  - Fenced keys: a key's operations touch that key only, so the history is linearizable iff each
//    key's sub-history is (Herlihy & Wing's locality): splitting loses nothing.
//  - Locks are coupled only through leases: one lease may hold several locks, and its death (revoke,
//    or expiry — a hidden event) frees all of them at once. A part holds every operation that reads
//    or sets the liveness of its leases (their KeepAlives and Revokes are copied into each part of a
//    lock they touched), so a linearization of the whole history, restricted to a part's operations
//    and with each lease's death kept where it was, is a linearization of the part: a correct history
//    is never flagged. The converse is what is lost: each part may place a lease's expiry on its
//    own, so an anomaly that needs one lease to die at two different moments for two locks (say,
//    lock a granted to another while its holder never released it, so the holder's lease died;
//    then that lease, with no renewal in between, releases lock b successfully) is not seen.
import type { AcquireOutput, CancelWaitOutput, FailOutput, InspectOutput, Op, ReadOutput, ReleaseOutput } from './history.js';
import { searchLinearization, type Model, type SearchOp, type Verdict } from './linearizability.js';
import { lockModel } from './lock-model.js';
import { fenceModel } from './fence-model.js';

export interface PartResult {
  part: string;
  verdict: Verdict;
  ops: number;
  explored: number;
  elapsedMs: number;
  reason?: string;
  /** On 'illegal': the last few linearized operations, the ones stuck, and the model state there. */
  failure?: { lastLinearized: Op[]; stuckAt: Op[]; state: string };
}

export interface LinearizabilityReport {
  verdict: Verdict;
  parts: PartResult[];
}

/** Operations whose unknown outcome could not change the model state are dropped before the search. */
function informative(op: Op): boolean {
  if (op.status !== 'unknown') return true;
  // An unknown Inspect observed nothing; an unknown CancelWait may change nothing (the model allows it no effect).
  return op.f === 'acquire' || op.f === 'release' || op.f === 'write';
}

/**
 * Drop unknown-outcome operations whose effect no other operation could observe: assuming they had
 * no effect is then at least as permissive, so no verdict changes, but the search no longer tries
 * them at every position (which is exponential in their number).
 *  - An unknown Acquire by L is observable only through a later try-lock answering "held by L", a
 *    later stale-token Release (someone holds the lock), an Inspect or CancelWait naming L, a third
 *    party's successful Release (of L's grant, maybe), or a later Acquire/Release of L itself (its
 *    keepalives do not care whether it holds); an unknown Release of (L, t) only through a later operation of L that
 *    needs L alive (otherwise L's expiry frees the lock just as well); an unknown Revoke never (its
 *    lock is freed by expiry, and a dead lease only forbids more).
 *  - An unknown fenced write is observable only through a read of its element or a refusal of a
 *    lower token.
 */
function observable(op: Op, part: readonly Op[]): boolean {
  if (op.status !== 'unknown') return true;
  const definite = part.filter((o) => o.status !== 'unknown');
  switch (op.f) {
    case 'acquire': {
      const l = op.input.leaseId;
      return definite.some(
        (o) =>
          (o.f === 'acquire' && o.status === 'ok' && (o.output as AcquireOutput).holder === l && o.complete > op.invoke) ||
          (o.f === 'inspect' && o.status === 'ok' && (o.output as InspectOutput).holder === l && o.complete > op.invoke) ||
          (o.f === 'cancelwait' && o.status === 'ok' && o.input.leaseId === l && (o.output as CancelWaitOutput).token > 0 && o.complete > op.invoke) ||
          (o.f === 'release' && o.input.adversary && o.status === 'ok' && (o.output as ReleaseOutput).released && o.complete > op.invoke) ||
          (o.f === 'release' &&
            o.complete > op.invoke &&
            (o.status === 'ok' ? !(o.output as ReleaseOutput).released : (o.output as FailOutput | undefined)?.code === 'FAILED_PRECONDITION')) ||
          ((o.f === 'acquire' || o.f === 'release') && o.input.leaseId === l && o.complete > op.invoke),
      );
    }
    case 'release': {
      // A third party's release may free whoever holds the lock: assuming it did nothing could force
      // the model to expire a lease that is seen alive later.
      if (op.input.adversary) return true;
      const l = op.input.leaseId;
      return definite.some((o) => (o.f === 'acquire' || o.f === 'release' || o.f === 'keepalive') && o.input.leaseId === l && o.complete > op.invoke);
    }
    case 'write': {
      const { elem, token } = op.input;
      return definite.some(
        (o) =>
          o.complete > op.invoke &&
          ((o.f === 'read' && o.status === 'ok' && (o.output as ReadOutput).last === elem) ||
            (o.f === 'write' && o.status === 'fail' && o.input.token < token)),
      );
    }
    default:
      return false;
  }
}

export function partition(ops: readonly Op[]): Map<string, { model: Model<unknown, Op>; ops: Op[] }> {
  const parts = new Map<string, { model: Model<unknown, Op>; ops: Op[] }>();
  const leaseOps = new Map<number, Op[]>();
  const leasesOf = new Map<string, Set<number>>();
  const add = (key: string, model: Model<unknown, Op>, o: Op): void => {
    let p = parts.get(key);
    if (!p) parts.set(key, (p = { model, ops: [] }));
    p.ops.push(o);
  };
  for (const o of ops) {
    if (!informative(o)) continue;
    switch (o.f) {
      case 'acquire':
      case 'release':
      case 'cancelwait': {
        add(`lock ${o.input.name}`, lockModel as Model<unknown, Op>, o);
        if (o.f === 'release' && o.input.adversary) break;
        let s = leasesOf.get(o.input.name);
        if (!s) leasesOf.set(o.input.name, (s = new Set()));
        s.add(o.input.leaseId);
        break;
      }
      case 'inspect':
        add(`lock ${o.input.name}`, lockModel as Model<unknown, Op>, o);
        break;
      case 'keepalive':
      case 'revoke': {
        let l = leaseOps.get(o.input.leaseId);
        if (!l) leaseOps.set(o.input.leaseId, (l = []));
        l.push(o);
        break;
      }
      case 'read':
      case 'write':
        if (o.input.store === 'fence') add(`fence ${o.input.key}`, fenceModel as Model<unknown, Op>, o);
        break;
      case 'grant':
        break;
    }
  }
  for (const [name, leases] of leasesOf) {
    const p = parts.get(`lock ${name}`)!;
    for (const l of leases) p.ops.push(...(leaseOps.get(l) ?? []));
    p.ops.sort((a, b) => a.invoke - b.invoke);
  }
  for (const p of parts.values()) p.ops = p.ops.filter((o) => observable(o, p.ops));
  return parts;
}

/**
 * Where an operation's answer may take effect. A retried Acquire's answer describes the state during
 * its last attempt (earlier attempts are unknown operations of their own, `retryOf`), so its window
 * starts there: a replayed grant that ended before the retry is not excused by the first attempt.
 */
function answerFrom(o: Op): number {
  if (o.f !== 'acquire' || o.status !== 'ok') return o.invoke;
  const from = (o.output as AcquireOutput).answeredFrom;
  return from !== undefined && from >= o.invoke && from <= o.complete ? from : o.invoke;
}

/** The lease is gone once `o` is linearized, in every state (the lock model marks it dead). */
function provesDead(o: Op, lease: number): boolean {
  if (o.status === 'unknown') return false;
  const notFound = o.status === 'fail' && (o.output as FailOutput | undefined)?.code === 'NOT_FOUND';
  switch (o.f) {
    case 'keepalive':
      return o.input.leaseId === lease && (notFound || (o.status === 'ok' && !((o.output as { ttlMs: number } | undefined)?.ttlMs ?? 0)));
    case 'revoke':
      return o.input.leaseId === lease && (o.status === 'ok' || notFound);
    case 'acquire':
      return o.input.leaseId === lease && notFound;
    default:
      return false;
  }
}

/** Once `o` is linearized, the lock's (or the fenced key's) token is above `token` for good: both models' tokens only grow. */
function passesToken(o: Op, token: number): boolean {
  if (o.status !== 'ok') return false;
  switch (o.f) {
    case 'acquire':
      return (o.output as AcquireOutput).acquired && (o.output as AcquireOutput).token > token;
    case 'inspect':
      return (o.output as InspectOutput).held && (o.output as InspectOutput).token > token;
    case 'write':
      return o.input.token > token;
    case 'read':
      return (o.output as ReadOutput).token > token;
    default:
      return false;
  }
}

/**
 * Bounding an unknown operation: the moment from which it can no longer change its model's state,
 * wherever it is placed — the completion of the first definite operation of its part after which
 * every linearization is in such a state. An Acquire by L (or a Release by L) is a no-op once L is
 * dead (lock-model: an unknown Acquire of a dead lease changes nothing; a dead lease holds nothing);
 * a Release of token t, by anyone, once the lock's token is above t (tokens only grow, and only the
 * grant of exactly t is released); a fenced write of token t once the key's token is above t (it
 * would be refused). That definite operation is linearized before its completion, so "took effect
 * by then, or never" is exactly what the unbounded operation allowed. And an attempt of a retried
 * Acquire (`retryOf`) takes effect before its call is answered (ok), if at all: every attempt
 * carries the call's request id, and the cluster answered it, so one landing later is answered from
 * the first outcome and changes nothing (the API's contract, for the last 10,000 ids — far more
 * than a run sends while a message can be held; a server breaking it is flagged). Undefined: no bound;
 * -Infinity: a no-op from its invoke on (the bound came before it).
 */
export function effectDeadline(o: Op, part: readonly Op[]): number | undefined {
  if (o.status !== 'unknown' || (o.f !== 'acquire' && o.f !== 'release' && o.f !== 'write')) return undefined;
  const lease = o.f === 'write' || (o.f === 'release' && o.input.adversary) ? undefined : o.input.leaseId;
  const token = o.f === 'acquire' ? undefined : o.input.token;
  const call = o.f === 'acquire' ? o.input.retryOf : undefined;
  let bound = Infinity;
  for (const p of part) {
    if (
      p.complete < bound &&
      ((lease !== undefined && provesDead(p, lease)) ||
        (token !== undefined && passesToken(p, token)) ||
        (call !== undefined && p.id === call && p.status === 'ok'))
    )
      bound = p.complete;
  }
  if (bound === Infinity) return undefined;
  return bound < o.invoke ? -Infinity : bound;
}

/** Check every part within `budgetMs` in total (shared out by size); an exhausted budget gives 'unknown'. */
export function checkLinearizable(ops: readonly Op[], budgetMs = 60_000): LinearizabilityReport {
  const parts = [...partition(ops)].sort(([a], [b]) => (a < b ? -1 : 1));
  const total = parts.reduce((s, [, p]) => s + p.ops.length, 0) || 1;
  const results: PartResult[] = [];
  for (const [part, { model, ops: pops }] of parts) {
    const budget = Math.max(1000, Math.floor((budgetMs * pops.length) / total));
    const searchOps: SearchOp<Op>[] = [];
    for (const o of pops) {
      const deadline = effectDeadline(o, pops);
      if (deadline === -Infinity) continue; // a no-op wherever it goes
      searchOps.push(
        deadline === undefined ? { op: o, invoke: answerFrom(o), complete: o.complete } : { op: o, invoke: o.invoke, complete: deadline, unknown: true },
      );
    }
    // Fast search first; an 'illegal' from it is only believed once the full search agrees.
    const started = Date.now();
    let r = searchLinearization(model, searchOps, budget, true);
    if (r.verdict === 'illegal') {
      const full = searchLinearization(model, searchOps, Math.max(1000, budget - (Date.now() - started)));
      r = {
        ...full,
        elapsedMs: Date.now() - started,
        reason: full.verdict === 'unknown' ? `the fast search found no linearization; the full one ran out of time (${full.reason})` : full.reason,
      };
    }
    results.push({
      part,
      verdict: r.verdict,
      ops: r.ops,
      explored: r.explored,
      elapsedMs: r.elapsedMs,
      reason: r.reason,
      failure: r.failure && { lastLinearized: r.failure.linearized.slice(-10), stuckAt: r.failure.stuckAt.slice(0, 10), state: r.failure.state },
    });
  }
  const verdict: Verdict = results.some((r) => r.verdict === 'illegal') ? 'illegal' : results.some((r) => r.verdict === 'unknown') ? 'unknown' : 'ok';
  return { verdict, parts: results };
}
