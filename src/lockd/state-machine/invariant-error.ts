// A broken invariant is a bug in lockd, never a user error: fail stop with a message that names it.
// After one is thrown the state machine instance must be discarded (apply is not transactional).
// The error is the code base's one InvariantError (src/raft/types.ts), `where` this state machine.
import { InvariantError } from '../../raft/types.js';

export { InvariantError };

/** The `where` of the state machine's invariants. */
export const STATE_MACHINE = 'lockd state machine';

export function check(cond: unknown, name: string, detail: () => string): asserts cond {
  if (!cond) throw new InvariantError(STATE_MACHINE, name, detail());
}
