// What step 1 of a Ready batch writes (driver-loop.ts: ready → persist → send → apply → advance), as
// one pure function: the loop's durability rules in one place, tested on their own
// (test/lockd/node/persist-plan.test.ts).
//  - The core says when a write must be synced (Ready.mustSync, etcd's MustSync: the term, the vote or
//    the log changes, which Raft keeps on stable storage before answering anyone).
//  - A batch whose only change is the commit index is not written at all: the commit index needs no
//    durability (a restarted node learns it again from the leader, and a new leader's no-op commits
//    whatever was committed before). Its hard state goes along with the next synced write, as a hint
//    for restarts and the log-dump tool. That saves a LevelDB batch on every node per round.
//  - Except when a config entry commits: the stored commit must cover it, or a node that learned its
//    own removal would restart not knowing it (lockd-node's selfRemoved check reads the stored log).
//    Config changes are rare, so this costs nothing.
import type { HardState, Ready } from '../../raft/types.js';

/** The durable parts of a Ready batch. */
export type Persistable = Pick<Ready, 'hardState' | 'entries' | 'snapshot'>;

export interface PersistPlan {
  /** The synced write that must complete before anything of this Ready is acknowledged; undefined: none. */
  readonly write?: Persistable;
  /** The newest hard state handed out and not written yet: it goes with the next write. */
  readonly unwrittenHard?: HardState;
}

/** Step 1 of `rd`, given the hard state an earlier batch left unwritten. */
export function planPersist(rd: Ready, unwrittenHard: HardState | undefined): PersistPlan {
  const hardState = rd.hardState ?? unwrittenHard;
  const sync = rd.mustSync || rd.committedEntries.some((e) => e.type === 'config');
  if (!sync) return hardState ? { unwrittenHard: hardState } : {};
  return { write: { hardState, entries: rd.entries, snapshot: rd.snapshot } };
}
