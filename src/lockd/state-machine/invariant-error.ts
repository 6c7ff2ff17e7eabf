// A broken invariant is a bug in lockd, never a user error: fail stop with a message that names it.
// After one is thrown the state machine instance must be discarded (apply is not transactional).

export class StateMachineInvariantError extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
  ) {
    super(`lockd state machine invariant "${invariant}" violated: ${detail}`);
  }
}

export function check(cond: unknown, name: string, detail: () => string): asserts cond {
  if (!cond) throw new StateMachineInvariantError(name, detail());
}
