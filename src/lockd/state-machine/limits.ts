// Bounds every replica enforces identically at apply time. They are constants, not configuration:
// a limit that differed between replicas would make them disagree on the same log entry.

/** Lock names and fence keys: non-empty, at most this many UTF-8 bytes, no control characters. */
export const MAX_NAME_BYTES = 512;
/** Lease TTL range (milliseconds). */
export const MIN_TTL_MS = 100;
export const MAX_TTL_MS = 3_600_000;
/** Safety margin added to every deadline (docs/design.md §4: the leader's cap on one tick's elapsed time). */
export const MAX_MARGIN_MS = 60_000;
/** Largest logical-time step one Tick may carry (the leader caps it far lower, ~2 tick intervals). */
export const MAX_TICK_ELAPSED_MS = 60_000;
/** Largest clock-rate bound a Grant or Tick may carry, in ppm of the TTL (the leader uses 1,000: deadline-margin.ts). */
export const MAX_DRIFT_PPM = 100_000;
/**
 * Renewals one Tick may carry. The leader fills a Tick up to this many distinct live leases and
 * carries the rest in the next one, so a Tick stays ~150 KB and applies in milliseconds, and all
 * MAX_LEASES leases are still renewed within five Ticks (~0.5 s). The state machine refuses more,
 * and the leader asserts it never builds more (node/lease-clock.ts).
 */
export const MAX_TICK_RENEWALS = 20_000;

/**
 * Cleanup work one Tick may do ending leases past their deadline: a lease costs 1 plus the locks it
 * holds and waits for (each a release or a queue removal, maybe a hand-off). A Tick ends the due
 * leases in (deadline, id) order until the next would pass this budget (always at least one, so a
 * lease with MAX_LOCKS_PER_LEASE locks still ends); the rest stay pending — dead for their own use,
 * their grants standing (lease-live.ts) — and the next Ticks end them. 100,000 leases due at once take ~25 Ticks, back to back (the lease clock prompts the next while a backlog remains).
 */
export const MAX_TICK_EXPIRY_WORK = 4096;

// Quotas. A cluster-wide bound is one client's lever against everyone, so each
// cluster-wide bound that a client's calls fill has a per-lease bound under it: one lease (one
// holder) cannot spend it alone, and (below) per-principal quotas for leases, locks, request ids,
// election values and fenced keys: one principal with many leases cannot either. Every refusal is RESOURCE_EXHAUSTED with a message naming its limit.

/** Fenced store: value size (INVALID_ARGUMENT above) and live keys in the whole cluster. */
export const MAX_FENCE_VALUE_BYTES = 65_536;
export const MAX_FENCE_KEYS = 1024;
/**
 * Live keys created per lease: a write that creates a key is charged to the lease whose live grant
 * holds its token; Fence.Delete gives the charge back.
 */
export const MAX_FENCE_KEYS_PER_LEASE = 64;
/** Live keys created by tokens of no live grant (stale or made up), all such writers together. */
export const MAX_FENCE_KEYS_UNOWNED = 64;
/**
 * Tombstones of deleted keys (their highest token, so a stale writer cannot bring a key back). The
 * oldest is forgotten first, raising the store's floor: a write without `lock` that creates a key
 * must then carry a token >= the floor.
 */
export const MAX_FENCE_TOMBSTONES = 4096;
/** Waiters queued on one lock name; more is RESOURCE_EXHAUSTED. */
export const MAX_WAITERS_PER_LOCK = 1024;
/** Locks one lease holds and waits for, together (each queue place may become a hold). */
export const MAX_LOCKS_PER_LEASE = 1024;
/**
 * Live leases and held locks in the whole cluster. Under them, the per-principal quotas (below):
 * with --acl one principal holds at most its `leases` quota. Without --acl every caller is one
 * principal, whose default is this cap: one client can still take all MAX_LEASES.
 */
