// A scripted history touching every command and rule, for snapshot and replica-comparison tests.

import type { Command } from '../../../src/lockd/state-machine/index.js';
import { grantToken } from '../../../src/lockd/state-machine/index.js';

const bytes = (s: string) => new TextEncoder().encode(s);
/** The token of the `ordinal`-th grant of one lock by entry `index`. */
const t = (index: number, ordinal = 0) => grantToken(index, ordinal);

/** Lease ids are entry indexes, so the script refers to them by the index of their Grant (noted inline). */
export function scriptedHistory(): (Command | 'noop')[] {
  return [
    'noop', // 1
    { type: 'Grant', ttlMs: 350, marginMs: 100, requestId: 'g-a' }, // 2 = lease A
    { type: 'Grant', ttlMs: 2000, marginMs: 100 }, // 3 = lease B
    { type: 'Grant', ttlMs: 2000, marginMs: 100, requestId: 'g-c' }, // 4 = lease C
    { type: 'Grant', ttlMs: 250, marginMs: 100 }, // 5 = lease D (dies while waiting)
    { type: 'Acquire', name: 'zeta', leaseId: 2, wait: false }, // 6: A holds zeta
    { type: 'Acquire', name: 'alpha', leaseId: 2, wait: false, requestId: 'acq-1' }, // 7: A holds alpha
    { type: 'Acquire', name: 'alpha', leaseId: 3, wait: true, requestId: 'w-b' }, // 8: B waits alpha
    { type: 'Acquire', name: 'alpha', leaseId: 5, wait: true }, // 9: D waits alpha
    { type: 'Acquire', name: 'alpha', leaseId: 4, wait: true, requestId: 'w-c' }, // 10: C waits alpha
    { type: 'FenceWrite', key: 'out', value: bytes('by A'), token: t(7) }, // 11
    { type: 'Acquire', name: 'alpha', leaseId: 4, wait: false }, // 12: try by C (already waiting)
    { type: 'Grant', ttlMs: 350, marginMs: 100, requestId: 'g-a' }, // 13: duplicate of 2
    { type: 'Tick', elapsedMs: 200, marginMs: 100, renewed: [3, 4] }, // 14
    { type: 'Tick', elapsedMs: 200, marginMs: 100, renewed: [3, 4, 99] }, // 15: D expires (deadline 350)
    'noop', // 16
    { type: 'Tick', elapsedMs: 100, marginMs: 100, renewed: [3, 4] }, // 17: A expires (deadline 450) -> B gets alpha
    { type: 'FenceWrite', key: 'out', value: bytes('late A'), token: t(7) }, // 18: accepted (equal)
    { type: 'FenceWrite', key: 'out', value: bytes('by B'), token: t(17) }, // 19
    { type: 'FenceWrite', key: 'out', value: bytes('late A again'), token: t(7) }, // 20: stale
    { type: 'Acquire', name: 'alpha', leaseId: 3, wait: true, requestId: 'w-b' }, // 21: retry -> acquired(t(17))
    { type: 'Release', name: 'alpha', token: t(7) }, // 22: stale
    { type: 'Release', name: 'alpha', token: t(17) }, // 23: C gets alpha
    { type: 'CancelWait', name: 'alpha', leaseId: 4 }, // 24: too late: heldToken t(23)
    { type: 'Grant', ttlMs: 1000, marginMs: 100 }, // 25 = lease E
    { type: 'Acquire', name: 'alpha', leaseId: 25, wait: true }, // 26: E waits
    { type: 'Acquire', name: 'beta', leaseId: 25, wait: false }, // 27: E holds beta
    { type: 'Acquire', name: 'beta', leaseId: 3, wait: true }, // 28: B waits beta
    { type: 'Revoke', leaseId: 25 }, // 29: E revoked -> B gets beta
    { type: 'Acquire', name: 'bad\nname', leaseId: 3, wait: false }, // 30: invalid
    { type: 'Tick', elapsedMs: 500, marginMs: 100, renewed: [4] }, // 31
    { type: 'Tick', elapsedMs: 2500, marginMs: 100, renewed: [] }, // 32: everything expires
    { type: 'Acquire', name: 'alpha', leaseId: 4, wait: false, requestId: 'late' }, // 33: NOT_FOUND
    // Recipes: several holders of one name, a downgrade, a lock-delay.
    { type: 'Grant', ttlMs: 5000, marginMs: 100 }, // 34 = lease F
    { type: 'Grant', ttlMs: 5000, marginMs: 100 }, // 35 = lease G
    { type: 'Grant', ttlMs: 5000, marginMs: 100 }, // 36 = lease H
    { type: 'Acquire', name: 'sem', leaseId: 34, wait: false, permits: 2 }, // 37: F holds sem
    { type: 'Acquire', name: 'sem', leaseId: 35, wait: false, permits: 2 }, // 38: G holds sem beside F
    { type: 'Acquire', name: 'sem', leaseId: 36, wait: true, permits: 2 }, // 39: H waits
    { type: 'SetPermits', name: 'sem', permits: 3, requestId: 'p-3' }, // 40: H granted (token t(40))
    { type: 'Release', name: 'sem', token: t(37), leaseId: 34 }, // 41: F lets go
    { type: 'Acquire', name: 'rw', leaseId: 34, wait: false }, // 42: F writes rw
    { type: 'Acquire', name: 'rw', leaseId: 35, wait: true, shared: true }, // 43: G waits to read
    { type: 'Acquire', name: 'rw', leaseId: 36, wait: true, shared: true }, // 44: H waits to read
    { type: 'Acquire', name: 'rw', leaseId: 34, wait: false, shared: true }, // 45: F downgrades: G and H read (tokens t(45, 0), t(45, 1))
    { type: 'Release', name: 'rw', token: t(45, 0), leaseId: 35 }, // 46: G stops reading
    { type: 'Acquire', name: 'ld', leaseId: 34, wait: false, lockDelayMs: 1000 }, // 47: F holds ld
    { type: 'Acquire', name: 'ld', leaseId: 35, wait: true }, // 48: G waits ld
    { type: 'Revoke', leaseId: 34 }, // 49: F revoked: ld in its lock-delay with G queued
    { type: 'CancelWait', name: 'ld', leaseId: 35 }, // 50: G gives up: ld kept by its delay alone
    { type: 'Tick', elapsedMs: 1100, marginMs: 100, renewed: [35, 36] }, // 51: the delay ends
    { type: 'Acquire', name: 'ld', leaseId: 36, wait: false }, // 52: H holds ld
    { type: 'Tick', elapsedMs: 6000, marginMs: 100, renewed: [] }, // 53: everything expires again
  ];
}
