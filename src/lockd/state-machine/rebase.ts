// What restore and --force-new-cluster share (pure): a state moved past an old cluster's log, so
// that the new log cannot mint a token or lease id the old cluster may have issued. A token names
// its granting entry (index × 1024 + ordinal) and a lease id is its Grant entry's index: an old
// cluster that went on committing after the state we hold (a backup, a survivor that fell behind)
// issued tokens and ids at indexes we never saw. Starting the new log `bump` entries past our last
// one puts every new token and id above theirs, unless they committed `bump` entries or more.
import { LockStateMachine, type EntryLike } from './lock-state-machine.js';
import { rebaseState } from './snapshot-backup.js';

/**
 * How far past the state's index the new log starts, by default (lockd restore --bump-index and
 * --force-new-cluster's --bump-index). 10^9 entries is years of a busy cluster's Ticks (10 a second)
 * and days at full write load; the index space (2^43) holds ~8,800 such moves. Pass more when the
 * old cluster ran further (its last commit index minus ours, from lockctl status or
 * lockd_raft_commit_index).
 */
export const DEFAULT_BUMP = 1_000_000_000;

/**
 * The state after applying `entries` (in log order, right after the snapshot) to the snapshot
 * `data` (empty: the empty state), moved to index `index` (≥ the last entry's): what a survivor's
 * data dir holds, all of it, committed or not — a one-voter cluster would commit it all anyway.
 * Leases keep their deadlines and the clock its last Tick's `now` (rebaseState). Throws
 * CommandDecodeError / SnapshotDecodeError / InvariantError.
 */
export function replayAndRebase(data: Uint8Array, entries: readonly EntryLike[], index: number): Uint8Array {
  const sm = data.length > 0 ? LockStateMachine.fromSnapshot(data) : new LockStateMachine();
  for (const e of entries) sm.apply(e); // asserts log order: each index above the last applied
  sm.checkInvariants();
  return rebaseState(sm.snapshot(), index);
}
