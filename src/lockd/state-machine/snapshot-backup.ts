// What a backup and a restore need of a snapshot's bytes (pure): a summary of what the state holds,
// checked as a restore would check it, and the same state moved to a later log index — a restored
// cluster's log starts past the backup's index (docs/design.md §11), and its state must say so.

import { checkInvariants } from './invariant-sweep.js';
import { check } from './invariant-error.js';
import { decodeState, encodeState } from './snapshot-codec.js';
import { MAX_TOKEN_INDEX } from './token.js';

export interface StateSummary {
  /** The log index the state reflects (its applied index). */
  readonly appliedIndex: number;
  /** The replicated logical clock (ms). */
  readonly logicalNowMs: number;
  readonly leases: number;
  /** Locks held or under a lock-delay. */
  readonly locks: number;
  /** Grants held (a semaphore or shared readers count each). */
  readonly holders: number;
  readonly waiters: number;
  readonly fencedKeys: number;
  readonly aclRules: number;
  readonly requestIds: number;
  /** The highest fencing token any grant or fenced key in the state carries (0: none). */
  readonly highestToken: number;
}

/** Decode, run the full invariant sweep, count. Throws SnapshotDecodeError / InvariantError. */
export function summarizeState(bytes: Uint8Array): StateSummary {
  const s = decodeState(bytes);
  checkInvariants(s);
  let holders = 0;
  let waiters = 0;
  let highestToken = 0;
  for (const l of s.locks.values()) {
    holders += l.holders.length;
    waiters += l.waiters.length;
    for (const h of l.holders) highestToken = Math.max(highestToken, h.token);
  }
  for (const [, e] of s.fence.sorted()) highestToken = Math.max(highestToken, e.token);
  for (const [, t] of s.fence.tombstoneEntries()) highestToken = Math.max(highestToken, t);
  return {
    appliedIndex: s.appliedIndex,
    logicalNowMs: s.now,
    leases: s.leases.size,
    locks: s.locks.size,
    holders,
    waiters,
    fencedKeys: s.fence.size,
    aclRules: s.acl.size,
    requestIds: s.dedup.size,
    highestToken,
  };
}

/**
 * The same state as of log index `index` (≥ its own applied index): nothing in it changes but the
 * index it says it reflects. Leases keep their deadlines and the logical clock its `now`, so no
 * lease gains time; every token, lease id and index in the state stays below `index`, so every
 * grant after it gets a greater token (token.ts). Throws InvariantError.
 */
export function rebaseState(bytes: Uint8Array, index: number): Uint8Array {
  const s = decodeState(bytes);
  check(
    Number.isSafeInteger(index) && index >= s.appliedIndex && index < MAX_TOKEN_INDEX,
    'rebase-forward',
    () => `a state at ${s.appliedIndex} cannot be moved to index ${index} (it only moves forward, below ${MAX_TOKEN_INDEX})`,
  );
  s.appliedIndex = index;
  checkInvariants(s);
  return encodeState(s);
}
