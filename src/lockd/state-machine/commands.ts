// The commands a leader proposes. Each becomes the data of one Raft entry (see command-codec.ts).
// Ids, tokens and indexes are JS numbers (Raft indexes stay far below 2^53).

/**
 * Create a lease. Its id is the index of this entry; deadline = now + ttlMs + marginMs + the drift
 * allowance ceil(ttlMs · driftPpm / 10^6) (lease/deadline-margin.ts).
 */
export interface GrantCommand {
  readonly type: 'Grant';
  readonly ttlMs: number;
  /** The leader's cap on one tick's elapsed time, carried so replicas do not depend on config. */
  readonly marginMs: number;
  /** Clock-rate bound (ppm of the TTL) the deadline covers; absent (entries before it existed) = 0. */
  readonly driftPpm?: number;
  readonly requestId?: string;
}

/** End a lease now: release its locks (handing them to waiters) and drop its waits. */
export interface RevokeCommand {
  readonly type: 'Revoke';
  readonly leaseId: number;
  readonly requestId?: string;
}

/**
 * The only way time reaches the state machine. Advances `now` by elapsedMs, renews the live leases in
 * `renewed` (deadline = now + ttl + marginMs + drift allowance, never earlier than before), then
 * expires every lease whose deadline <= now.
 */
export interface TickCommand {
  readonly type: 'Tick';
  readonly elapsedMs: number;
  readonly marginMs: number;
  /** As GrantCommand.driftPpm. */
  readonly driftPpm?: number;
  /** Lease ids whose keepalives reached the leader (at most MAX_TICK_RENEWALS; the leader sends no duplicates). */
  readonly renewed: readonly number[];
}

/**
 * Create-if-absent. Token = index of the granting entry. Held: wait=false answers at once, wait=true queues FIFO.
 * Recipes (issue 16; absent = the plain mutex): `permits` > 1 makes the name a semaphore of that many
 * exclusive holders (0/absent = 1; everyone on a name must agree); `shared` asks for a read lock
 * (needs permits 1); `lockDelayMs` keeps the name ungranted that long after this grant's lease
 * expires or is revoked.
 */
export interface AcquireCommand {
  readonly type: 'Acquire';
  readonly name: string;
  readonly leaseId: number;
  readonly wait: boolean;
  readonly permits?: number;
  readonly shared?: boolean;
  readonly lockDelayMs?: number;
  /** Election: the value the grant carries (Campaign); ''/absent = none. */
  readonly value?: string;
  readonly requestId?: string;
}

/**
 * Election: set the value of the grant holding `token` on `name` (the leader's). Not deduplicated (like
 * etcd's): a late duplicate re-sets its value, and only the leader itself sends one.
 */
export interface ProclaimCommand {
  readonly type: 'Proclaim';
  readonly name: string;
  readonly token: number;
  readonly value: string;
}

/** Change a held or waited-on name's permits; waiters that now fit are granted by this entry (admin). */
export interface SetPermitsCommand {
  readonly type: 'SetPermits';
  readonly name: string;
  readonly permits: number;
  readonly requestId?: string;
}

/**
 * Compare-and-delete on the fencing token. `leaseId` (0/absent = any) picks the holder when one entry
 * granted the name to several leases under one token (a semaphore or shared lock); it must match.
 */
export interface ReleaseCommand {
  readonly type: 'Release';
  readonly name: string;
  readonly token: number;
  readonly leaseId?: number;
  readonly requestId?: string;
}

/**
 * Write to the fenced store; rejected if token < the highest token accepted for key, and, with
 * `lock`, unless token is that lock's live holder's token (the sequencer check).
 */
export interface FenceWriteCommand {
  readonly type: 'FenceWrite';
  readonly key: string;
  readonly value: Uint8Array;
  readonly token: number;
  readonly lock?: string;
  readonly requestId?: string;
}

/** Delete from the fenced store, fenced like a write; the key's highest token stays as a tombstone. */
export interface FenceDeleteCommand {
  readonly type: 'FenceDelete';
  readonly key: string;
  readonly token: number;
  readonly lock?: string;
  readonly requestId?: string;
}

/**
 * A waiting Acquire gave up (client deadline or cancel): leave the queue.
 * With abandonedAtIndex > 0 (the index of the abandoned call's last Acquire entry, or an applied
 * index it is known to precede) this is a cleanup that must not touch what a later call of the lease
 * was given: if an Acquire by the lease for this name after that index was answered 'queued' or
 * 'acquired', nothing changes; else the lease leaves the queue, or, if the grant came meanwhile
 * (nobody was handed it), the lock is released in this same entry. 0/absent: leave the queue only,
 * and report a grant (heldToken) for the caller to use or release.
 */
export interface CancelWaitCommand {
  readonly type: 'CancelWait';
  readonly name: string;
  readonly leaseId: number;
  readonly abandonedAtIndex?: number;
  readonly requestId?: string;
}

export type Command =
  | GrantCommand
  | RevokeCommand
  | TickCommand
  | AcquireCommand
  | ReleaseCommand
  | FenceWriteCommand
  | FenceDeleteCommand
  | CancelWaitCommand
  | SetPermitsCommand
  | ProclaimCommand;

export type CommandType = Command['type'];

export const COMMAND_TYPES: readonly CommandType[] = [
  'Grant',
  'Revoke',
  'Tick',
  'Acquire',
  'Release',
  'FenceWrite',
  'FenceDelete',
  'CancelWait',
  'SetPermits',
  'Proclaim',
];
