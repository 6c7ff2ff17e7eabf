// Bounds every replica enforces identically at apply time. They are constants, not configuration:
// a limit that differed between replicas would make them disagree on the same log entry.

/** Lock names and fence keys: non-empty, at most this many UTF-8 bytes, no control characters. */
export const MAX_NAME_BYTES = 512;
/** Lease TTL range (milliseconds). */
export const MIN_TTL_MS = 100;
export const MAX_TTL_MS = 3_600_000;
/** Safety margin added to every deadline (DESIGN §4: the leader's cap on one tick's elapsed time). */
export const MAX_MARGIN_MS = 60_000;
/** Largest logical-time step one Tick may carry (the leader caps it far lower, ~2 tick intervals). */
export const MAX_TICK_ELAPSED_MS = 60_000;
/** Largest clock-rate bound a Grant or Tick may carry, in ppm of the TTL (the leader uses 1,000: lease/deadline-margin.ts). */
export const MAX_DRIFT_PPM = 100_000;
/**
 * Renewals one Tick may carry. The leader fills a Tick up to this many distinct live leases and
 * carries the rest in the next one, so a Tick stays ~150 KB and applies in milliseconds, and all
 * MAX_LEASES leases are still renewed within five Ticks (~0.5 s). The state machine refuses more,
 * and the leader asserts it never builds more (lease/lease-clock.ts).
 */
export const MAX_TICK_RENEWALS = 20_000;
/** Fenced store: value size and number of keys. */
export const MAX_FENCE_VALUE_BYTES = 65_536;
export const MAX_FENCE_KEYS = 1024;
/** Waiters queued on one lock name; more is RESOURCE_EXHAUSTED. */
export const MAX_WAITERS_PER_LOCK = 1024;
/** Live leases and held locks in the whole cluster. */
export const MAX_LEASES = 100_000;
export const MAX_LOCKS = 100_000;
/** Client request ids (dedup keys). */
export const MAX_REQUEST_ID_BYTES = 128;
/** Remembered request ids; the oldest is forgotten first (FIFO). */
export const DEDUP_CAPACITY = 10_000;
