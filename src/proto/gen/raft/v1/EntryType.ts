// Original file: proto/raft.proto

/**
 * What a log entry carries (src/raft/types.ts EntryType).
 */
export const EntryType = {
  /**
   * The application's command, opaque to Raft (every entry written before membership changes).
   */
  ENTRY_TYPE_NORMAL: 'ENTRY_TYPE_NORMAL',
  /**
   * A membership change, written by the Raft core: `data` is UTF-8 JSON
   * {"op": "addVoter"|"addLearner"|"promote"|"remove", "node": ID, "voters": [ID], "learners": [ID],
   * "removed": [ID]}, the change and the whole configuration after it (src/raft/membership.ts).
   * The configuration takes effect on a node when the entry is appended to its log, and rolls back
   * if the entry is truncated. At most 32 voters and learners, 1024 removed ids; ids as --id.
   */
  ENTRY_TYPE_CONFIG: 'ENTRY_TYPE_CONFIG',
} as const;

/**
 * What a log entry carries (src/raft/types.ts EntryType).
 */
export type EntryType =
  /**
   * The application's command, opaque to Raft (every entry written before membership changes).
   */
  | 'ENTRY_TYPE_NORMAL'
  | 0
  /**
   * A membership change, written by the Raft core: `data` is UTF-8 JSON
   * {"op": "addVoter"|"addLearner"|"promote"|"remove", "node": ID, "voters": [ID], "learners": [ID],
   * "removed": [ID]}, the change and the whole configuration after it (src/raft/membership.ts).
   * The configuration takes effect on a node when the entry is appended to its log, and rolls back
   * if the entry is truncated. At most 32 voters and learners, 1024 removed ids; ids as --id.
   */
  | 'ENTRY_TYPE_CONFIG'
  | 1

/**
 * What a log entry carries (src/raft/types.ts EntryType).
 */
export type EntryType__Output = typeof EntryType[keyof typeof EntryType]
