// The commands a leader proposes. Each becomes the data of one Raft entry (see command-codec.ts).
// Ids, tokens and indexes are JS numbers (Raft indexes stay far below 2^53).

import type { AclVerb } from './acl-table.js';

/**
 * Who proposes a client's command, as the leader established it (security/access-control.ts).
 * Carried in the entry so every replica checks ownership and rules alike (authorize.ts). All
 * absent: the anonymous principal, no --admin flag, rules not enforced (today's behaviour).
 */
export interface Authority {
  /** The caller's principal (its client certificate's CN); absent = 'anonymous'. */
  readonly principal?: string;
  /** The leader's --admin flags name the principal (admin rules in the state count too). */
  readonly admin?: boolean;
  /** The leader enforces access rules (--acl): the command needs a rule granting its verb. */
  readonly acl?: boolean;
  /**
   * Per-principal quotas apply (quotas.ts): the leader marks every client command once every member
   * applies quotas alike (node/cluster-version.ts FEATURES.quotas). Absent: the entry is applied as
   * before quotas existed (one shared request-id window, no per-principal counts checked).
   */
  readonly quota?: boolean;
}

/**
 * Create a lease. Its id is the index of this entry; deadline = now + ttlMs + marginMs + the drift
 * allowance ceil(ttlMs · driftPpm / 10^6) (deadline-margin.ts).
 */
export interface GrantCommand extends Authority {
  readonly type: 'Grant';
  readonly ttlMs: number;
  /** The leader's cap on one tick's elapsed time, carried so replicas do not depend on config. */
  readonly marginMs: number;
  /** Clock-rate bound (ppm of the TTL) the deadline covers; absent (entries before it existed) = 0. */
  readonly driftPpm?: number;
  readonly requestId?: string;
}

/** End a lease now: release its locks (handing them to waiters) and drop its waits. */
export interface RevokeCommand extends Authority {
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
  /**
   * The cluster version the leader runs at (MAJOR.MINOR.PATCH: the lowest lockd version among the
   * members, node/cluster-version.ts), stated when it changes. A statement in the log for every
   * replica and `lockctl log dump`; it changes no state. Added in lockd 0.2.0: a 0.1.0 replica
   * refuses the field, so a leader states it only once every member runs 0.2.0 or newer.
   */
  readonly clusterVersion?: string;
  /**
   * At most this much expiry work (a lease ended costs 1 + its locks and waits) in this Tick: the due
   * leases beyond it stay pending, dead for every check, and later Ticks end them (MAX_TICK_EXPIRY_WORK).
   * Absent: every due lease ends in this Tick, as lockd 0.1.0 applies every Tick — so an entry means the
   * same on every build that applies it, on replay too. Added in lockd 0.2.0 (a 0.1.0 replica refuses
   * the field): a leader sets it only once every member runs 0.2.0 or newer.
   */
  readonly expiryWork?: number;
}

/**
 * Create-if-absent. Token: the grant's own (token.ts). Held: wait=false answers at once, wait=true queues FIFO.
 * Recipes (absent = the plain mutex): `permits` > 1 makes the name a semaphore of that many
 * exclusive holders (0/absent = 1; everyone on a name must agree); `shared` asks for a read lock
 * (needs permits 1); `lockDelayMs` keeps the name ungranted that long after this grant's lease
 * expires or is revoked.
 */
export interface AcquireCommand extends Authority {
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
  /** Election.Campaign (true) or Lock.Acquire (absent): a name is one or the other (LockRecord.election). */
  readonly election?: boolean;
}

/**
 * Election: set the value of the grant holding `token` on `name` (the leader's). Not deduplicated (like
 * etcd's): a late duplicate re-sets its value, and only the leader itself sends one.
 */
export interface ProclaimCommand extends Authority {
  readonly type: 'Proclaim';
  readonly name: string;
  readonly token: number;
  readonly value: string;
  /** The leadership key's lease: the grant must be this lease's (absent/0: entries written before it was carried). */
  readonly leaseId?: number;
}

/** Change a held or waited-on name's permits; waiters that now fit are granted by this entry (admin). */
export interface SetPermitsCommand extends Authority {
  readonly type: 'SetPermits';
  readonly name: string;
  readonly permits: number;
  readonly requestId?: string;
}

/**
 * Compare-and-delete on the fencing token. `leaseId` (0/absent = any) picks the holder when one entry
 * granted the name to several leases under one token (a semaphore or shared lock); it must match.
 */
export interface ReleaseCommand extends Authority {
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
export interface FenceWriteCommand extends Authority {
  readonly type: 'FenceWrite';
  readonly key: string;
  readonly value: Uint8Array;
  readonly token: number;
  readonly lock?: string;
  readonly requestId?: string;
}

/** Delete from the fenced store, fenced like a write; the key's highest token stays as a tombstone. */
export interface FenceDeleteCommand extends Authority {
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
export interface CancelWaitCommand extends Authority {
  readonly type: 'CancelWait';
  readonly name: string;
  readonly leaseId: number;
  readonly abandonedAtIndex?: number;
  readonly requestId?: string;
  /**
   * With abandonedAtIndex: the request id of that abandoned Acquire, which only its caller (and the
   * node serving it) knows; it must match too, so nobody else can take back a grant by reading an index.
   */
  readonly acquireRequestId?: string;
}

/**
 * Add (AclGrant) or remove (AclRevoke) the rule (subject, prefix, verb); admins only. `admin` rules
 * have the empty prefix (admin is cluster-wide). Granting a rule that exists, or revoking one that
 * does not, changes nothing and says so (created / removed false).
 */
export interface AclGrantCommand extends Authority {
  readonly type: 'AclGrant';
  readonly subject: string;
  readonly prefix: string;
  readonly verb: AclVerb;
  readonly requestId?: string;
}

export interface AclRevokeCommand extends Authority {
  readonly type: 'AclRevoke';
  readonly subject: string;
  readonly prefix: string;
  readonly verb: AclVerb;
  readonly requestId?: string;
}

/**
 * Set a principal's quotas (admins only): each field present replaces that quota, an absent one is
 * unchanged; `reset` first drops every quota set for the principal (back to the defaults). Quotas
 * lowered below what the principal uses take nothing away: only new leases, locks and ids are refused.
 */
export interface QuotaSetCommand extends Authority {
  readonly type: 'QuotaSet';
  /** The principal, or SHARED_PRINCIPAL ('*'): every caller when rules are not enforced. */
  readonly subject: string;
  readonly leases?: number;
  readonly locks?: number;
  readonly dedupIds?: number;
  readonly electionBytes?: number;
  readonly fenceKeys?: number;
  readonly reset?: boolean;
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
  | ProclaimCommand
  | AclGrantCommand
  | AclRevokeCommand
  | QuotaSetCommand;

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
  'AclGrant',
  'AclRevoke',
  'QuotaSet',
];
