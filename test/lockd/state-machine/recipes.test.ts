// The recipes in the state machine: semaphores (permits, SetPermits), read-write locks
// (shared, downgrade, upgrade refused, fence only for the exclusive holder) and lock-delay.
// Every Harness runs the full invariant sweep after each entry.

import { expect } from 'chai';
import { LockStateMachine } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

const acq = (
  h: Harness,
  name: string,
  leaseId: number,
  o: { wait?: boolean; permits?: number; shared?: boolean; lockDelayMs?: number; requestId?: string } = {},
) =>
  h.apply({ type: 'Acquire', name, leaseId, wait: o.wait ?? false, permits: o.permits, shared: o.shared, lockDelayMs: o.lockDelayMs, requestId: o.requestId })
    .result!;

describe('state machine: semaphores (permits)', () => {
  it('lets up to N leases hold a name, each grant with its own token, and queues the next FIFO', () => {
    const h = new Harness();
    const [a, b, c] = [h.grant(), h.grant(), h.grant()];
    const ra = acq(h, 's', a, { permits: 2 });
    const rb = acq(h, 's', b, { permits: 2 });
    expect(ra).to.include({ status: 'acquired', token: tok(4) });
    expect(rb).to.include({ status: 'acquired', token: tok(5) });
    expect(acq(h, 's', c, { permits: 2 })).to.include({ status: 'held' });
    expect(acq(h, 's', c, { permits: 2, wait: true })).to.include({ status: 'queued', position: 1 });
    const v = h.sm.inspectLock('s');
    expect(v).to.deep.include({ permits: 2, held: true, holderLeaseId: a, token: tok(4), waitingLeaseIds: [c] });
    expect(v.holders.map((x) => [x.leaseId, x.token])).to.deep.equal([
      [a, tok(4)],
      [b, tok(5)],
    ]);
    const at = h.next;
    h.ok({ type: 'Release', name: 's', token: tok(5) });
    expect(h.lastEvents()).to.deep.equal([
      ['RELEASED', 's', b, tok(5)],
      ['ACQUIRED', 's', c, tok(at)],
    ]);
  });

  it('refuses an Acquire that disagrees on permits, naming both values, and changes nothing', () => {
    const h = new Harness();
    const [a, b] = [h.grant(), h.grant()];
    acq(h, 's', a, { permits: 3 });
    const before = h.sm.snapshot();
    const f = h.fail({ type: 'Acquire', name: 's', leaseId: b, wait: true });
    expect(f.error).to.equal('FAILED_PRECONDITION');
    expect(f.message).to.contain('permits 3').and.contain('permits 1');
    expect(h.sm.inspectLock('s').waitingLeaseIds).to.deep.equal([]);
    expect(JSON.parse(new TextDecoder().decode(h.sm.snapshot().subarray(1))).locks).to.deep.equal(
      JSON.parse(new TextDecoder().decode(before.subarray(1))).locks,
    );
  });

  it('SetPermits growth grants the waiters that now fit in the same entry; shrinking below the holders is refused', () => {
    const h = new Harness();
    const [a, b, c, d] = [h.grant(), h.grant(), h.grant(), h.grant()];
    acq(h, 's', a);
    acq(h, 's', b, { wait: true });
    acq(h, 's', c, { wait: true });
    acq(h, 's', d, { wait: true });
    const at = h.next;
    expect(h.ok({ type: 'SetPermits', name: 's', permits: 3 })).to.include({ previous: 1, permits: 3, granted: 2 });
    expect(h.lastEvents()).to.deep.equal([
      ['PERMITS_CHANGED', 's', 0, 0],
      ['ACQUIRED', 's', b, tok(at, 0)],
      ['ACQUIRED', 's', c, tok(at, 1)],
    ]);
    expect(h.sm.inspectLock('s').waitingLeaseIds).to.deep.equal([d]);
    // b and c were granted by one entry, each under a token of its own: the token names the grant.
    expect(h.ok({ type: 'Release', name: 's', token: tok(at, 0), leaseId: c })).to.include({ released: false });
    expect(h.ok({ type: 'Release', name: 's', token: tok(at, 1) })).to.include({ released: true });
    expect(h.lastEvents().map((e) => e.slice(0, 3))).to.deep.equal([
      ['RELEASED', 's', c],
      ['ACQUIRED', 's', d],
    ]);
    expect(h.fail({ type: 'SetPermits', name: 's', permits: 2 })).to.include({ error: 'FAILED_PRECONDITION' });
    expect(h.fail({ type: 'SetPermits', name: 'free', permits: 2 })).to.include({ error: 'NOT_FOUND' });
    // Newcomers must agree with the new value.
    const e = h.grant();
    expect(h.fail({ type: 'Acquire', name: 's', leaseId: e, wait: false }).message).to.contain('permits 3');
  });

  it('a SetPermits retried with its request id does not undo a later change', () => {
    const h = new Harness();
    const a = h.grant();
    acq(h, 's', a);
    h.ok({ type: 'SetPermits', name: 's', permits: 4, requestId: 'p1' });
    h.ok({ type: 'SetPermits', name: 's', permits: 2, requestId: 'p2' });
    expect(h.ok({ type: 'SetPermits', name: 's', permits: 4, requestId: 'p1' })).to.include({ previous: 1, permits: 4 });
    expect(h.sm.inspectLock('s').permits).to.equal(2);
  });
});

