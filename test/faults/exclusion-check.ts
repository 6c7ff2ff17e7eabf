// Mutual exclusion as clients saw it. Two numbers per lock name:
//  - overlaps: two clients believed they held the lock at the same moment (from the acquire's reply
//    to the release's invoke). Expected under client pauses — a lease is not a mutex — and harmless
//    on the fenced path as long as the fence refuses the stale holder;
//  - violations: a lock granted to another lease while the holder's own lease was still trusted.
//    lockd promises a lease outlives sendTime(last acknowledged keepalive or grant) + TTL on the
//    client's monotonic clock (docs/design.md §4), so a later grant that completed before that moment, and
//    before the holder began to release, broke the promise. A third party's Release of the holder's
//    token that succeeded (or may have) ends the grant as legitimately as the holder's own: the
//    holder's protection ends when that call began (grantEnds).
import type { GrantInput, KeepAliveOutput, Op, OpOf, ReleaseOutput } from './history.js';

export interface ExclusionViolation {
  name: string;
  detail: string;
}

export interface ExclusionCheck {
  grants: number;
  overlaps: Record<string, number>;
  violations: ExclusionViolation[];
}

/** The moment each lease is guaranteed to live until (max over its grant and acked keepalives of send time + TTL). */
export function trustedUntil(ops: readonly Op[]): Map<number, number> {
  const until = new Map<number, number>();
  const bump = (lease: number, t: number): void => {
    if (t > (until.get(lease) ?? -Infinity)) until.set(lease, t);
  };
  for (const o of ops) {
    if (o.status !== 'ok') continue;
    if (o.f === 'grant') bump((o.output as { leaseId: number }).leaseId, o.invoke + (o.input as GrantInput).ttlMs);
    if (o.f === 'keepalive' && (o.output as KeepAliveOutput).ttlMs > 0) bump(o.input.leaseId, o.invoke + o.input.ttlMs);
  }
  return until;
}

/**
 * When each grant (`${name}|${token}`) may have ended by a Release: the first release of it by its
 * holder, or by a third party (adversary) whose release succeeded or may have; a third party's
 * refused guess ends nothing.
 */
export function grantEnds(ops: readonly Op[]): Map<string, number> {
  const ends = new Map<string, number>();
  for (const o of ops) {
    if (o.f !== 'release') continue;
    if (o.input.adversary && (o.status === 'fail' || (o.status === 'ok' && !(o.output as ReleaseOutput).released))) continue;
    const k = `${o.input.name}|${o.input.token}`;
    ends.set(k, Math.min(ends.get(k) ?? Infinity, o.invoke));
  }
  return ends;
}

interface Hold {
  op: OpOf<'acquire'>;
  lease: number;
  token: number;
  from: number; // acquire completed
  to: number; // release (or revoke) invoked; Infinity if never (the lease still holds it)
  believedTo: number; // ...or the holder's last recorded moment (a killed client believes nothing)
}

export function checkExclusion(ops: readonly Op[]): ExclusionCheck {
  const until = trustedUntil(ops);
  const holds = new Map<string, Hold[]>();
  const ends = grantEnds(ops); // `${name}|${token}` → first release invoke
  const revokes = new Map<number, number>(); // lease → first revoke invoke
  for (const o of ops) if (o.f === 'revoke') revokes.set(o.input.leaseId, Math.min(revokes.get(o.input.leaseId) ?? Infinity, o.invoke));
  // A client killed while holding believed it held the lock until its last recorded moment.
  const lastSeen = new Map<string, number>();
  for (const o of ops) lastSeen.set(o.process, Math.max(lastSeen.get(o.process) ?? 0, Number.isFinite(o.complete) ? o.complete : o.invoke));
  let grants = 0;
  for (const o of ops) {
    if (o.f !== 'acquire' || o.status !== 'ok' || !(o.output as { acquired: boolean }).acquired) continue;
    grants++;
    const token = (o.output as { token: number }).token;
    const to = Math.min(ends.get(`${o.input.name}|${token}`) ?? Infinity, revokes.get(o.input.leaseId) ?? Infinity);
    let list = holds.get(o.input.name);
    if (!list) holds.set(o.input.name, (list = []));
    list.push({ op: o, lease: o.input.leaseId, token, from: o.complete, to, believedTo: Math.min(to, lastSeen.get(o.process)!) });
  }
  const res: ExclusionCheck = { grants, overlaps: {}, violations: [] };
  for (const [name, list] of holds) {
    // Overlapping beliefs, by sweeping holds in order of their start.
    const byFrom = [...list].sort((a, b) => a.from - b.from);
    let overlaps = 0;
    for (let i = 0; i < byFrom.length; i++)
      for (let j = i + 1; j < byFrom.length && byFrom[j].from < byFrom[i].believedTo; j++) if (byFrom[j].lease !== byFrom[i].lease) overlaps++;
    res.overlaps[name] = overlaps;
    // Grants by token; the earliest completion among all later grants (suffix minimum).
    const byToken = [...list].sort((a, b) => a.token - b.token);
    const suffixMin: (Hold | undefined)[] = new Array(byToken.length + 1).fill(undefined);
    for (let i = byToken.length - 1; i >= 0; i--) {
      const later = suffixMin[i + 1];
      suffixMin[i] = !later || byToken[i].op.complete < later.op.complete ? byToken[i] : later;
    }
    for (let i = 0; i < byToken.length; i++) {
      const a = byToken[i];
      const b = suffixMin[i + 1];
      if (!b || b.lease === a.lease) continue;
      const protectedUntil = Math.min(a.to, until.get(a.lease) ?? -Infinity);
      if (b.op.complete < protectedUntil && res.violations.length < 20)
        res.violations.push({
          name,
          detail:
            `lease ${b.lease} got ${name} (token ${b.token}, reply at ${b.op.complete.toFixed(1)} ms) while lease ${a.lease} held it ` +
            `(token ${a.token}) and was trusted until ${protectedUntil.toFixed(1)} ms (${(protectedUntil - b.op.complete).toFixed(1)} ms early)`,
        });
    }
  }
  return res;
}
