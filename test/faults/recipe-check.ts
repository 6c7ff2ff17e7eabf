// Every recipe checker over a history: holders (semaphore limit, read-write exclusion,
// token order), lock-delay, elections, stale actors and lost grants. The recipe operations are not in the linearizability
// check (its lock model knows mutexes only); these judge them instead.
import type { Op, RAcquireOutput } from './history.js';
import { recipeGrants } from './recipe-grants.js';
import { checkRecipeHolders, type RecipeViolation } from './recipe-holders-check.js';
import { checkLockDelay } from './lock-delay-check.js';
import { checkElections } from './election-check.js';
import { checkStaleActors } from './stale-check.js';

/** One Tick may count up to its cap (2 × the ~100 ms lease-clock interval) from before a delay began. */
export const DELAY_CLOCK_SLACK_MS = 200;

export interface RecipeCheck {
  /** Grants by recipe: semaphore (permits asked), shared, exclusive read-write, lock-delay, leadership. */
  grants: Record<string, number>;
  /** Per name, the most holders at once the history proves. */
  maxHolders: Record<string, number>;
  downgrades: number;
  setPermits: number;
  /** Calls by stale actors that were answered (each must have changed nothing: stale-check.ts). */
  staleCalls: number;
  /** Calls of one recipe made on another recipe's name (recipe-client.ts crossMove), answered. */
  crossCalls: number;
  /** Try-locks answered "not acquired" while a lock-delay ran (lock_delay_remaining_ms > 0). */
  delayedAnswers: number;
  delaysJudged: number;
  elections: { campaigns: number; leaderReads: number; observed: number; streams: number };
  violations: RecipeViolation[];
}

export function checkRecipes(ops: readonly Op[], slackMs = DELAY_CLOCK_SLACK_MS): RecipeCheck {
  const grants = recipeGrants(ops);
  const holders = checkRecipeHolders(ops, grants);
  const delay = checkLockDelay(grants, slackMs);
  const el = checkElections(ops, grants);
  const stale = checkStaleActors(ops, grants);
  const count: Record<string, number> = { semaphore: 0, shared: 0, exclusive: 0, lockDelay: 0, leadership: 0 };
  for (const g of grants) {
    if (g.op.f === 'campaign') count.leadership++;
    else if (g.lockDelayMs > 0) count.lockDelay++;
    else if (g.shared) count.shared++;
    else if (g.op.input.permits > 0)
      count.semaphore++; // asked with permits (SetPermits may have made them 1)
    else count.exclusive++;
  }
  let delayedAnswers = 0;
  for (const o of ops)
    if (o.f === 'racquire' && o.status === 'ok' && !(o.output as RAcquireOutput).acquired && (o.output as RAcquireOutput).delayRemainingMs > 0)
      delayedAnswers++;
  return {
    grants: count,
    maxHolders: holders.maxHolders,
    downgrades: grants.filter((g) => Number.isFinite(g.downgradedFrom)).length,
    setPermits: ops.filter((o) => o.f === 'setpermits' && o.status === 'ok').length,
    staleCalls: stale.staleCalls,
    crossCalls: ops.filter((o) => 'cross' in o.input && o.input.cross === true && o.status !== 'unknown').length,
    delayedAnswers,
    delaysJudged: delay.judged,
    elections: { campaigns: el.campaigns, leaderReads: el.leaderReads, observed: el.observed, streams: el.streams },
    violations: [...holders.violations, ...delay.violations, ...el.violations, ...stale.violations],
  };
}