describe('state machine: read-write locks (shared)', () => {
  it('shared holders coexist; a waiting exclusive blocks later shared ones (FIFO); release hands on in order', () => {
    const h = new Harness();
    const [r1, r2, w, r3] = [h.grant(), h.grant(), h.grant(), h.grant()];
    expect(acq(h, 'rw', r1, { shared: true })).to.include({ status: 'acquired' });
    expect(acq(h, 'rw', r2, { shared: true })).to.include({ status: 'acquired' });
    expect(acq(h, 'rw', w, { wait: true })).to.include({ status: 'queued', position: 1 });
    expect(acq(h, 'rw', r3, { shared: true, wait: true })).to.include({ status: 'queued', position: 2 });
    h.ok({ type: 'Release', name: 'rw', token: h.sm.inspectLock('rw').holders[0].token });
    expect(h.sm.inspectLock('rw').waitingLeaseIds).to.deep.equal([w, r3]);
    const at = tok(h.next);
    h.ok({ type: 'Release', name: 'rw', token: h.sm.inspectLock('rw').holders[0].token });
    expect(h.sm.inspectLock('rw').holders).to.deep.equal([{ leaseId: w, token: at, shared: false, lockDelayMs: 0, value: '' }]);
    h.ok({ type: 'Release', name: 'rw', token: at });
    expect(h.sm.inspectLock('rw').holders.map((x) => [x.leaseId, x.shared])).to.deep.equal([[r3, true]]);
  });

  it('an exclusive waiter that gives up lets the shared ones behind it in', () => {
    const h = new Harness();
    const [r1, w, r2] = [h.grant(), h.grant(), h.grant()];
    acq(h, 'rw', r1, { shared: true });
    acq(h, 'rw', w, { wait: true });
    acq(h, 'rw', r2, { shared: true, wait: true });
    h.ok({ type: 'CancelWait', name: 'rw', leaseId: w });
    expect(h.sm.inspectLock('rw').holders.map((x) => x.leaseId)).to.deep.equal([r1, r2]);
  });

  it('downgrade keeps the token and admits the shared waiters; upgrade is refused and says why', () => {
    const h = new Harness();
    const [w, r] = [h.grant(), h.grant()];
    const t = (acq(h, 'rw', w) as { token: number }).token;
    acq(h, 'rw', r, { shared: true, wait: true });
    expect(acq(h, 'rw', w, { shared: true })).to.include({ status: 'acquired', token: t });
    expect(h.sm.inspectLock('rw').holders.map((x) => [x.leaseId, x.shared])).to.deep.equal([
      [w, true],
      [r, true],
    ]);
    const f = h.fail({ type: 'Acquire', name: 'rw', leaseId: r, wait: false });
    expect(f.error).to.equal('FAILED_PRECONDITION');
    expect(f.message).to.contain('upgrading to exclusive is refused');
  });

  it('a lock-bound fenced write accepts only the exclusive holder', () => {
    const h = new Harness();
    const [w, r] = [h.grant(), h.grant()];
    const tw = (acq(h, 'rw', w) as { token: number }).token;
    h.noop();
    expect(h.ok({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token: tw, lock: 'rw' })).to.include({ highestToken: tw });
    h.ok({ type: 'Release', name: 'rw', token: tw });
    const tr = (acq(h, 'rw', r, { shared: true }) as { token: number }).token;
    h.noop();
    expect(h.fail({ type: 'FenceWrite', key: 'k', value: new Uint8Array([2]), token: tr, lock: 'rw' }).message).to.contain('shared (read) grant');
  });

  it('shared with permits > 1 is INVALID_ARGUMENT', () => {
    const h = new Harness();
    const a = h.grant();
    expect(h.fail({ type: 'Acquire', name: 'rw', leaseId: a, wait: false, shared: true, permits: 2 })).to.include({ error: 'INVALID_ARGUMENT' });
  });
});

