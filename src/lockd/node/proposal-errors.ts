// Why a request could not be served here; the API layer maps these to gRPC status codes.
import type { NodeId } from '../../raft/types.js';

/** This node does not lead (leader '' when none is known): forward, or answer UNAVAILABLE. */
export class NotLeaderError extends Error {
  constructor(readonly leader: NodeId) {
    super(leader ? `not the leader; the leader is ${leader}` : 'no leader is known (election in progress or no quorum)');
  }
}

/** A proposal did not commit at its index (another leader's entry did), or a snapshot skipped it. */
export class ProposalLostError extends Error {
  constructor(
    readonly index: number,
    /** True when we cannot tell whether it committed (a snapshot jumped over it). */
    readonly outcomeUnknown = false,
  ) {
    super(
      outcomeUnknown
        ? `outcome of the proposal at index ${index} is unknown here (snapshot installed)`
        : `proposal at index ${index} was superseded by a new leader`,
    );
  }
}
