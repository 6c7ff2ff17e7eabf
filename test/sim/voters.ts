// Which voters a starting node runs with, given the ones its data dir was made for and the ones its --peers
// names: the rule of src/lockd/storage/load-data-dir.ts (the start-time voter check), through its own check (checkStartVoters). A
// fresh data dir records the named set; a start naming another set is refused (the node exits 3); otherwise
// the node runs with the stored set. The planted bug 'skip-voter-check' is the code before that fix: the named
// set is used, unchecked.

import { checkStartVoters } from '../../src/lockd/storage/load-data-dir.js';
import { DataDirError } from '../../src/lockd/storage/data-dir-errors.js';
import type { NodeId } from '../../src/raft/types.js';

export type StartBug = 'skip-voter-check';
export const START_BUGS: readonly StartBug[] = ['skip-voter-check'];

export type VoterDecision =
  { readonly ok: true; readonly voters: readonly NodeId[]; readonly record?: readonly NodeId[] } | { readonly ok: false; readonly reason: string };

const sorted = (ids: readonly NodeId[]): NodeId[] => [...ids].sort();

export function startVoters(node: NodeId, stored: readonly NodeId[] | undefined, named: readonly NodeId[], bug?: StartBug): VoterDecision {
  if (stored === undefined) return { ok: true, voters: sorted(named), record: sorted(named) };
  if (bug === 'skip-voter-check') return { ok: true, voters: named };
  try {
    checkStartVoters(`(${node}'s simulated data dir)`, stored, named);
  } catch (e) {
    if (e instanceof DataDirError) return { ok: false, reason: e.message };
    throw e;
  }
  return { ok: true, voters: stored };
}
