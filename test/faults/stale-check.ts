// Stale actors and lost grants, judged from the proto's promises (test/support/grant-promises.ts),
// not from a model of the implementation:
//  - Stale Actor: a recipe client keeps acting after it learned its grant had ended (its Release or
//    Resign answered, its lease's Revoke answered: recipe-client.ts staleMove). Every such call
//    (marked stale, or a lockwrite) must change nothing: a Release answered released, a Resign
//    answered resigned, an accepted Proclaim or lock-bound Fence.Write/Delete is a violation.
//  - Grant Lost: a grant ends only by its own holder, its lease's end, or an admin action (none run
//    here on recipe names). So the holder's own Release/Resign, invoked after its grant was answered
//    and completed while its lease was certainly alive (before its trust end, no Revoke invoked),
//    must find the grant: released/resigned = false then means someone else ended it (e.g. a stale
//    actor whose token was shared with it).
//  - Token Unique: two grants of one name answered to different leases with one token (the
//    shared-token bug the third review found, which the crowd moves of recipe-client.ts provoke:
//    several waiters granted by one entry).
import type { Op } from './history.js';
import { sharedTokens, staleActBroken } from '../support/grant-promises.js';
import type { RecipeGrant } from './recipe-grants.js';
import type { RecipeViolation } from './recipe-holders-check.js';

const MAX_REPORTED = 20;

export interface StaleCheck {
  /** Stale calls answered (ok or refused): how much the promise was exercised. */
  staleCalls: number;
  violations: RecipeViolation[];
}

export function checkStaleActors(ops: readonly Op[], grants: readonly RecipeGrant[]): StaleCheck {
  const violations: RecipeViolation[] = [];
  const report = (checker: string, name: string, detail: string) => {
    if (violations.length < MAX_REPORTED) violations.push({ checker, name, detail });
  };
  let staleCalls = 0;
  // First, so a run's first few reports name the cause when stale calls then succeed by it.
  for (const s of sharedTokens(grants).slice(0, 5)) report('Token Unique', s.name, s.detail);
  for (const o of ops) {
    const stale = o.f === 'lockwrite' || ((o.f === 'rrelease' || o.f === 'resign' || o.f === 'proclaim') && o.input.stale === true);
    if (!stale || o.status === 'unknown') continue;
    staleCalls++;
    if (o.status !== 'ok') continue;
    const i = o.input as { name: string; leaseId: number; token: number; noLease?: boolean };
    const act = o.f === 'lockwrite' ? (o.input.del ? 'fenceDelete' : 'fenceWrite') : o.f === 'rrelease' ? 'release' : o.f;
    const who = `${o.process}'s ended grant (lease ${i.leaseId}, token ${i.token})${i.noLease ? ', sent without lease_id' : ''}`;
    const broken = staleActBroken(act, o.output as { released?: unknown; resigned?: unknown }, who);
    if (broken) report('Stale Actor', i.name, `${broken}; ${o.id} at ${o.invoke.toFixed(1)}–${o.complete.toFixed(1)} ms`);
  }
  const own = new Map<string, Op[]>(); // name|lease|token → the holder's own answered Releases/Resigns
  for (const o of ops) {
    if (o.status !== 'ok' || (o.f !== 'rrelease' && o.f !== 'resign') || o.input.stale) continue;
    const k = `${o.input.name}|${o.input.leaseId}|${o.input.token}`;
    const list = own.get(k);
    if (list) list.push(o);
    else own.set(k, [o]);
  }
  for (const g of grants) {
    for (const o of own.get(`${g.name}|${g.lease}|${g.token}`) ?? []) {
      const found = o.f === 'rrelease' ? (o.output as { released: boolean }).released : (o.output as { resigned: boolean }).resigned;
      if (found || o.invoke < g.op.complete || o.complete > g.trustEnd || g.revokedFrom < o.complete) continue;
      report(
        'Grant Lost',
        g.name,
        `lease ${g.lease}'s grant (token ${g.token}, answered ${g.op.complete.toFixed(1)} ms) was gone when its holder's own ${o.f === 'rrelease' ? 'Release' : 'Resign'} (${o.id}, ${o.invoke.toFixed(1)}–${o.complete.toFixed(1)} ms) ran, while its lease was certainly alive (trusted until ${g.trustEnd.toFixed(1)} ms, never revoked before): someone else ended it`,
      );
    }
  }
  return { staleCalls, violations };
}
