// Which voters a starting node runs with, given the ones its data dir was made for and the ones its --peers
// names. The rule of src/lockd/storage/load.ts (issue 10 item 2): a fresh data dir records the named set; a
// start naming another set is refused (the node exits 3); otherwise the node runs with the stored set.
// The planted bug 'skip-voter-check' is the code before that fix: the named set is used, unchecked.

import type { NodeId } from '../../src/raft/types.js';

export type StartBug = 'skip-voter-check';
export const START_BUGS: readonly StartBug[] = ['skip-voter-check'];

export type VoterDecision =
  | { readonly ok: true; readonly voters: readonly NodeId[]; readonly record?: readonly NodeId[] }
  | { readonly ok: false; readonly reason: string };

const sorted = (ids: readonly NodeId[]): NodeId[] => [...ids].sort();
const show = (ids: readonly NodeId[]): string => `{${sorted(ids).join(', ')}}`;

export function sameIds(a: readonly NodeId[], b: readonly NodeId[]): boolean {
  return a.length === b.length && sorted(a).join('\u0000') === sorted(b).join('\u0000');
}

export function startVoters(stored: readonly NodeId[] | undefined, named: readonly NodeId[], bug?: StartBug): VoterDecision {
  if (stored === undefined) return { ok: true, voters: sorted(named), record: sorted(named) };
  if (bug === 'skip-voter-check') return { ok: true, voters: named };
  if (!sameIds(stored, named)) {
    return { ok: false, reason: `data dir made for the voters ${show(stored)}, but this start names ${show(named)}` };
  }
  return { ok: true, voters: stored };
}
