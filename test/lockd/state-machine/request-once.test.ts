// Request ids of Revoke, Release, CancelWait, FenceWrite and FenceDelete: applied once, a repeat
// answered truthfully from the first outcome, a reuse for another request refused.
import { expect } from 'chai';
import { LockStateMachine, statesEqual } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('state machine: request ids of Release, Revoke, CancelWait, Fence', () => {
  it('a late duplicate FenceWrite (retried, then overtaken by a later write) does not overwrite the later write', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const token = h.acquire('job', lease).token;
    const first = { type: 'FenceWrite', key: 'out', value: bytes('v1'), token, requestId: 'w1' } as const;
    expect(h.ok(first)).to.deep.equal({ type: 'FenceWrite', ok: true, highestToken: token }); // the retry lands first
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v2'), token, requestId: 'w2' });
    expect(h.ok(first)).to.deep.equal({ type: 'FenceWrite', ok: true, highestToken: token }); // the delayed first attempt
    expect(text(h.sm.fenceRead('out').value)).to.equal('v2');
  });

  it('without a request id the late duplicate overwrites (the behaviour the id exists for)', () => {
    const h = new Harness();
    const token = h.acquire('job', h.grant(60_000)).token;
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v1'), token });
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v2'), token });
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v1'), token });
    expect(text(h.sm.fenceRead('out').value)).to.equal('v1');
  });

  it('a FenceWrite refused once is refused for its request id even when it would now be accepted', () => {
    const h = new Harness();
    h.noop();
    // Entry 5’s token is not issued yet at index 2: refused. Later the log passes 5, but the id's answer stands.
    const w = { type: 'FenceWrite', key: 'k', value: bytes('x'), token: tok(5), requestId: 'early' } as const;
    expect(h.fail(w)).to.include({ error: 'INVALID_ARGUMENT' });
    for (let i = 0; i < 5; i++) h.noop();
    const again = h.fail(w);
    expect(again).to.include({ error: 'INVALID_ARGUMENT' });
    expect(again.message).to.match(/never issued.*first attempt/);
    expect(h.sm.fenceRead('k').found).to.equal(false);
  });

  it('a request id reused with another value, key, token or lock is INVALID_ARGUMENT and changes nothing', () => {
    const h = new Harness();
    const token = h.acquire('job', h.grant(60_000)).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('a'), token, requestId: 'r' });
    for (const other of [
      { type: 'FenceWrite', key: 'k', value: bytes('b'), token, requestId: 'r' },
      { type: 'FenceWrite', key: 'k2', value: bytes('a'), token, requestId: 'r' },
      { type: 'FenceWrite', key: 'k', value: bytes('a'), token, lock: 'job', requestId: 'r' },
      { type: 'FenceDelete', key: 'k', token, requestId: 'r' },
      { type: 'Release', name: 'job', token, requestId: 'r' },
    ] as const) {
      const before = h.sm.snapshot();
      const r = h.fail(other);
      expect(r).to.include({ error: 'INVALID_ARGUMENT' });
      expect(r.message).to.contain('request_id r was already used for a different request');
      const after = LockStateMachine.fromSnapshot(h.sm.snapshot());
      const was = LockStateMachine.fromSnapshot(before);
      // Only the applied index moved.
      was.apply({ index: h.sm.appliedIndex, data: new Uint8Array(0) });
      expect(statesEqual(after, was)).to.equal(true);
    }
    expect(text(h.sm.fenceRead('k').value)).to.equal('a');
    expect(h.sm.inspectLock('job').held).to.equal(true);
  });

  it('a retried Release answers released = true again, not NOT_FOUND; the same id for another grant is refused', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const token = h.acquire('job', lease).token;
    expect(h.ok({ type: 'Release', name: 'job', token, requestId: 'rel' })).to.deep.equal({ type: 'Release', ok: true, released: true });
    expect(h.ok({ type: 'Release', name: 'job', token, requestId: 'rel' })).to.deep.equal({ type: 'Release', ok: true, released: true });
    expect(h.lastEvents()).to.deep.equal([]);
    // Without the id the retry is told the truth about *its own* effect: nothing to release.
    expect(h.fail({ type: 'Release', name: 'job', token })).to.include({ error: 'NOT_FOUND' });
    const t2 = h.acquire('job', lease).token;
    expect(h.fail({ type: 'Release', name: 'job', token: t2, requestId: 'rel' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.sm.inspectLock('job').token).to.equal(t2);
  });

  it('a late Release duplicate never touches a later grant of the same lock', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const t1 = h.acquire('job', lease).token;
    h.ok({ type: 'Release', name: 'job', token: t1, requestId: 'rel' });
    const t2 = h.acquire('job', lease).token;
    expect(h.ok({ type: 'Release', name: 'job', token: t1, requestId: 'rel' })).to.include({ released: true });
    expect(h.sm.inspectLock('job')).to.include({ held: true, token: t2 });
  });

  it('a retried Revoke answers OK (not NOT_FOUND) and releases nothing more', () => {
    const h = new Harness();
    const a = h.grant(60_000);
    h.acquire('job', a);
    expect(h.ok({ type: 'Revoke', leaseId: a, requestId: 'rv' })).to.deep.equal({ type: 'Revoke', ok: true, leaseId: a, releasedLocks: ['job'] });
    expect(h.ok({ type: 'Revoke', leaseId: a, requestId: 'rv' })).to.deep.equal({ type: 'Revoke', ok: true, leaseId: a, releasedLocks: [] });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.fail({ type: 'Revoke', leaseId: a })).to.include({ error: 'NOT_FOUND' });
    const b = h.grant(60_000);
    expect(h.fail({ type: 'Revoke', leaseId: b, requestId: 'rv' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.sm.hasLease(b)).to.equal(true);
  });

  it('a late CancelWait duplicate does not take the lease out of a queue it joined again', () => {
    const h = new Harness();
    const holder = h.grant(60_000);
    const waiter = h.grant(60_000);
    h.acquire('job', holder);
    h.acquire('job', waiter, true, 'acq-1');
    const cancel = { type: 'CancelWait', name: 'job', leaseId: waiter, requestId: 'cw' } as const;
    expect(h.ok(cancel)).to.include({ removed: true, heldToken: 0, released: false });
    h.acquire('job', waiter, true, 'acq-2');
    expect(h.ok(cancel)).to.include({ removed: true, heldToken: 0, released: false }); // the first attempt's answer
    expect(h.sm.inspectLock('job').waitingLeaseIds).to.deep.equal([waiter]);
    // Without the id the same late message would have removed the new wait.
    h.ok({ type: 'CancelWait', name: 'job', leaseId: waiter });
    expect(h.sm.inspectLock('job').waitingLeaseIds).to.deep.equal([]);
  });

  it('a replayed CancelWait reports the token the lease holds now, not the one it held then', () => {
    const h = new Harness();
    const holder = h.grant(60_000);
    const waiter = h.grant(60_000);
    const t1 = h.acquire('job', holder).token;
    h.acquire('job', waiter, true);
    h.ok({ type: 'Release', name: 'job', token: t1 }); // the grant wins the race with the cancel
    const t2 = h.sm.inspectLock('job').token;
    const cancel = { type: 'CancelWait', name: 'job', leaseId: waiter, requestId: 'cw' } as const;
    expect(h.ok(cancel)).to.include({ removed: false, heldToken: t2 });
    h.ok({ type: 'Release', name: 'job', token: t2 }); // the caller releases what it was told it holds
    expect(h.ok(cancel)).to.include({ removed: false, heldToken: 0, released: false });
  });

  it('request ids survive a snapshot: a replica restored from one answers a duplicate the same way', () => {
    const h = new Harness();
    const lease = h.grant(60_000);
    const token = h.acquire('job', lease).token;
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v1'), token, lock: 'job', requestId: 'w1' });
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('v2'), token, requestId: 'w2' });
    h.ok({ type: 'FenceDelete', key: 'gone', token, requestId: 'd1' });
    h.fail({ type: 'FenceWrite', key: 'out', value: bytes('x'), token: 1, requestId: 'stale' });
    h.ok({ type: 'CancelWait', name: 'job', leaseId: lease, requestId: 'cw' });
    h.ok({ type: 'Release', name: 'job', token, requestId: 'rel' });
    h.ok({ type: 'Revoke', leaseId: lease, requestId: 'rv' });
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    for (const x of [h, copy]) {
      expect(x.ok({ type: 'FenceWrite', key: 'out', value: bytes('v1'), token, lock: 'job', requestId: 'w1' })).to.include({ highestToken: token });
      expect(x.ok({ type: 'FenceDelete', key: 'gone', token, requestId: 'd1' })).to.include({ deleted: false });
      expect(x.fail({ type: 'FenceWrite', key: 'out', value: bytes('x'), token: 1, requestId: 'stale' })).to.include({
        error: 'FAILED_PRECONDITION',
        highestToken: token,
      });
      expect(x.ok({ type: 'Release', name: 'job', token, requestId: 'rel' })).to.include({ released: true });
      expect(x.ok({ type: 'Revoke', leaseId: lease, requestId: 'rv' })).to.include({ ok: true });
      expect(x.ok({ type: 'CancelWait', name: 'job', leaseId: lease, requestId: 'cw' })).to.include({ removed: false, heldToken: 0 });
    }
    expect(text(copy.sm.fenceRead('out').value)).to.equal('v2');
    expect(statesEqual(h.sm, copy.sm)).to.equal(true);
  });
});
