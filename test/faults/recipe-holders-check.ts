// Holders of semaphores, read-write locks and elections, judged by fencing tokens, as
// exclusion-check.ts judges mutexes. A grant's token names the entry that granted it and is unique per
// lock (index × 1024 + ordinal), so a grant `a` with a.token < b.token was granted no later than `b`; if `a` was still certainly held
// (recipe-grants.ts: protectedUntil) when b's answer arrived, both were held just after b's grant.
// From those co-holders of each grant b:
//  - Holder Limit: b plus its exclusive co-holders must fit the permits then in force. Those are b's
//    own permits (everyone holding or waiting must agree, so b's Acquire entry found or set them) or
//    the value of a SetPermits that may have been applied while b's call was in flight — the bound
//    is the largest of these (a mutex: 1). An election has one leader whatever other RPCs touch its
//    name (SetPermits, a semaphore Acquire): a leadership among b and its co-holders makes the
//    bound 1 (a shared b beside a leader is a Read-Write Exclusion: a leadership is exclusive);
//  - Read-Write Exclusion: an exclusive b has no co-holder at all (a shared one included), and a
//    shared b no co-holder that was certainly still exclusive (granted exclusive, no possible
//    downgrade invoked before b's answer: recipe-grants.ts, exclusiveUntil);
//  - Token Order: a grant answered before another lease's call began has the lower token.
// Unknown outcomes add no grant here: a holder the clients did not see only lowers the counts, so
// every violation reported is one the history proves.
import type { Op } from './history.js';
import { byName, type RecipeGrant } from './recipe-grants.js';

export interface RecipeViolation {
  checker: string;
  name: string;
  detail: string;
}

const MAX_REPORTED = 20;

/** The largest permits that may be in force at b's grant (see above). */
function permitsBound(b: RecipeGrant, setPermits: readonly Op[]): number {
  let bound = b.op.f === 'racquire' ? Math.max(1, b.op.input.permits) : 1;
  for (const s of setPermits) {
    if (s.f !== 'setpermits' || s.input.name !== b.name || s.status === 'fail') continue;
    if (s.invoke < b.op.complete && s.complete > b.op.invoke) bound = Math.max(bound, s.input.permits);
  }
  return bound;
}

export interface HoldersCheck {
  /** Per name, the most holders the history proves at once (at some grant): the limit was exercised. */
  maxHolders: Record<string, number>;
  violations: RecipeViolation[];
}

export function checkRecipeHolders(ops: readonly Op[], grants: readonly RecipeGrant[]): HoldersCheck {
  const out: RecipeViolation[] = [];
  const maxHolders: Record<string, number> = {};
  const report = (checker: string, name: string, detail: string) => {
    if (out.length < MAX_REPORTED) out.push({ checker, name, detail });
  };
  const setPermits = ops.filter((o) => o.f === 'setpermits');
  const at = (t: number) => `${t.toFixed(1)} ms`;
  for (const [name, list] of byName(grants)) {
    for (let i = 0; i < list.length; i++) {
      const b = list[i];
      const when = b.op.complete;
      const co: RecipeGrant[] = [];
      for (let j = 0; j < list.length && list[j].token <= b.token; j++) {
        const a = list[j];
        if (a !== b && a.lease !== b.lease && a.protectedUntil > when) co.push(a);
      }
      maxHolders[name] = Math.max(maxHolders[name] ?? 0, co.length + 1);
      const leads = b.op.f === 'campaign' || co.some((a) => a.op.f === 'campaign');
      const desc = (a: RecipeGrant) => `lease ${a.lease} token ${a.token}${a.shared ? ' shared' : ''} (held until at least ${at(a.protectedUntil)})`;
      if (!b.shared) {
        const shared = co.filter((a) => a.shared);
        if (shared.length)
          report(
            'Read-Write Exclusion',
            name,
            `lease ${b.lease} got ${name} exclusively (token ${b.token}, answer at ${at(when)}) beside shared ${shared.map(desc).join(', ')}`,
          );
        const bound = leads ? 1 : permitsBound(b, setPermits);
        if (co.length + 1 > bound)
          report(
            'Holder Limit',
            name,
            `${co.length + 1} holders of ${name} at lease ${b.lease}'s grant (token ${b.token}, answer at ${at(when)}), permits at most ${bound}: also ${co.map(desc).join(', ')}`,
          );
      } else {
        const excl = co.filter((a) => !a.shared && a.exclusiveUntil > when);
        if (excl.length)
          report(
            'Read-Write Exclusion',
            name,
            `lease ${b.lease} got ${name} shared (token ${b.token}, answer at ${at(when)}) beside exclusive ${excl.map((a) => `lease ${a.lease} token ${a.token} (exclusive until at least ${at(a.exclusiveUntil)})`).join(', ')}`,
          );
      }
    }
    // Token Order: for each b, every grant of another lease answered before b was invoked has a lower token.
    const byComplete = [...list].sort((x, y) => x.op.complete - y.op.complete);
    for (const b of list) {
      for (const a of byComplete) {
        if (a.op.complete >= b.op.invoke) break;
        if (a.lease !== b.lease && a.token >= b.token) {
          report(
            'Token Order',
            name,
            `lease ${b.lease}'s grant of ${name} (invoked ${at(b.op.invoke)}) has token ${b.token}, not above lease ${a.lease}'s token ${a.token} answered before (${at(a.op.complete)})`,
          );
          break;
        }
      }
    }
  }
  return { maxHolders, violations: out };
}
