// The sequential specification of one lock name, with the liveness of the leases that touch it, for
// the linearizability search. Leases expire on the cluster's clock, which clients do not see, so
// expiry is an internal event that may happen at any moment; the model applies it lazily — only
// when an operation needs it — which is complete because expiring later never forbids anything that
// expiring earlier allows. The same holds for the server giving up a grant whose Acquire the client
// abandoned (its reply could not be delivered): `vanish` marks a holder that may lose the lock
// without its lease dying.
//
// Tokens grow with the Raft log (index × 1024 + ordinal): each grant's token exceeds every earlier one. A grant the client
// never saw (unknown outcome) has an unknown token, so `token` is then only a lower bound.
//
// Retries: every attempt of an Acquire carries its request id. Earlier attempts whose outcome was
// unknown are unknown operations of their own (`retryOf`, they may grant); the answer is checked at a
// point within the last attempt (linearizable-check: AcquireOutput.answeredFrom), so a retry told
// "acquired, token t" must find t still held then — a replay of a grant that ended is caught.
//
// The adversary (adversary-client.ts): its Inspect is an observation; its Release of the holder's
// exact token ends the grant (legitimate: the token is the capability), any other token changes
// nothing; its CancelWait, with abandoned_at_index 0 or beyond any real entry, must never release.
import type { Model } from './linearizability.js';
import type { AcquireOutput, CancelWaitOutput, FailOutput, InspectOutput, Op, ReleaseOutput } from './history.js';
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
      // A retry whose earlier attempt was granted, and that grant ended: the truth is "not acquired"
      // (never a second grant), whoever holds the lock now — nobody included.
      if (!out.acquired && out.answeredFrom !== undefined && s.holder === out.holder && s.holder !== lease) return s;
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
      if (op.input.adversary) return stepThirdPartyRelease(s, op, token);
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
    case 'inspect': {
      if (op.status !== 'ok') return s;
      const out = op.output as InspectOutput;
      if (!out.held) return free(s);
      return holds(s, out.holder, out.token);
    }
    case 'cancelwait': {
      if (op.status !== 'ok') return s;
      const out = op.output as CancelWaitOutput;
      // Its abandoned_at_index names no real Acquire entry: it must not release, and with an index it
      // must not even leave the queue. A token it reports is the lease's current grant.
      if (out.released || (out.removed && op.input.abandonedAtIndex > 0)) return undefined;
      return out.token > 0 ? holds(s, op.input.leaseId, out.token) : s;
    }
    default:
      throw new Error(`lock model: unexpected operation ${op.f}`);
  }
}

/** Observed: `lease` holds the lock with `token`. */
function holds(s: LockState, lease: number, token: number): LockState | undefined {
  if (s.holder !== lease || isDead(s, lease)) return undefined;
  if (s.exact ? s.token !== token : !(token > s.token)) return undefined;
  return { ...s, token, exact: true };
}

/** A third party's Release of `token`: it ends the grant iff that is the holder's token. */
function stepThirdPartyRelease(s: LockState, op: Op, token: number): LockState | undefined {
  // Mine for sure (exact token), or possibly (the holder's token is unknown, above the floor).
  const sure = s.holder !== 0 && s.exact && s.token === token;
  const maybe = s.holder !== 0 && !s.exact && token > s.token;
  const ended: LockState = { ...s, holder: 0, token, exact: true, vanish: false };
  if (op.status === 'unknown') return sure || maybe ? ended : s;
  if (op.status === 'fail') {
    const c = code(op);
    if (c === 'NOT_FOUND') return free(s);
    if (c === 'FAILED_PRECONDITION') return s.holder !== 0 && !sure ? s : undefined;
    return s;
  }
  if ((op.output as ReleaseOutput).released) return sure || maybe ? ended : undefined;
  return s.holder !== 0 && !sure ? s : undefined;
}

/** The leases whose identity the step of `op` depends on (isDead, holder ===, markDead): see Model.names. */
function leasesNamed(op: Op): number[] {
  const ids: number[] = [];
  switch (op.f) {
    case 'acquire':
      ids.push(op.input.leaseId, (op.output as AcquireOutput | undefined)?.holder ?? 0);
      break;
    case 'release':
      if (!op.input.adversary) ids.push(op.input.leaseId); // a third party's Release looks at the token only
      break;
    case 'keepalive':
    case 'revoke':
    case 'cancelwait':
      ids.push(op.input.leaseId);
      break;
    case 'inspect':
      ids.push((op.output as InspectOutput | undefined)?.holder ?? 0);
      break;
    default:
      break;
  }
  return ids.filter((x) => x !== 0);
}

export const lockModel: Model<LockState, Op> = {
  name: 'lock',
  init: () => INITIAL,
  step: stepLock,
  // The dead set enters the key by size and hash: two different sets colliding in both is negligible.
  key: (s) => `${s.holder}|${s.token}|${s.exact ? 1 : 0}${s.vanish ? 1 : 0}|${s.dead.length}.${s.deadHash}`,
  names: leasesNamed,
  // A holder no remaining operation names is just "someone" (a later grant frees it the same way,
  // whoever it is; a third party's Release looks at the token), and a dead lease no remaining
  // operation names can no longer matter: two abandoned grants of different leases, or two histories
  // of which leases died, merge. The dead leases still named are few: listed exactly.
  canonicalKey: (s, named) => {
    // Whichever is shorter to walk: the dead leases, or the named ones (then sorted, for one key per set).
    const dead = s.dead.length <= named.size ? s.dead.filter((x) => named.has(x)) : [...named].filter((x) => isDead(s, x)).sort((a, b) => a - b);
    return `${s.holder === 0 || named.has(s.holder) ? s.holder : '*'}|${s.token}|${s.exact ? 1 : 0}${s.vanish ? 1 : 0}|${dead.join(',')}`;
  },
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
