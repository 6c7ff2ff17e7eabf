// The recipe property test's checkers of the proto's promises, read from the answers themselves
// rather than from the model's next state: a grant that has ended never acts (no release, resign,
// proclaim or lock-bound write by a caller whose grant ended; a third party's CancelWait releases
// nothing), at most one leader per election name (Inspect never shows two holders of one; SetPermits
// on one is refused), and every change of holders, mode, permits or leader the model made is a
// Lock.Observe event.
import type { LockEvent__Output } from '../../../src/proto/gen/lockd/v1/LockEvent.js';
import type { Answer, RecipeModel, RecipeReq } from './recipe-model.js';
import { sharedTokens, staleActBroken, type SeenGrant } from '../../support/grant-promises.js';

/** Per name, the events its Observe stream delivered so far. */
export type Events = Map<string, LockEvent__Output[]>;

/** What a request's answer broke, if anything. stale: the caller's grant had ended; election: the name is an election. */
export function promiseBroken(m: RecipeModel, req: RecipeReq, got: Answer, at: { stale: boolean; election: boolean }): string | undefined {
  if (!got.ok) return undefined;
  const b = got.body;
  if (at.stale && (req.t === 'release' || req.t === 'resign' || req.t === 'proclaim' || req.t === 'fenceWrite')) {
    const g = 'grant' in req ? m.ended.find((e) => e.sym === req.grant) : undefined;
    const who = `the ended grant (token ${g?.token}, lease ${g?.lease})${req.t === 'release' && req.lease === 0 ? ', without lease_id' : ''}`;
    const broken = staleActBroken(req.t, b, who);
    if (broken) return broken;
  }
  if (req.t === 'cancelWait' && (b.released === true || b.removed === true))
    return `a third party's CancelWait (an index read from a QUEUED event, not the waiter's request id) ${b.released ? 'released the grant handed to' : 'took out of the queue'} lease ${req.lease}`;
  if (req.t === 'inspect' && at.election && Array.isArray(b.holders) && b.holders.length > 1)
    return `at most one leader per election: ${req.name} has ${b.holders.length} holders`;
  // proto Lock.SetPermits: refused on an election (one leader); accepted, it could crown a waiting campaigner beside the leader.
  if (req.t === 'setPermits' && at.election)
    return `at most one leader per election: SetPermits(${req.permits}) on the election ${req.name} was accepted${Number(b.granted) > 0 ? ` and granted ${b.granted} waiting campaigner(s) beside its leader` : ''}`;
  return undefined;
}

/** The first change the model made that no event of its name shows (undefined: all shown). RELEASED and EXPIRED both end a grant. */
export function missingEvents(m: RecipeModel, events: Events): string | undefined {
  for (const [name, want] of m.events) {
    const got = [...(events.get(name) ?? [])];
    for (const w of want) {
      const token = w.token === undefined ? undefined : m.val(w.token);
      const i = got.findIndex(
        (e) =>
          (e.type === w.type || (w.type === 'RELEASED' && e.type === 'EXPIRED')) &&
          Number(e.leaseId) === w.lease &&
          (token === undefined || Number(e.fencingToken) === token),
      );
      if (i < 0)
        return `no ${w.type} event on ${name} for lease ${w.lease}${token ? ` token ${token}` : ''} (the change made by #${w.by}); got ${got.length ? got.map((e) => `${e.type}/${e.leaseId}/${e.fencingToken}`).join(' ') : 'none left'}`;
      got.splice(i, 1);
    }
  }
  return undefined;
}

/**
 * The holders an observer would believe in, folding its events as the proto defines them: ACQUIRED
 * adds a grant, RELEASED and EXPIRED end one, RESYNC replaces the picture with its `state`. Keys are
 * "lease/token" (a token names one grant).
 */
export function foldHolders(events: readonly LockEvent__Output[]): Set<string> {
  const held = new Set<string>();
  for (const e of events) {
    if (e.type === 'ACQUIRED') held.add(`${e.leaseId}/${e.fencingToken}`);
    else if (e.type === 'RELEASED' || e.type === 'EXPIRED') held.delete(`${e.leaseId}/${e.fencingToken}`);
    else if (e.type === 'RESYNC') {
      held.clear();
      for (const h of e.state?.holders ?? []) held.add(`${h.leaseId}/${h.fencingToken}`);
    }
  }
  return held;
}

/** How an observer's folded picture differs from the lock's holders (undefined: it agrees). */
export function foldDisagrees(
  events: readonly LockEvent__Output[],
  holders: ReadonlyArray<{ leaseId: number | string; fencingToken: number | string }>,
): string | undefined {
  const want = [...new Set(holders.map((h) => `${h.leaseId}/${h.fencingToken}`))].sort();
  const got = [...foldHolders(events)].sort();
  return want.join(' ') === got.join(' ')
    ? undefined
    : `its events add up to holders [${got.join(' ')}], Inspect says [${want.join(' ')}] (${events.map((e) => `${e.type}/${e.leaseId}/${e.fencingToken}`).join(' ') || 'no events'})`;
}

/**
 * Two grants of one name told to different leases with one token (a token names one grant), read
 * from the ACQUIRED events and RESYNC pictures every Observe stream delivered; undefined: none.
 */
export function tokenShared(events: Events): string | undefined {
  const grants: SeenGrant[] = [];
  for (const [name, list] of events)
    for (const e of list) {
      if (e.type === 'ACQUIRED') grants.push({ name, lease: Number(e.leaseId), token: Number(e.fencingToken) });
      else if (e.type === 'RESYNC') for (const h of e.state?.holders ?? []) grants.push({ name, lease: Number(h.leaseId), token: Number(h.fencingToken) });
    }
  return sharedTokens(grants)[0]?.detail;
}
