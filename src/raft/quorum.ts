// Majority arithmetic over the voter set.
import type { NodeId } from './types.js';

export function quorumSize(voters: number): number {
  return Math.floor(voters / 2) + 1;
}

/** The highest index that a majority of voters has durably matched. */
export function committedIndex(voters: readonly NodeId[], matchOf: (id: NodeId) => number): number {
  const matches = voters.map(matchOf).sort((a, b) => b - a);
  return matches[quorumSize(voters.length) - 1];
}

export type VoteResult = 'won' | 'lost' | 'pending';

export function voteResult(voters: readonly NodeId[], votes: ReadonlyMap<NodeId, boolean>): VoteResult {
  let granted = 0;
  let rejected = 0;
  for (const id of voters) {
    const v = votes.get(id);
    if (v === true) granted++;
    else if (v === false) rejected++;
  }
  const q = quorumSize(voters.length);
  if (granted >= q) return 'won';
  if (voters.length - rejected < q) return 'lost';
  return 'pending';
}
