// Election calls (lockd.v1.Election): a leader is the holder of the mutex of the election's
// name; its key is that grant. Campaign, Proclaim, Leader and Resign run unary or on a Session
// (ElectionCalls). observeLeader streams the leadership, reopening a broken stream (the
// server sends the current leader first on every open, so a reconnect resynchronises by itself; a
// node that caught up by snapshot sends the leadership it restored, which is whole state too).
import { randomUUID } from 'node:crypto';
import type { CampaignRequest } from '../proto/gen/lockd/v1/CampaignRequest.js';
import type { CampaignResponse__Output } from '../proto/gen/lockd/v1/CampaignResponse.js';
import type { LeaderRequest } from '../proto/gen/lockd/v1/LeaderRequest.js';
import type { ProclaimRequest } from '../proto/gen/lockd/v1/ProclaimRequest.js';
import type { ResignRequest } from '../proto/gen/lockd/v1/ResignRequest.js';
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

/**
 * How election calls reach the cluster: unary RPCs through the Router (LockClient: viaRouter) or one
 * Session stream (SessionClient). The recipe below is the same over either.
 */
export interface ElectionCalls {
  campaign(req: CampaignRequest): Promise<CampaignResponse__Output>;
  proclaim(req: ProclaimRequest): Promise<unknown>;
  leader(req: LeaderRequest): Promise<LeaderResponse__Output>;
  resign(req: ResignRequest): Promise<ResignResponse__Output>;
}

/** Unary Election RPCs, retried by the Router within `ctl` (a campaign has no per-attempt timeout: it waits). */
export function viaRouter(router: Router, ctl: CallControl): ElectionCalls {
  return {
    campaign: (req) =>
      router.unary<CampaignResponse__Output>('Election.Campaign', (ep, o, cb) => ep.election.Campaign(req, o, cb), { ...ctl, attemptTimeout: false }),
    proclaim: (req) => router.unary<unknown>('Election.Proclaim', (ep, o, cb) => ep.election.Proclaim(req, o, cb), ctl),
    leader: (req) => router.unary<LeaderResponse__Output>('Election.Leader', (ep, o, cb) => ep.election.Leader(req, o, cb), ctl),
    resign: (req) => router.unary<ResignResponse__Output>('Election.Resign', (ep, o, cb) => ep.election.Resign(req, o, cb), ctl),
  };
}

export async function campaign(via: ElectionCalls, name: string, leaseId: number, value: string, requestId: string = randomUUID()): Promise<LeaderKey> {
  const r = await via.campaign({ name, leaseId, value, requestId });
  const key = keyOf(r.leader);
  if (!key || !(key.fencingToken > 0)) throw new Error(`Election.Campaign answered no leadership for ${JSON.stringify(name)}`);
  return key;
}

export async function proclaim(via: ElectionCalls, key: LeaderKey, value: string): Promise<void> {
  await via.proclaim({ leader: key, value });
}

/** The current leadership (no leader: `leader` undefined). */
export async function leader(via: ElectionCalls, name: string): Promise<Leadership> {
  try {
    const r = await via.leader({ name });
    return { leader: keyOf(r.leader), value: r.value };
  } catch (e) {
    if (e instanceof LockdError && e.codeName === 'NOT_FOUND') return { value: '' };
    throw e;
  }
}

export async function resign(via: ElectionCalls, key: LeaderKey, requestId: string = randomUUID()): Promise<boolean> {
  return (await via.resign({ leader: key, requestId })).resigned;
}

/** Every leadership change of `name` from now on (the current one first), until `signal` aborts. */
export function observeLeader(router: Router, name: string, signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<Leadership, void, undefined> {
  return followStream<LeaderResponse__Output, Leadership>(
    router,
    (ep) => ep.election.Observe({ name }),
    (r) => ({ leader: r.hasLeader ? keyOf(r.leader) : undefined, value: r.value }),
    {
      ...(signal ? { signal } : {}),
      // The server sends its headers once the stream is subscribed: nothing after this is missed.
      ...(onOpen ? { onOpen: () => onOpen() } : {}),
    },
  );
}
