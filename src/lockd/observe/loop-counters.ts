// Plain counters of the node's replication work: Raft messages by type and direction,
// Ready batches and their entries, LevelDB writes synced and unsynced. They sit on the hot path,
// so they are bare number fields incremented in place — no event object, no label lookup, no
// allocation per message; NodeMetrics (metrics.ts) reads them only when /metrics is scraped.
// A benchmark divides their deltas over a window by the lock cycles in it (bench/lib/counters.ts).
import type { Message, MessageType, Ready } from '../../raft/types.js';

export const MESSAGE_TYPES: readonly MessageType[] = [
  'App',
  'AppResp',
  'Heartbeat',
  'HeartbeatResp',
  'Vote',
  'VoteResp',
  'PreVote',
  'PreVoteResp',
  'Snap',
  'TimeoutNow',
];

type PerType = Record<MessageType, number>;
const zeros = (): PerType => Object.fromEntries(MESSAGE_TYPES.map((t) => [t, 0])) as PerType;

export class LoopCounters {
  readonly sent: PerType = zeros();
  readonly received: PerType = zeros();
  /** Entries carried by App messages sent (÷ sent.App: entries per App). */
  appEntriesSent = 0;
  /** App messages sent with no entries (a probe, or a commit index alone). */
  emptyAppsSent = 0;
  /** Ready batches handled (each persisted, then its messages sent and its entries applied). */
  readies = 0;
  /** Entries appended by Ready batches: on the leader, its proposals (÷ readies: proposals per Ready). */
  readyEntries = 0;
  /** Ready batches that appended at least one entry. */
  readiesWithEntries = 0;
  /** Entries handed to the state machine by Ready batches. */
  committedEntries = 0;
  /** Synced LevelDB writes (Ready batches with entries, term or vote, or a snapshot; and compactions). */
  syncedWrites = 0;
  /** Entries those synced writes carried (÷ syncedWrites: entries per persist). */
  syncedEntries = 0;
  /** Unsynced LevelDB writes (a commit-only hard state, not waited for). */
  unsyncedWrites = 0;

  /** A message this node sent (`sent`) or received. */
  message(m: Message, sent: boolean): void {
    if (!sent) {
      this.received[m.type]++;
      return;
    }
    this.sent[m.type]++;
    if (m.type !== 'App') return;
    if (m.entries.length === 0) this.emptyAppsSent++;
    else this.appEntriesSent += m.entries.length;
  }

  ready(rd: Pick<Ready, 'entries' | 'committedEntries'>): void {
    this.readies++;
    this.committedEntries += rd.committedEntries.length;
    if (rd.entries.length === 0) return;
    this.readiesWithEntries++;
    this.readyEntries += rd.entries.length;
  }

  write(sync: boolean, entries: number): void {
    if (!sync) {
      this.unsyncedWrites++;
      return;
    }
    this.syncedWrites++;
    this.syncedEntries += entries;
  }
}
