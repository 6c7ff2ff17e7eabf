// An Acquire's recipe (the recipes: semaphore permits, shared read locks, lock-delay) as request fields.
import type { LockRecipe } from './result-types.js';

/** AcquireRequest's recipe fields; absent = the mutex default (0 / false). */
export function recipeFields(r: LockRecipe): { permits: number; shared: boolean; lockDelayMs: number } {
  return { permits: r.permits ?? 0, shared: r.shared ?? false, lockDelayMs: r.lockDelayMs ?? 0 };
}