describe('state machine: election values (Campaign, Proclaim)', () => {
  it("a waiter's value travels to its grant; only the one holder under the token proclaims", () => {
    const h = new Harness();
    const [a, b] = [h.grant(), h.grant()];
    const ta = (h.ok({ type: 'Acquire', name: 'e', leaseId: a, wait: true, value: 'a', election: true }) as { token: number }).token;
    h.ok({ type: 'Acquire', name: 'e', leaseId: b, wait: true, value: 'b', election: true });
    expect(h.sm.inspectLock('e').holders[0].value).to.equal('a');
    h.ok({ type: 'Proclaim', name: 'e', token: ta, value: 'a2' });
    expect(h.lastEvents()).to.deep.equal([['PROCLAIMED', 'e', a, ta]]);
    expect(h.sm.inspectLock('e').holders[0].value).to.equal('a2');
    h.ok({ type: 'Release', name: 'e', token: ta });
    expect(h.sm.inspectLock('e').holders[0]).to.include({ leaseId: b, value: 'b' });
    expect(h.fail({ type: 'Proclaim', name: 'e', token: ta, value: 'x' })).to.include({ error: 'FAILED_PRECONDITION' });
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    expect(copy.sm.inspectLock('e').holders[0].value).to.equal('b');
    expect(h.fail({ type: 'Acquire', name: 'f', leaseId: a, wait: false, value: 'x'.repeat(1025) })).to.include({ error: 'INVALID_ARGUMENT' });
  });
});

describe('state machine: Proclaim names the leadership by lease and token', () => {
  it("refuses a key whose lease_id is not the leader's, even with the leader's token, and changes nothing", () => {
    const h = new Harness();
    const [a, b] = [h.grant(), h.grant()];
    const ta = (h.ok({ type: 'Acquire', name: 'e', leaseId: a, wait: true, value: 'a', election: true }) as { token: number }).token;
    const f = h.fail({ type: 'Proclaim', name: 'e', token: ta, leaseId: b, value: 'forged' });
    expect(f.error).to.equal('FAILED_PRECONDITION');
    expect(f.message).to.contain(`lease ${b} with fencing token ${ta}`).and.contain(`lease ${a} leads it under token ${ta}`);
    expect(h.sm.inspectLock('e').holders[0].value).to.equal('a');
    h.ok({ type: 'Proclaim', name: 'e', token: ta, leaseId: a, value: 'a2' });
    expect(h.sm.inspectLock('e').holders[0].value).to.equal('a2');
  });
});

describe('state machine: lock-delay', () => {
  it('after the holder lease expires, the name stays ungranted until the Tick that ends the delay grants the waiter', () => {
    const h = new Harness();
    const [a, b] = [h.grant(100), h.grant(5000)];
    acq(h, 'x', a, { lockDelayMs: 300 });
    acq(h, 'x', b, { wait: true });
    h.tick(100, [b]); // a expires at now = 100; the delay runs to 400
    expect(h.lastEvents().map((e) => e[0])).to.deep.equal(['EXPIRED', 'LEASE_EXPIRED']);
    expect(h.sm.inspectLock('x')).to.deep.include({ held: false, delayUntil: 400, delayRemainingMs: 300, waitingLeaseIds: [b] });
    const c = h.grant(5000);
    expect(acq(h, 'x', c)).to.include({ status: 'held', holderLeaseId: 0, delayRemainingMs: 300 });
    h.tick(299, [b, c]);
    expect(h.sm.inspectLock('x').held).to.equal(false);
    const at = tok(h.next);
    h.tick(1, [b, c]);
    expect(h.lastEvents()).to.deep.equal([['ACQUIRED', 'x', b, at]]);
    expect(h.sm.inspectLock('x')).to.deep.include({ delayUntil: 0, holderLeaseId: b });
  });

  it('a revoke starts the delay too; a normal release does not; a delay with nobody waiting ends with the lock', () => {
    const h = new Harness();
    const [a, b] = [h.grant(5000), h.grant(5000)];
    acq(h, 'x', a, { lockDelayMs: 200 });
    h.ok({ type: 'Revoke', leaseId: a });
    expect(h.sm.inspectLock('x')).to.deep.include({ held: false, delayUntil: 200 });
    h.tick(200, [b]);
    expect(h.sm.inspectLock('x')).to.deep.include({ held: false, delayUntil: 0 });
    const t = (acq(h, 'x', b, { lockDelayMs: 200 }) as { token: number }).token;
    h.ok({ type: 'Release', name: 'x', token: t });
    const c = h.grant(5000);
    expect(acq(h, 'x', c)).to.include({ status: 'acquired' });
  });

  it('survives a snapshot: the restored replica ends the delay on the same Tick', () => {
    const h = new Harness();
    const [a, b] = [h.grant(100), h.grant(5000)];
    acq(h, 'x', a, { lockDelayMs: 300 });
    acq(h, 'x', b, { wait: true });
    h.tick(100, [b]);
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    for (const x of [h, copy]) x.tick(300, [b]);
    expect(copy.sm.stateDigest()).to.equal(h.sm.stateDigest());
    expect(copy.sm.inspectLock('x').holderLeaseId).to.equal(b);
  });

  it('lock_delay_ms beyond the bound is INVALID_ARGUMENT', () => {
    const h = new Harness();
    const a = h.grant();
    expect(h.fail({ type: 'Acquire', name: 'x', leaseId: a, wait: false, lockDelayMs: 60_001 })).to.include({ error: 'INVALID_ARGUMENT' });
  });
});
