// Original file: proto/raft.proto

/**
 * A message's type (src/raft/types.ts MessageType).
 */
export const MessageType = {
  /**
   * Never sent; a receiver rejects it.
   */
  MESSAGE_TYPE_UNSPECIFIED: 'MESSAGE_TYPE_UNSPECIFIED',
  /**
   * AppendEntries (also carries the commit index).
   */
  MESSAGE_TYPE_APP: 'MESSAGE_TYPE_APP',
  /**
   * Answer to App.
   */
  MESSAGE_TYPE_APP_RESP: 'MESSAGE_TYPE_APP_RESP',
  /**
   * RequestVote.
   */
  MESSAGE_TYPE_VOTE: 'MESSAGE_TYPE_VOTE',
  /**
   * Answer to Vote.
   */
  MESSAGE_TYPE_VOTE_RESP: 'MESSAGE_TYPE_VOTE_RESP',
  /**
   * PreVote: would you vote for me? (no term change)
   */
  MESSAGE_TYPE_PRE_VOTE: 'MESSAGE_TYPE_PRE_VOTE',
  /**
   * Answer to PreVote.
   */
  MESSAGE_TYPE_PRE_VOTE_RESP: 'MESSAGE_TYPE_PRE_VOTE_RESP',
  /**
   * Leader heartbeat (may carry a ReadIndex context).
   */
  MESSAGE_TYPE_HEARTBEAT: 'MESSAGE_TYPE_HEARTBEAT',
  /**
   * Answer to Heartbeat.
   */
  MESSAGE_TYPE_HEARTBEAT_RESP: 'MESSAGE_TYPE_HEARTBEAT_RESP',
  /**
   * InstallSnapshot.
   */
  MESSAGE_TYPE_SNAP: 'MESSAGE_TYPE_SNAP',
  /**
   * Leader transfer: campaign now, skipping PreVote.
   */
  MESSAGE_TYPE_TIMEOUT_NOW: 'MESSAGE_TYPE_TIMEOUT_NOW',
} as const;

/**
 * A message's type (src/raft/types.ts MessageType).
 */
export type MessageType =
  /**
   * Never sent; a receiver rejects it.
   */
  | 'MESSAGE_TYPE_UNSPECIFIED'
  | 0
  /**
   * AppendEntries (also carries the commit index).
   */
  | 'MESSAGE_TYPE_APP'
  | 1
  /**
   * Answer to App.
   */
  | 'MESSAGE_TYPE_APP_RESP'
  | 2
  /**
   * RequestVote.
   */
  | 'MESSAGE_TYPE_VOTE'
  | 3
  /**
   * Answer to Vote.
   */
  | 'MESSAGE_TYPE_VOTE_RESP'
  | 4
  /**
   * PreVote: would you vote for me? (no term change)
   */
  | 'MESSAGE_TYPE_PRE_VOTE'
  | 5
  /**
   * Answer to PreVote.
   */
  | 'MESSAGE_TYPE_PRE_VOTE_RESP'
  | 6
  /**
   * Leader heartbeat (may carry a ReadIndex context).
   */
  | 'MESSAGE_TYPE_HEARTBEAT'
  | 7
  /**
   * Answer to Heartbeat.
   */
  | 'MESSAGE_TYPE_HEARTBEAT_RESP'
  | 8
  /**
   * InstallSnapshot.
   */
  | 'MESSAGE_TYPE_SNAP'
  | 9
  /**
   * Leader transfer: campaign now, skipping PreVote.
   */
  | 'MESSAGE_TYPE_TIMEOUT_NOW'
  | 10

/**
 * A message's type (src/raft/types.ts MessageType).
 */
export type MessageType__Output = typeof MessageType[keyof typeof MessageType]
