// Lock Delay, from what clients see. A grant with lock_delay_ms = D whose lease expired
// or was revoked while holding it (not released) keeps the name from everyone for D on the cluster's
// logical clock. Clients cannot see that clock, but they can bound it:
//  - the grant ended no earlier than E = min(its lease's first Revoke invoke, the lease's trust end):
//    a Revoke entry is applied after its call began, and lockd promises the lease outlives its trust
//    (sendTime of the last acknowledged keepalive + TTL, docs/design.md §4);
//  - logical time never runs faster than real time (src/lockd/node/lease-clock.ts: each Tick's
//    elapsed is measured on the leader's monotonic clock, capped, time beyond the cap and time
//    without a leader dropped) except that one Tick in flight when the delay starts may count up to
//    its cap (two lease-clock intervals) of time from before the start: `slackMs`.
// So every later grant of the name (a higher token) was answered no earlier than E + D - slackMs.
// A grant with any Release invoked before that later answer is not judged (it may have been released,
// which starts no delay); nor is one whose end the history cannot bound (no trust known); nor a
// semaphore or shared grant (asked with permits > 1, or shared): a higher token may be a co-holder's,
// granted while it still held (recipe-client.ts crowds ask the semaphore with a delay). The
// simulator judges those delays on the logical clock itself (test/sim/lock-checkers.ts).
const oneHolder = (g: RecipeGrant) => !g.shared && (g.op.f === 'campaign' || g.op.input.permits <= 1);
import { byName, type RecipeGrant } from './recipe-grants.js';
import type { RecipeViolation } from './recipe-holders-check.js';

export interface LockDelayStats {
  /** Delayed grants judged (ended by expiry or revoke, a later grant known). */
  judged: number;
  violations: RecipeViolation[];
}

export function checkLockDelay(grants: readonly RecipeGrant[], slackMs: number): LockDelayStats {
  const res: LockDelayStats = { judged: 0, violations: [] };
  for (const [name, list] of byName(grants)) {
    // The earliest answer among grants with a higher token (suffix minimum in token order).
    const firstAfter: (RecipeGrant | undefined)[] = new Array(list.length + 1).fill(undefined);
    for (let i = list.length - 1; i >= 0; i--) {
      const later = firstAfter[i + 1];
      firstAfter[i] = !later || list[i].op.complete < later.op.complete ? list[i] : later;
    }
    for (let i = 0; i < list.length; i++) {
      const a = list[i];
      let j = i + 1;
      while (j < list.length && list[j].token === a.token) j++; // granted by the same entry
      const b = firstAfter[j];
      if (a.lockDelayMs <= 0 || !b || a.releasedFrom < b.op.complete || !oneHolder(a)) continue;
      const ended = Math.min(a.revokedFrom, a.trustEnd);
      if (!Number.isFinite(ended)) continue;
      res.judged++;
      const earliest = ended + a.lockDelayMs - slackMs;
      if (b.op.complete < earliest && res.violations.length < 20)
        res.violations.push({
          checker: 'Lock Delay',
          name,
          detail:
            `lease ${b.lease} got ${name} (token ${b.token}, answer at ${b.op.complete.toFixed(1)} ms) ${(earliest - b.op.complete).toFixed(1)} ms before the lock-delay of ` +
            `lease ${a.lease}'s grant (token ${a.token}, ${a.lockDelayMs} ms, ended by ${a.revokedFrom <= a.trustEnd ? 'revoke' : 'expiry'} no earlier than ${ended.toFixed(1)} ms, ` +
            `never released) could have passed (${slackMs} ms clock slack allowed)`,
        });
    }
  }
  return res;
}
