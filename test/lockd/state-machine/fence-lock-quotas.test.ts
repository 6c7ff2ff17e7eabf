// The lock-bound fence (sequencer check), Fence.Delete with tombstones, and the per-lease quotas.
import { expect } from 'chai';
import {
  LockStateMachine,
  MAX_FENCE_KEYS_PER_LEASE,
  MAX_FENCE_KEYS_UNOWNED,
  MAX_FENCE_TOMBSTONES,
  MAX_LOCKS_PER_LEASE,
} from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('state machine: lock-bound fenced writes', () => {
  it('refuses a paused holder’s write naming its lock before the next holder has written anything', () => {
    const h = new Harness();
    const paused = h.grant(500, 100);
    const other = h.grant(500, 100);
    const t1 = h.acquire('job', paused).token;
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('from-1'), token: t1, lock: 'job' });
    h.acquire('job', other, true);
    for (let i = 0; i < 7; i++) h.tick(100, [other], 100);
    const t2 = h.sm.inspectLock('job').token;
    expect(t2).to.be.greaterThan(t1);
    const r = h.fail({ type: 'FenceWrite', key: 'out', value: bytes('late-1'), token: t1, lock: 'job' });
    expect(r).to.include({ error: 'FAILED_PRECONDITION' });
    expect(r.message).to.equal(`fencing token ${t1} is not the current grant of lock job: it is held under token ${t2}`);
    // Without the lock, the per-key rule alone accepts it (nobody wrote with t2 yet): today's rule.
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('late-1'), token: t1 });
    expect(text(h.sm.fenceRead('out').value)).to.equal('late-1');
  });

  it('refuses a token of a lock that is not held, and a token of another lock', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const ta = h.acquire('a', lease).token;
    h.acquire('b', lease);
    const other = h.fail({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: ta, lock: 'b' });
    expect(other.message).to.match(new RegExp(`fencing token ${ta} is not the current grant of lock b: it is held under token \\d+`));
    h.ok({ type: 'Release', name: 'a', token: ta });
    const free = h.fail({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: ta, lock: 'a' });
    expect(free).to.include({ error: 'FAILED_PRECONDITION', message: `fencing token ${ta} is not the current grant of lock a: it is not held` });
    expect(h.sm.fenceRead('k').found).to.equal(false);
  });

  it('keeps the per-key rule for lock-bound writes too', () => {
    const h = new Harness();
    const a = h.grant(60_000);
    const b = h.grant(60_000);
    const tb = h.acquire('b', b).token;
    const ta = h.acquire('a', a).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: ta, lock: 'a' });
    expect(h.fail({ type: 'FenceWrite', key: 'k', value: bytes('y'), token: tb, lock: 'b' })).to.include({ error: 'FAILED_PRECONDITION', highestToken: ta });
  });

  it('refuses an invalid lock name before apply changes anything', () => {
    const h = new Harness();
    h.noop();
    expect(h.fail({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: 1, lock: 'bad\u0001' })).to.include({ error: 'INVALID_ARGUMENT' });
  });
});