export const MAX_LEASES = 100_000;
export const MAX_LOCKS = 100_000;
/** Client request ids (dedup keys). */
export const MAX_REQUEST_ID_BYTES = 128;
/**
 * Remembered request ids; the oldest is forgotten first (FIFO). Before quotas (entries without the
 * `quota` mark) one window shared by every client and every mutating command, so a client sending
 * many calls shortened everyone's window for a late attempt to be recognised. With quotas each
 * principal has its own window (its `dedupIds` quota: its oldest id goes first), and
 * DEDUP_CAPACITY_QUOTAS bounds them all together (the global oldest goes first past it).
 */
export const DEDUP_CAPACITY = 10_000;
export const DEDUP_CAPACITY_QUOTAS = 100_000;

// Per-principal quotas (quotas.ts), in the replicated state: with --acl each principal is charged
// for its own; without --acl every caller is one shared principal (SHARED_PRINCIPAL). An admin
// changes a principal's with a QuotaSet entry (`lockctl acl quota`). The cluster-wide caps above
// stay as the memory bound. Exceeded: RESOURCE_EXHAUSTED naming the quota, its value and the principal.

/** A named principal's defaults (--acl): a tenth of the cluster each, so one cannot fill the cluster alone. */
export const DEFAULT_QUOTA_LEASES = 10_000;
/** Locks held plus waited for, over all of the principal's leases. */
export const DEFAULT_QUOTA_LOCKS = 10_000;
/** Request ids remembered for the principal (its dedup window). */
export const DEFAULT_QUOTA_DEDUP_IDS = 10_000;
/** UTF-8 bytes of election values (Campaign, Proclaim) its leases' grants and waits carry together. */
export const DEFAULT_QUOTA_ELECTION_BYTES = 1_048_576;
/** Live fenced keys it created (a write that creates a key is charged to its caller; Fence.Delete gives it back). */
export const DEFAULT_QUOTA_FENCE_KEYS = 256;
/**
 * The shared principal's defaults (no --acl): the cluster-wide caps, so a cluster without --acl
 * behaves as before unless an admin lowers them.
 */
export const SHARED_QUOTA_LEASES = MAX_LEASES;
export const SHARED_QUOTA_LOCKS = MAX_LEASES * MAX_LOCKS_PER_LEASE;
export const SHARED_QUOTA_DEDUP_IDS = DEDUP_CAPACITY;
/** Every lock with the largest value (MAX_ELECTION_VALUE_BYTES, 1024, is defined below: a const is not hoisted). */
export const SHARED_QUOTA_ELECTION_BYTES = SHARED_QUOTA_LOCKS * 1024;
/** The whole store (MAX_FENCE_KEYS, 1024, defined above). */
export const SHARED_QUOTA_FENCE_KEYS = MAX_FENCE_KEYS;
/** Largest value a quota may be set to (an integer; 0 refuses everything of that kind). */
export const MAX_QUOTA_VALUE = 1_000_000_000;
/** Principals with quotas set (each a row in the state and the snapshot). */
export const MAX_QUOTA_PRINCIPALS = 4096;
/** Semaphore permits of one name (and holders of a shared lock): more is INVALID_ARGUMENT / waits. */
export const MAX_PERMITS = 1024;
/** Longest lock-delay an Acquire may ask for (ms of logical time; Chubby's and Consul's cap is a minute). */
export const MAX_LOCK_DELAY_MS = 60_000;
/** An election value (Campaign, Proclaim), in UTF-8 bytes: an address or an id, not a payload. */
export const MAX_ELECTION_VALUE_BYTES = 1024;
/** Principals (a client certificate's CN; X.509 allows 64 characters): at most this many UTF-8 bytes. */
export const MAX_PRINCIPAL_BYTES = 256;
/**
 * Access rules in the whole cluster (Auth.List answers them all in one message: 4096 of the largest
 * stay under the 4 MiB a client accepts), and per principal (each check scans one principal's prefixes).
 */
export const MAX_ACL_RULES = 4096;
export const MAX_ACL_RULES_PER_PRINCIPAL = 256;
