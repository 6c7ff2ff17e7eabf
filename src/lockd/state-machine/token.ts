// Fencing tokens: one per grant, never shared. token = granting entry's index × 2^TOKEN_ORDINAL_BITS
// + ordinal, where the ordinal counts the grants of that lock made by that entry (0 for the first).
// One entry can grant one lock several times (a Tick expiring semaphore holders, SetPermits growing,
// shared readers joining) and each grant must name itself: a stale holder's token must never be
// mistaken for a live holder's. Tokens still grow with the log, so they increase per lock and per
// fenced key. Tokens written before this scheme (token = index) are below every new token of a later
// entry, so they stay ordered too. Pure.

import { check } from './invariant-error.js';
import { MAX_PERMITS } from './limits.js';

/**
 * Bits of the ordinal. One entry grants one lock at most MAX_PERMITS times: every grant it makes
 * stays a holder until the entry ends (grants go only to leases that this entry does not end), and
 * a lock never has more than MAX_PERMITS holders (exclusive ≤ permits ≤ MAX_PERMITS, shared ≤ MAX_PERMITS).
 */
export const TOKEN_ORDINAL_BITS = 10;
const SCALE = 2 ** TOKEN_ORDINAL_BITS;
/** The highest index whose tokens stay exact JS numbers (below 2^53): 2^43 - 1. */
export const MAX_TOKEN_INDEX = 2 ** (53 - TOKEN_ORDINAL_BITS) - 1;

check(
  MAX_PERMITS <= SCALE,
  'token-ordinal-bound',
  () => `MAX_PERMITS ${MAX_PERMITS} grants of one lock by one entry do not fit ${TOKEN_ORDINAL_BITS} ordinal bits`,
);

/** The token of the `ordinal`-th grant (from 0) of one lock made by the entry at `index`. */
export function grantToken(index: number, ordinal: number): number {
  check(
    Number.isSafeInteger(index) && index > 0 && index <= MAX_TOKEN_INDEX,
    'token-index-range',
    () => `entry ${index} cannot mint a fencing token (1..${MAX_TOKEN_INDEX})`,
  );
  check(
    Number.isInteger(ordinal) && ordinal >= 0 && ordinal < SCALE,
    'token-ordinal-bound',
    () => `grant #${ordinal} of one lock by entry ${index} (at most ${SCALE})`,
  );
  return index * SCALE + ordinal;
}

/** The index of the entry that granted `token` (floor(token / 2^TOKEN_ORDINAL_BITS)). */
export function tokenIndex(token: number): number {
  return Math.floor(token / SCALE);
}

/** The smallest token entry `index` can mint: every token issued before it is below this. */
export function firstTokenOf(index: number): number {
  return index * SCALE;
}