describe('state machine: Fence.Delete', () => {
  it('deletes a key, keeps its token as a tombstone, and a stale writer cannot bring it back', () => {
    const h = new Harness();
    const old = h.grant(60_000);
    const t1 = h.acquire('job', old).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('v1'), token: t1 });
    h.ok({ type: 'Release', name: 'job', token: t1 });
    const t2 = h.acquire('job', h.grant(60_000)).token;
    expect(h.ok({ type: 'FenceDelete', key: 'k', token: t2, lock: 'job' })).to.deep.equal({ type: 'FenceDelete', ok: true, deleted: true, highestToken: t2 });
    expect(h.sm.fenceRead('k')).to.deep.include({ found: false, token: 0 });
    const stale = h.fail({ type: 'FenceWrite', key: 'k', value: bytes('zombie'), token: t1 });
    expect(stale).to.include({ error: 'FAILED_PRECONDITION', highestToken: t2 });
    expect(stale.message).to.contain(`a delete with token ${t2} was already accepted`);
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('v3'), token: t2 });
    expect(text(h.sm.fenceRead('k').value)).to.equal('v3');
  });

  it('is fenced like a write: a stale token or a wrong lock changes nothing', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const t1 = h.acquire('job', lease).token;
    h.ok({ type: 'Release', name: 'job', token: t1 });
    const t2 = h.acquire('job', lease).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('v'), token: t2 });
    expect(h.fail({ type: 'FenceDelete', key: 'k', token: t1 })).to.include({ error: 'FAILED_PRECONDITION', highestToken: t2 });
    expect(h.fail({ type: 'FenceDelete', key: 'k', token: t1, lock: 'job' }).message).to.contain(`not the current grant of lock job`);
    expect(h.fail({ type: 'FenceDelete', key: 'k', token: tok(h.next + 5) })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.sm.fenceRead('k')).to.deep.include({ found: true, token: t2 });
  });

  it('answers deleted = false for a key that holds no value', () => {
    const h = new Harness();
    const t = h.acquire('job', h.grant(60_000)).token;
    expect(h.ok({ type: 'FenceDelete', key: 'never', token: t })).to.deep.include({ deleted: false, highestToken: 0 });
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('v'), token: t });
    h.ok({ type: 'FenceDelete', key: 'k', token: t });
    expect(h.ok({ type: 'FenceDelete', key: 'k', token: t })).to.deep.include({ deleted: false, highestToken: t });
  });

  it(`forgets the oldest of ${MAX_FENCE_TOMBSTONES} tombstones by raising a floor that unbound creates must meet`, () => {
    const h = new Harness(new LockStateMachine());
    const lease = h.grant(60_000);
    const t0 = h.acquire('old', lease).token;
    const t = h.acquire('job', lease).token;
    h.ok({ type: 'FenceWrite', key: 'first', value: bytes('v'), token: t });
    h.ok({ type: 'FenceDelete', key: 'first', token: t });
    for (let i = 1; i < MAX_FENCE_TOMBSTONES; i++) {
      h.ok({ type: 'FenceWrite', key: `d${i}`, value: bytes('v'), token: t });
      h.ok({ type: 'FenceDelete', key: `d${i}`, token: t });
    }
    h.sm.checkInvariants();
    // One more tombstone forgets 'first' (token t): the floor is now t.
    h.ok({ type: 'FenceWrite', key: 'extra', value: bytes('v'), token: t });
    h.ok({ type: 'FenceDelete', key: 'extra', token: t });
    h.sm.checkInvariants();
    const r = h.fail({ type: 'FenceWrite', key: 'first', value: bytes('zombie'), token: t0 });
    expect(r).to.include({ error: 'FAILED_PRECONDITION', highestToken: t });
    expect(r.message).to.contain(`a write without a lock must carry a token >= ${t}`);
    h.ok({ type: 'FenceWrite', key: 'first', value: bytes('again'), token: t });
    // A write naming its lock is guarded by the lock check instead of the floor.
    h.ok({ type: 'FenceWrite', key: 'new', value: bytes('x'), token: t0, lock: 'old' });
    const copy = LockStateMachine.fromSnapshot(h.sm.snapshot());
    expect(copy.stateDigest()).to.equal(h.sm.stateDigest());
  });
});

