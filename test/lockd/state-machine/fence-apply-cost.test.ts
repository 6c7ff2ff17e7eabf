// The apply loop is shared by every client (docs/lessons.md 6, 14): what one entry costs must not grow with
// state another client built. A fenced write that creates a key without naming its lock is charged to
// the lease whose live grant holds its token; finding that grant used to scan the whole lock table
// (up to MAX_LOCKS = 100,000), once per such write, on every replica — refused writes included — so
// one client's stream of cheap writes (made-up tokens, the unowned pool full) cost thousands of
// times an ordinary write and stalled heartbeats and the lease clock for everyone.
import { expect } from 'chai';
import { LockStateMachine, MAX_FENCE_KEYS_PER_LEASE, MAX_FENCE_KEYS_UNOWNED } from '../../../src/lockd/state-machine/index.js';
import type { MachineState } from '../../../src/lockd/state-machine/state.js';
import { Harness } from './harness.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Counts every walk over the lock table (the Map's iteration methods) while `fn` runs. */
function lockTableWalks(sm: LockStateMachine, fn: () => void): number {
  const locks = (sm as unknown as { s: MachineState }).s.locks;
  let walks = 0;
  const methods = ['values', 'entries', 'keys', 'forEach', Symbol.iterator] as const;
  for (const m of methods) {
    const orig = (Map.prototype as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>)[m];
    Object.defineProperty(locks, m, { configurable: true, value: (...a: unknown[]) => (walks++, orig.apply(locks, a)) });
  }
  try {
    fn();
  } finally {
    for (const m of methods) delete (locks as unknown as Record<PropertyKey, unknown>)[m];
  }
  return walks;
}

describe('state machine: the cost of a fenced write does not grow with the lock table', () => {
  it('a write creating a key without its lock finds its grant without walking the locks (accepted, refused, shared token)', () => {
    // No invariant sweep after each apply here: the sweep itself walks the locks.
    const h = new Harness(new LockStateMachine());
    const a = h.grant(60_000);
    const b = h.grant(60_000);
    for (let i = 0; i < 50; i++) h.acquire(`other${i}`, a);
    const t = h.acquire('job', b).token;
    for (let i = 0; i < 3; i++) h.noop();
    for (let i = 0; i < MAX_FENCE_KEYS_UNOWNED; i++) h.ok({ type: 'FenceWrite', key: `u${i}`, value: bytes(''), token: 1 });

    const walks = lockTableWalks(h.sm, () => {
      h.ok({ type: 'FenceWrite', key: 'mine', value: bytes('v'), token: t });
      // The unowned pool is full: refused, and refused cheaply.
      expect(h.fail({ type: 'FenceWrite', key: 'made-up', value: bytes(''), token: t + 1 })).to.include({ error: 'RESOURCE_EXHAUSTED' });
    });
    expect(walks).to.equal(0);
    // Still charged to the right lease: b's quota, not a's.
    for (let i = 1; i < MAX_FENCE_KEYS_PER_LEASE; i++) h.ok({ type: 'FenceWrite', key: `mine${i}`, value: bytes(''), token: t });
    expect(h.fail({ type: 'FenceWrite', key: 'one-more', value: bytes(''), token: t }).message).to.contain(`lease ${b} already created`);
    h.sm.checkInvariants();
  });

  it('the grants by token follow hand-offs, releases and lease ends, and are rebuilt on restore', () => {
    const h = new Harness(new LockStateMachine());
    const x = h.grant(60_000);
    const p = h.grant(60_000);
    const q = h.grant(60_000);
    const tx = h.acquire('a', x).token;
    h.acquire('b', x);
    h.acquire('b', p, true);
    h.acquire('a', q, true);
    h.ok({ type: 'Revoke', leaseId: x }); // hands a to q and b to p in this one entry: one token, two grants
    const t = h.sm.inspectLock('a').token;
    // x's old token is no live grant's any more: the shared pool.
    h.ok({ type: 'FenceWrite', key: 'old', value: bytes(''), token: tx });
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot()));
    for (const r of [h, copy]) {
      expect(lockTableWalks(r.sm, () => r.ok({ type: 'FenceWrite', key: 'k', value: bytes(''), token: t }))).to.equal(0);
      r.ok({ type: 'Release', name: 'a', token: t });
      r.ok({ type: 'Release', name: 'b', token: t });
      // Both grants of t ended: a key created with t now comes from the shared pool.
      r.ok({ type: 'FenceWrite', key: 'k2', value: bytes(''), token: t });
      r.sm.checkInvariants();
    }
    expect(copy.sm.stateDigest()).to.equal(h.sm.stateDigest());
  });
});
