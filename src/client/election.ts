// Election calls (lockd.v1.Election, issue 16): a leader is the holder of the mutex of the election's
// name; its key is that grant. observeLeader streams the leadership, reopening a broken stream (the
// server sends the current leader first on every open, so a reconnect resynchronises by itself).
import { randomUUID } from 'node:crypto';
import type { CampaignResponse__Output } from '../proto/gen/lockd/v1/CampaignResponse.js';
import type { LeaderResponse__Output } from '../proto/gen/lockd/v1/LeaderResponse.js';
import type { ResignResponse__Output } from '../proto/gen/lockd/v1/ResignResponse.js';
import { LockdError } from './errors.js';
import { followStream } from './followed-stream.js';
import type { CallControl, Router } from './router.js';

/** A leadership: the grant of the election's lock (its token fences like any lock's). */
export interface LeaderKey {
  readonly name: string;
  readonly leaseId: number;
  readonly fencingToken: number;
}

/** The leadership of an election at some point: a leader and its value, or none. */
export interface Leadership {
  readonly leader?: LeaderKey;
  readonly value: string;
}

const keyOf = (k: { name: string; leaseId: number; fencingToken: number } | null): LeaderKey | undefined =>
  k ? { name: k.name, leaseId: k.leaseId, fencingToken: k.fencingToken } : undefined;

export async function campaign(router: Router, name: string, leaseId: number, value: string, ctl: CallControl, requestId: string = randomUUID()): Promise<LeaderKey> {
  const req = { name, leaseId, value, requestId };
  const r = await router.unary<CampaignResponse__Output>('Election.Campaign', (ep, o, cb) => ep.election.Campaign(req, o, cb), { ...ctl, attemptTimeout: false });
  const key = keyOf(r.leader);
  if (!key || !(key.fencingToken > 0)) throw new Error(`Election.Campaign answered no leadership for ${JSON.stringify(name)}`);
  return key;
}

export async function proclaim(router: Router, key: LeaderKey, value: string, ctl: CallControl): Promise<void> {
  await router.unary<unknown>('Election.Proclaim', (ep, o, cb) => ep.election.Proclaim({ leader: key, value }, o, cb), ctl);
}

/** The current leadership (no leader: `leader` undefined). */
export async function leader(router: Router, name: string, ctl: CallControl): Promise<Leadership> {
  try {
    const r = await router.unary<LeaderResponse__Output>('Election.Leader', (ep, o, cb) => ep.election.Leader({ name }, o, cb), ctl);
    return { leader: keyOf(r.leader), value: r.value };
  } catch (e) {
    if (e instanceof LockdError && e.codeName === 'NOT_FOUND') return { value: '' };
    throw e;
  }
}

export async function resign(router: Router, key: LeaderKey, ctl: CallControl, requestId: string = randomUUID()): Promise<boolean> {
  const r = await router.unary<ResignResponse__Output>('Election.Resign', (ep, o, cb) => ep.election.Resign({ leader: key, requestId }, o, cb), ctl);
  return r.resigned;
}

/** Every leadership change of `name` from now on (the current one first), until `signal` aborts. */
export function observeLeader(router: Router, name: string, signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<Leadership, void, undefined> {
  return followStream<LeaderResponse__Output, Leadership>(router, (ep) => ep.election.Observe({ name }), (r) => ({ leader: r.hasLeader ? keyOf(r.leader) : undefined, value: r.value }), {
    ...(signal ? { signal } : {}),
    // The server sends its headers once the stream is subscribed: nothing after this is missed.
    ...(onOpen ? { onOpen: () => onOpen() } : {}),
  });
}
