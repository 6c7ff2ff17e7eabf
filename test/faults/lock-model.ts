// The sequential specification of one lock name, with the liveness of the leases that touch it, for
// the linearizability search. Leases expire on the cluster's clock, which clients do not see, so
// expiry is an internal event that may happen at any moment; the model applies it lazily — only
// when an operation needs it — which is complete because expiring later never forbids anything that
// expiring earlier allows. The same holds for the server giving up a grant whose Acquire the client
// abandoned (its reply could not be delivered): `vanish` marks a holder that may lose the lock
// without its lease dying.
//
// Tokens are Raft log indexes: each grant's token exceeds every earlier one. A grant the client
// never saw (unknown outcome) has an unknown token, so `token` is then only a lower bound.
import type { Model } from './linearizability.js';
import type { AcquireOutput, FailOutput, Op, ReleaseOutput } from './history.js';
import { hashString } from '../sim/prng.js';

export interface LockState {
  /** Lease holding the lock, 0 when free. */
  readonly holder: number;
  /** The holder's token (exact) or a lower bound for it (!exact); when free, the last grant's token. */
  readonly token: number;
  readonly exact: boolean;
  /** The holder's grant may be given up by the server (an abandoned Acquire). */
  readonly vanish: boolean;
  /** Leases known to be gone (sorted), with an order-independent hash for the memo key. */
  readonly dead: readonly number[];
  readonly deadHash: number;
}

const INITIAL: LockState = { holder: 0, token: 0, exact: true, vanish: false, dead: [], deadHash: 0 };

function isDead(s: LockState, lease: number): boolean {
  return binarySearch(s.dead, lease) >= 0;
}

/** The lease is gone from here on; a lock it held is free. */
function markDead(s: LockState, lease: number): LockState {
  if (isDead(s, lease)) return s;
  const i = -binarySearch(s.dead, lease) - 1;
  const dead = [...s.dead.slice(0, i), lease, ...s.dead.slice(i)];
  const deadHash = (s.deadHash ^ hashString(String(lease))) >>> 0;
  return s.holder === lease ? { ...s, holder: 0, vanish: false, dead, deadHash } : { ...s, dead, deadHash };
}

/** The holder loses the lock by an internal event: the server gives it up if it may, else its lease expires. */
function free(s: LockState): LockState {
  if (s.holder === 0) return s;
  if (s.vanish) return { ...s, holder: 0, vanish: false };
  return markDead(s, s.holder);
}

function code(op: Op): string | undefined {
  return (op.output as FailOutput | undefined)?.code;
}

export function stepLock(s: LockState, op: Op): LockState | undefined {
  switch (op.f) {
    case 'acquire': {
      const lease = op.input.leaseId;
      if (op.status === 'unknown') {
        // Taking effect (a grant, perhaps after waiting) when it can; no effect otherwise.
        if (isDead(s, lease) || s.holder === lease) return s;
        // Its token is unknown, above every earlier one: keep the floor (not floor + 1, so that
        // several such grants in a row end in the same state and the search can merge them).
        const f = free(s);
        return { ...f, holder: lease, exact: false, vanish: true };
      }
      if (op.status === 'fail') return code(op) === 'NOT_FOUND' ? markDead(s, lease) : s;
      const out = op.output as AcquireOutput;
      if (isDead(s, lease)) return undefined;
      if (out.acquired) {
        if (s.holder === lease) {
          // Already held by this lease: the same grant answers again.
          if (s.exact ? out.token !== s.token : out.token < s.token) return undefined;
          return { ...s, token: out.token, exact: true };
        }
        const f = free(s);
        if (!(out.token > f.token)) return undefined;
        return { ...f, holder: lease, token: out.token, exact: true, vanish: false };
      }
      // Try-lock answered "held by out.holder".
      return s.holder !== 0 && s.holder === out.holder && s.holder !== lease ? s : undefined;
    }
    case 'release': {
      const { leaseId: lease, token } = op.input;
      const mine = s.holder === lease && s.exact && s.token === token;
      if (op.status === 'unknown') return mine ? { ...s, holder: 0, vanish: false } : s;
      if (op.status === 'fail') {
        const c = code(op);
        if (c === 'NOT_FOUND') return free(s); // nobody holds it (any holder lost it first)
        if (c === 'FAILED_PRECONDITION') return s.holder !== 0 && !mine ? s : undefined;
        return s;
      }
      if ((op.output as ReleaseOutput).released) return mine ? { ...s, holder: 0, vanish: false } : undefined;
      return s.holder !== 0 && !mine ? s : undefined;
    }
    case 'keepalive': {
      const lease = op.input.leaseId;
      if (op.status === 'unknown') return s;
      if (op.status === 'fail') return code(op) === 'NOT_FOUND' ? markDead(s, lease) : s;
      return op.output && (op.output as { ttlMs: number }).ttlMs > 0 ? (isDead(s, lease) ? undefined : s) : markDead(s, lease);
    }
    case 'revoke':
      if (op.status === 'fail' && code(op) !== 'NOT_FOUND') return s;
      return markDead(s, op.input.leaseId);
    default:
      throw new Error(`lock model: unexpected operation ${op.f}`);
  }
}

export const lockModel: Model<LockState, Op> = {
  name: 'lock',
  init: () => INITIAL,
  step: stepLock,
  // The dead set enters the key by size and hash: two different sets colliding in both is negligible.
  key: (s) => `${s.holder}|${s.token}|${s.exact ? 1 : 0}${s.vanish ? 1 : 0}|${s.dead.length}.${s.deadHash}`,
  describe: (s) =>
    `${s.holder === 0 ? 'free' : `held by lease ${s.holder}${s.vanish ? ' (abandoned grant)' : ''}`}, token ${s.exact ? '' : '> '}${s.token}; dead leases: ${s.dead.slice(-8).join(',')}${s.dead.length > 8 ? ` (+${s.dead.length - 8})` : ''}`,
};

function binarySearch(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] === x) return mid;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}