describe('state machine: per-lease quotas', () => {
  it(`one lease creates at most ${MAX_FENCE_KEYS_PER_LEASE} fenced keys; others are unaffected; a delete gives one back`, () => {
    const h = new Harness();
    const greedy = h.grant(60_000);
    const tg = h.acquire('g', greedy).token;
    for (let i = 0; i < MAX_FENCE_KEYS_PER_LEASE; i++) h.ok({ type: 'FenceWrite', key: `g${i}`, value: bytes(''), token: tg });
    const r = h.fail({ type: 'FenceWrite', key: 'g-more', value: bytes(''), token: tg });
    expect(r).to.include({
      error: 'RESOURCE_EXHAUSTED',
      message: `lease ${greedy} already created ${MAX_FENCE_KEYS_PER_LEASE} fenced keys (the limit per lease); delete some first`,
    });
    h.ok({ type: 'FenceWrite', key: 'g0', value: bytes('overwrite is fine'), token: tg });
    const to = h.acquire('o', h.grant(60_000)).token;
    h.ok({ type: 'FenceWrite', key: 'o0', value: bytes(''), token: to, lock: 'o' });
    h.ok({ type: 'FenceDelete', key: 'g0', token: tg });
    h.ok({ type: 'FenceWrite', key: 'g-more', value: bytes(''), token: tg });
  });

  it('a token shared by several grants (one entry handed several locks on) charges the lowest lease, on every replica', () => {
    const h = new Harness();
    const x = h.grant(60_000);
    const p = h.grant(60_000);
    const q = h.grant(60_000);
    h.acquire('a', x);
    h.acquire('b', x);
    h.acquire('b', p, true);
    h.acquire('a', q, true);
    h.ok({ type: 'Revoke', leaseId: x }); // hands a to q and b to p in this one entry
    const t = h.sm.inspectLock('a').token;
    expect(h.sm.inspectLock('b').token).to.equal(t);
    // A replica restored from a snapshot iterates the lock table in another order.
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    for (const r of [h, copy]) {
      for (let i = 0; i < MAX_FENCE_KEYS_PER_LEASE; i++) r.ok({ type: 'FenceWrite', key: `s${i}`, value: bytes(''), token: t });
      expect(r.fail({ type: 'FenceWrite', key: 's-more', value: bytes(''), token: t }).message).to.contain(`lease ${Math.min(p, q)} already created`);
      r.ok({ type: 'FenceWrite', key: 's-more', value: bytes(''), token: t, lock: Math.min(p, q) === p ? 'a' : 'b' });
    }
    expect(copy.sm.stateDigest()).to.equal(h.sm.stateDigest());
  });

  it(`writes whose token is no live grant's share a pool of ${MAX_FENCE_KEYS_UNOWNED} keys`, () => {
    const h = new Harness();
    for (let i = 0; i < 3; i++) h.noop();
    for (let i = 0; i < MAX_FENCE_KEYS_UNOWNED; i++) h.ok({ type: 'FenceWrite', key: `u${i}`, value: bytes(''), token: 1 });
    const r = h.fail({ type: 'FenceWrite', key: 'u-more', value: bytes(''), token: 2 });
    expect(r).to.include({ error: 'RESOURCE_EXHAUSTED' });
    expect(r.message).to.contain(`fencing token 2 is no live grant's token`);
    // A live holder still creates keys.
    const t = h.acquire('job', h.grant(60_000)).token;
    h.ok({ type: 'FenceWrite', key: 'mine', value: bytes(''), token: t });
  });

  it(`one lease holds and waits for at most ${MAX_LOCKS_PER_LEASE} locks together; existing grants and waits are still answered`, () => {
    const h = new Harness(new LockStateMachine());
    const other = h.grant(60_000);
    h.acquire('busy', other);
    const greedy = h.grant(60_000);
    h.acquire('busy', greedy, true); // one wait
    for (let i = 1; i < MAX_LOCKS_PER_LEASE; i++) h.acquire(`l${i}`, greedy);
    h.sm.checkInvariants();
    const take = h.fail({ type: 'Acquire', name: 'one-more', leaseId: greedy, wait: false });
    expect(take).to.include({
      error: 'RESOURCE_EXHAUSTED',
      message: `lease ${greedy} already holds or waits for ${MAX_LOCKS_PER_LEASE} locks (the limit per lease)`,
    });
    h.ok({ type: 'Acquire', name: 'one-more-held', leaseId: other, wait: false });
    expect(h.fail({ type: 'Acquire', name: 'one-more-held', leaseId: greedy, wait: true })).to.include({ error: 'RESOURCE_EXHAUSTED' });
    expect(h.acquire('l1', greedy).status).to.equal('acquired');
    expect(h.acquire('busy', greedy, true).status).to.equal('queued');
    // A try-lock of a held lock costs nothing and is still answered.
    expect(h.acquire('one-more-held', greedy).status).to.equal('held');
    h.ok({ type: 'Release', name: 'l1', token: h.sm.inspectLock('l1').token });
    expect(h.acquire('one-more', greedy).status).to.equal('acquired');
  });
});
