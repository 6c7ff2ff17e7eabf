// What the runner tells each workload client process (JSON in FAULTS_CLIENT), and the lines a client
// prints on stdout for the nemesis (it pauses or kills a client while it holds a lock).

export interface ClientConfig {
  /** Process name in the history, e.g. "f3" (fenced) or "p1" (plain control). */
  readonly id: string;
  /**
   * fence: Fence.Read/Write with the token; plain: the runner's unfenced store, trusting the lock;
   * adversary: a third party poking at the fenced locks (adversary-client.ts); recipe: semaphores,
   * read-write locks, lock-delay and elections on the RECIPE names (recipe-client.ts).
   */
  readonly mode: 'fence' | 'plain' | 'adversary' | 'recipe';
  /** Where the client dials the nodes: their client links (proxies, see network.ts). */
  readonly endpoints: readonly string[];
  /** With a TLS run: the CA and this client's certificate (file paths). */
  readonly tls?: { readonly cacert: string; readonly cert: string; readonly key: string };
  /** Lock names this client takes; each guards the key guardKey(name). */
  readonly locks: readonly string[];
  /** host:port of the runner's plain store (mode plain). */
  readonly plainStore?: string;
  readonly ttlMs: number;
  readonly historyPath: string;
  /** process.hrtime.bigint() of the run's origin, as a decimal string. */
  readonly originNs: string;
  readonly seed: number;
  /** Time spent "working" between the read and the write of the guarded value (ms, inclusive range). */
  readonly workMs: readonly [number, number];
  /** Writes per critical section (inclusive range), each appending one element. */
  readonly writesPerHold: readonly [number, number];
  /** Budget of one operation including retries, and of one attempt. */
  readonly opBudgetMs: number;
  readonly attemptMs: number;
  /** Share of Acquires that wait (the rest are try-locks, which are retried when their attempt times out). */
  readonly waitShare: number;
  /** How long a waiting Acquire may wait. */
  readonly acquireWaitMs: number;
  /**
   * Send a lease's Acquire/Release only to the node it was granted through, never retry them once
   * sent, and abandon the lease on any unknown outcome. This kept clear of the cleanup of abandoned
   * waits releasing a grant the same lease obtained by a later call (a lockd bug this suite found,
   * since fixed; see README.md "Bugs found"), so the rest could be checked while it was open.
   */
  readonly sticky: boolean;
  /** Recipe only: this client also changes the semaphore's permits now and then (Lock.SetPermits, an admin call). */
  readonly admin?: boolean;
  /** Adversary only: which of its calls it makes besides Inspect (all by default). */
  readonly adversaryCalls?: readonly AdversaryCall[];
}

/**
 * The recipe clients' names: a semaphore (permits 2 at first, SetPermits 1–3), a
 * read-write lock (shared and exclusive, downgrades), a mutex taken with a lock-delay, an election.
 * The adversary never touches them (its Releases would end grants the recipe checkers do not model).
 */
export const RECIPE = { semaphore: 'sem', rw: 'rw', delay: 'delayed', election: 'leader' } as const;
export const SEMAPHORE_PERMITS = 2;
export const LOCK_DELAY_MS = 1000;

export const ADVERSARY_CALLS = ['release', 'snipe', 'cancelwait', 'flood'] as const;
export type AdversaryCall = (typeof ADVERSARY_CALLS)[number];

export function guardKey(lock: string): string {
  return `guard/${lock}`;
}

/** stdout lines: "HOLD <lock> <token>" once the value is read and the write is pending; "FREE" after. */
export const HOLD = 'HOLD';
export const FREE = 'FREE';
