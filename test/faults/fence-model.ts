// The sequential specification of one key of the fenced store, for the linearizability search: a
// register that accepts a write whose token is at least the highest it has accepted, refuses a lower
// one (FAILED_PRECONDITION) and returns the last accepted value with its token. A value is named by
// its length and last element (each write appends an element no other write appends).
import type { Model } from './linearizability.js';
import type { FailOutput, Op, ReadOutput } from './history.js';

export interface FenceState {
  readonly token: number;
  readonly n: number;
  readonly last: string;
}

export function stepFence(s: FenceState, op: Op): FenceState | undefined {
  switch (op.f) {
    case 'write': {
      const { token, n, elem } = op.input;
      const accepts = token >= s.token;
      if (op.status === 'unknown') return accepts ? { token, n, last: elem } : s;
      if (op.status === 'ok') return accepts ? { token, n, last: elem } : undefined;
      // A refusal for a stale token must be a real one; other failures (bad argument, limits) change nothing.
      return (op.output as FailOutput | undefined)?.code === 'FAILED_PRECONDITION' ? (accepts ? undefined : s) : s;
    }
    case 'read': {
      if (op.status !== 'ok') return s;
      const out = op.output as ReadOutput;
      return out.token === s.token && out.n === s.n && out.last === s.last ? s : undefined;
    }
    default:
      throw new Error(`fence model: unexpected operation ${op.f}`);
  }
}

export const fenceModel: Model<FenceState, Op> = {
  name: 'fenced register',
  init: () => ({ token: 0, n: 0, last: '' }),
  step: stepFence,
  key: (s) => `${s.token}|${s.n}|${s.last}`,
  describe: (s) => `value of ${s.n} elements ending ${JSON.stringify(s.last)}, written with token ${s.token}`,
};
