// The recipe grants of a history, as the clients saw them: every racquire answered
// "acquired" (a semaphore, read-write or lock-delay grant) and every Campaign answered with a
// leadership, with how long the holder was certainly still holding it:
//   protectedUntil = min(its first Release/Resign invoked, its lease's first Revoke invoked, the
//   lease's trust: sendTime(last acknowledged grant or keepalive) + TTL, docs/design.md §4).
// Before that moment the grant cannot have ended: the holder had not asked, and lockd promises not
// to expire the lease. That is the only clock the checkers use; clients never see server time.
//
// A downgrade (a shared racquire by the exclusive holder, answered with its own token) is no grant:
// it ends the grant's exclusive phase, at the latest when it completed and at the earliest when it
// was invoked. `exclusiveUntil` keeps the earliest invoke of any shared racquire by the holder's
// lease on that name after its grant began that was not refused (one of unknown outcome may have
// downgraded it): the grant was certainly exclusive before that.
import { trustedUntil } from './exclusion-check.js';
import type { CampaignOutput, Op, OpOf, RAcquireOutput, ResignOutput } from './history.js';

export interface RecipeGrant {
  name: string;
  lease: number;
  token: number;
  /** The racquire or campaign that was answered with it. */
  op: OpOf<'racquire'> | OpOf<'campaign'>;
  shared: boolean;
  lockDelayMs: number;
  /** Certainly held from op.complete until here (see above). */
  protectedUntil: number;
  /** Certainly exclusive until here (0 for a shared grant): protectedUntil, or a downgrade's invoke before it. */
  exclusiveUntil: number;
  /** The first downgrade's invoke, answered with this grant's token (Infinity: none known). */
  downgradedFrom: number;
  /** The earliest invoke of a Release/Resign of this grant, whatever its outcome (Infinity: never). */
  releasedFrom: number;
  /** The lease's first Revoke invoke and trust end (Infinity / -Infinity when none). */
  revokedFrom: number;
  trustEnd: number;
}

const key = (name: string, lease: number, token: number) => `${name}|${lease}|${token}`;

export function recipeGrants(ops: readonly Op[]): RecipeGrant[] {
  const trust = trustedUntil(ops);
  const revokes = new Map<number, number>();
  const releases = new Map<string, number>();
  const downgrades = new Map<string, number>();
  const sharedAsks = new Map<string, number[]>(); // `${name}|${lease}` → invokes of its shared racquires not refused
  for (const o of ops) {
    if (o.f === 'racquire' && o.input.shared && o.status !== 'fail') {
      const k = `${o.input.name}|${o.input.leaseId}`;
      let l = sharedAsks.get(k);
      if (!l) sharedAsks.set(k, (l = []));
      l.push(o.invoke);
    }
    if (o.f === 'revoke') revokes.set(o.input.leaseId, Math.min(revokes.get(o.input.leaseId) ?? Infinity, o.invoke));
    // A Release/Resign of any outcome may have ended the grant from its invoke on (a refused one did
    // not, but assuming it did only makes the checkers more lenient).
    if (o.f === 'rrelease' || o.f === 'resign') {
      const k = key(o.input.name, o.input.leaseId, o.input.token);
      releases.set(k, Math.min(releases.get(k) ?? Infinity, o.invoke));
    }
  }
  const grants: RecipeGrant[] = [];
  const seen = new Set<string>();
  const exclusive = new Map<string, RecipeGrant>();
  for (const o of ops) {
    if (o.status !== 'ok') continue;
    if (o.f === 'racquire') {
      const out = o.output as RAcquireOutput;
      if (!out.acquired) continue;
      const k = key(o.input.name, o.input.leaseId, out.token);
      const held = exclusive.get(k);
      if (held && o.input.shared) {
        // The exclusive holder asking shared, answered its own token: a downgrade.
        downgrades.set(k, Math.min(downgrades.get(k) ?? Infinity, o.invoke));
        continue;
      }
      if (seen.has(k)) continue; // a re-assertion of a grant already counted
      seen.add(k);
      const g = grant(o.input.name, o.input.leaseId, out.token, o, o.input.shared, o.input.lockDelayMs);
      grants.push(g);
      if (!g.shared) exclusive.set(k, g);
    } else if (o.f === 'campaign') {
      const token = (o.output as CampaignOutput).token;
      const k = key(o.input.name, o.input.leaseId, token);
      if (seen.has(k)) continue; // a campaign of a lease that already leads: its leadership again
      seen.add(k);
      const g = grant(o.input.name, o.input.leaseId, token, o, false, 0);
      grants.push(g);
      exclusive.set(k, g);
    }
  }
  for (const g of grants) {
    if (g.shared) continue;
    g.downgradedFrom = downgrades.get(key(g.name, g.lease, g.token)) ?? Infinity;
    const maybe = (sharedAsks.get(`${g.name}|${g.lease}`) ?? []).reduce((m, t) => (t > g.op.invoke ? Math.min(m, t) : m), Infinity);
    g.exclusiveUntil = Math.min(g.protectedUntil, g.downgradedFrom, maybe);
  }
  return grants;

  function grant(name: string, lease: number, token: number, op: RecipeGrant['op'], shared: boolean, lockDelayMs: number): RecipeGrant {
    const releasedFrom = releases.get(key(name, lease, token)) ?? Infinity;
    const revokedFrom = revokes.get(lease) ?? Infinity;
    const trustEnd = trust.get(lease) ?? -Infinity;
    const protectedUntil = Math.min(releasedFrom, revokedFrom, trustEnd);
    return {
      name,
      lease,
      token,
      op,
      shared,
      lockDelayMs,
      protectedUntil,
      exclusiveUntil: shared ? 0 : protectedUntil,
      downgradedFrom: Infinity,
      releasedFrom,
      revokedFrom,
      trustEnd,
    };
  }
}

/** Grants by name, in token order. */
export function byName(grants: readonly RecipeGrant[]): Map<string, RecipeGrant[]> {
  const m = new Map<string, RecipeGrant[]>();
  for (const g of grants) {
    let l = m.get(g.name);
    if (!l) m.set(g.name, (l = []));
    l.push(g);
  }
  for (const l of m.values()) l.sort((a, b) => a.token - b.token);
  return m;
}

/** A Resign answered resigned = true: the leadership ended within that call. */
export function resignedOk(o: Op): o is OpOf<'resign'> {
  return o.f === 'resign' && o.status === 'ok' && (o.output as ResignOutput).resigned;
}
