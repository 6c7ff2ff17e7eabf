// The proto's promises about a grant that has ended, written once for every harness that judges
// recipes from the outside: the recipe property test (test/lockd/api/recipe-checks.ts) and the
// fault suite (test/faults/stale-check.ts). "Ended" means the caller learned it definitely: its own
// Release or Resign was answered, or its lease's Revoke was. From then on its token names a grant
// that is over (a token names one grant: proto ReleaseRequest.lease_id, FenceWriteRequest.lock), so
//  - Release(token) must not answer released = true,
//  - Resign(leader key) must not answer resigned = true,
//  - Proclaim(leader key) must not be accepted,
//  - Fence.Write / Fence.Delete with lock = the name must not be accepted.
// Any of these succeeding means a paused client acted as the live holder of someone else's grant.
// And a token names one grant of its lock (AcquireResponse.fencing_token: "this grant's alone"), so
// two grants of one name answered to different leases never carry one token (sharedTokens) — or
// the paused holder of one could act as the other.

/** A call by which a holder acts on its grant. */
export type GrantAct = 'release' | 'resign' | 'proclaim' | 'fenceWrite' | 'fenceDelete';

/** Whether a successful answer to `act` says the call acted on a grant (Release and Resign can answer "nothing to do"). */
export function actedOnGrant(act: GrantAct, answer: { readonly released?: unknown; readonly resigned?: unknown }): boolean {
  if (act === 'release') return answer.released === true;
  if (act === 'resign') return answer.resigned === true;
  return true;
}

const WHAT: Record<GrantAct, string> = {
  release: 'a stale token released a live grant: Release answered released',
  resign: 'a stale leadership resigned: Resign answered resigned',
  proclaim: 'a stale leadership proclaimed: Proclaim was accepted',
  fenceWrite: 'a stale token wrote: Fence.Write with lock was accepted',
  fenceDelete: 'a stale token deleted: Fence.Delete with lock was accepted',
};

/**
 * What a successful answer to a call made with an ended grant broke, or undefined. `who` names the
 * ended grant for the message (its token and lease).
 */
export function staleActBroken(act: GrantAct, answer: { readonly released?: unknown; readonly resigned?: unknown }, who: string): string | undefined {
  return actedOnGrant(act, answer) ? `${WHAT[act]} (by ${who}, whose grant had ended)` : undefined;
}

/** A grant as a harness saw it answered: its lock or election name, its lease, its token. */
export interface SeenGrant {
  readonly name: string;
  readonly lease: number;
  readonly token: number;
}

/**
 * The grants seen so far, by name and token: `add` answers what a grant broke (another lease's grant
 * of its name answered the same token), or undefined. A retry or a downgrade answers a lease its own
 * token again, which is the same grant, not a second one.
 */
export class TokenOwners {
  private readonly first = new Map<string, SeenGrant>();

  add(g: SeenGrant): string | undefined {
    if (!(g.token > 0)) return undefined;
    const k = `${g.name}\u0000${g.token}`;
    const f = this.first.get(k);
    if (!f) this.first.set(k, g);
    else if (f.lease !== g.lease) return `two grants of ${g.name} got one fencing token ${g.token} (leases ${f.lease} and ${g.lease}; a token names one grant)`;
    return undefined;
  }
}

/** What grants answered with one token on one name to different leases broke (one per such pair; none: every token names one grant). */
export function sharedTokens(grants: Iterable<SeenGrant>): Array<{ name: string; detail: string }> {
  const owners = new TokenOwners();
  const out: Array<{ name: string; detail: string }> = [];
  for (const g of grants) {
    const detail = owners.add(g);
    if (detail) out.push({ name: g.name, detail });
  }
  return out;
}
