// What LockClient calls return: plain objects, independent of the generated gRPC types.

/** A lock's state (Lock.Inspect, read linearizably). */
export interface LockInfo {
  readonly name: string;
  readonly held: boolean;
  /** The current grant's token (0 if free). */
  readonly fencingToken: number;
  /** The holding lease (0 if free). */
  readonly holderLeaseId: number;
  /** Leases queued for it, first in line first. */
  readonly waitingLeaseIds: readonly number[];
  /** The fields above describe a mutex (for a semaphore or read-write lock: its oldest grant); these, the whole lock. */
  readonly permits: number;
  readonly holders: readonly LockHolderInfo[];
  /** Whether each waiter (waitingLeaseIds order) asks shared. */
  readonly waitingShared: readonly boolean[];
  /** A running lock-delay: when it ends on the cluster's logical clock (0 = none), and how long from now. */
  readonly lockDelayUntilMs: number;
  readonly lockDelayRemainingMs: number;
}

/** One grant of a lock. */
export interface LockHolderInfo {
  readonly leaseId: number;
  readonly fencingToken: number;
  readonly shared: boolean;
  readonly lockDelayMs: number;
}

/** The recipe of an Acquire; all absent = a plain mutex. */
export interface LockRecipe {
  /** Semaphore: up to this many leases hold the name at once (0/1 = mutex). Everyone on a name must agree. */
  readonly permits?: number;
  /** Read-write lock: a shared (read) grant; exclusive holders are alone. */
  readonly shared?: boolean;
  /** Keep the name ungranted this long (ms, logical clock) after this grant's lease expires or is revoked. */
  readonly lockDelayMs?: number;
}

/** A lease's state (Lease.TimeToLive, read linearizably). */
export interface LeaseTtl {
  readonly leaseId: number;
  readonly grantedTtlMs: number;
  /** Milliseconds left on the cluster's logical clock. */
  readonly remainingMs: number;
  /** Names of the locks it holds. */
  readonly locks: readonly string[];
  /** The principal that granted it. */
  readonly owner: string;
}

/** One live lease (Lease.List: the caller's own, or every lease for an admin). */
export interface LeaseSummary {
  readonly leaseId: number;
  readonly grantedTtlMs: number;
  readonly remainingMs: number;
  /** The principal that granted it. */
  readonly owner: string;
}

/** An access rule (Auth service): principal, name prefix ('' = every name), verb. */
export interface AclRule {
  readonly principal: string;
  readonly prefix: string;
  readonly verb: 'lock' | 'fence' | 'read' | 'admin';
}

/** One of a principal's quotas (Auth.GetQuota / SetQuota): its limit, what the principal uses, and whether it is the default. */
export interface QuotaInfo {
  readonly name: string;
  readonly limit: number;
  readonly used: number;
  readonly isDefault: boolean;
}

/** A fenced store entry (Fence.Read). */
export interface FenceValue {
  readonly key: string;
  /** The stored bytes (empty if never written). */
  readonly value: Buffer;
  /** The token that wrote it (0 if never written). */
  readonly fencingToken: number;
}

/** One node's view of the cluster (Cluster.Status). */
export interface NodeStatus {
  readonly nodeId: string;
  /** follower | precandidate | candidate | leader */
  readonly role: string;
  readonly term: number;
  readonly leaderId: string;
  /** The leader's client address ('' if unknown). */
  readonly leaderAddress: string;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  /** build: the member's build line as it stated it to this node ('' until heard, '(none)' before lockd 0.2.0). */
  readonly members: ReadonlyArray<{ readonly id: string; readonly address: string; readonly matchIndex: number; readonly build: string }>;
  /** The node's lockd version ('' from a lockd before 0.2.0) and build line (the formats it reads and writes). */
  readonly version: string;
  readonly build: string;
  /** The lowest version among the members as this node knows them; complete: every member was heard from. */
  readonly clusterVersion: string;
  readonly clusterVersionComplete: boolean;
}

/** Cluster.Status asked of one endpoint: its answer, or why there was none. */
export interface EndpointStatus {
  readonly address: string;
  readonly status?: NodeStatus;
  readonly error?: Error;
}

/** The outcome of Cluster.TransferLeader. */
export interface LeaderTransfer {
  /** Who leads now (usually the target). */
  readonly leaderId: string;
  /** Its client address ('' if the answering node does not know it yet). */
  readonly leaderAddress: string;
  readonly term: number;
  /** Who led when the call arrived. */
  readonly previousLeaderId: string;
  /** False when the target already led (nothing changed). */
  readonly transferred: boolean;
}
