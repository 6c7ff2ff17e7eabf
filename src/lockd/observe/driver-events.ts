// The Raft driver's own facts about its disk writes, for the observation layer (node-source.ts reads
// them). Declared here, by their reader, so that observe sits below the node (src/README.md): the
// driver (node/raft-driver.ts) imports this type, never the other way round.
import type { Ready } from '../../raft/types.js';

/**
 * synced: one synced LevelDB write (a batch, or a compaction: entries 0), timed around the write itself
 * (sync-started marks its start, so a write that never returns can be seen); persisted: a batch's durable parts are written (entries
 * appended, hard state with term/vote/commit, a snapshot installed); snapshot-taken: the log compacted;
 * unsynced: an unsynced write (a commit-only hard state) handed to storage (counted, not timed).
 */
export type DriverEvent =
  | { readonly kind: 'sync-started' }
  | { readonly kind: 'synced'; readonly ms: number; readonly entries: number }
  | { readonly kind: 'unsynced' }
  | { readonly kind: 'persisted'; readonly rd: Ready }
  | { readonly kind: 'snapshot-taken'; readonly index: number; readonly bytes: number };
