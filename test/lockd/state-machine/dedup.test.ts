import { expect } from 'chai';
import { DEDUP_CAPACITY, LockStateMachine, encodeCommand } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

describe('state machine: request-id dedup (retries apply once)', () => {
  it('a retried Grant returns the first lease instead of creating another', () => {
    const h = new Harness();
    const first = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: 'g1' });
    const again = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 50, requestId: 'g1' }); // margin is the leader's, not the client's
    expect(again).to.deep.equal({ ...first, duplicate: true });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.listLeases()).to.have.length(1);
  });

  it('a retried Grant still answers the first lease after that lease expired', () => {
    const h = new Harness();
    const id = h.grant(100, 0, 'g1');
    h.tick(100);
    expect(h.ok({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g1' })).to.include({ leaseId: id, duplicate: true });
    expect(h.sm.hasLiveLeases()).to.equal(false);
  });

  it('a request id reused for a different request is INVALID_ARGUMENT', () => {
    const h = new Harness();
    const lease = h.grant(1000, 0, 'r');
    expect(h.fail({ type: 'Grant', ttlMs: 2000, marginMs: 0, requestId: 'r' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.fail({ type: 'Acquire', name: 'x', leaseId: lease, wait: false, requestId: 'r' })).to.include({
      error: 'INVALID_ARGUMENT',
    });
    h.acquire('x', lease, false, 'a');
    for (const [name, wait] of [['y', false], ['x', true]] as const)
      expect(h.fail({ type: 'Acquire', name, leaseId: lease, wait, requestId: 'a' }).message).to.match(/already used/);
  });

  it('a retried Acquire after the lock was released returns the first grant and does not re-acquire (no orphan)', () => {
    const h = new Harness();
    const lease = h.grant();
    const first = h.acquire('x', lease, false, 'a1');
    h.ok({ type: 'Release', name: 'x', token: first.token });
    const retry = h.acquire('x', lease, false, 'a1');
    expect(retry).to.deep.equal({ ...first, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a retried try-lock returns its first answer (held) even if the lock is free now', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const t = h.acquire('x', a).token;
    h.acquire('x', b, false, 'try');
    h.ok({ type: 'Release', name: 'x', token: t });
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: a, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a retried waiting Acquire follows the wait: queued (current position) while waiting, acquired once granted', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const c = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('x', b, true);
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'queued', position: 2 });
    h.ok({ type: 'CancelWait', name: 'x', leaseId: b });
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'queued', position: 1, duplicate: true });
    const idx = h.next;
    h.ok({ type: 'Release', name: 'x', token: ta });
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'acquired', token: idx, duplicate: true });
    h.ok({ type: 'Release', name: 'x', token: idx });
    // Settled: even after the release, the retry answers the grant and does not take the lock again.
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'acquired', token: idx, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a retry of a wait that ended without a grant is applied afresh', () => {
    const h = new Harness();
    const a = h.grant(10_000, 0);
    const b = h.grant(10_000, 0);
    const dying = h.grant(100, 0);
    h.acquire('x', a);
    h.acquire('x', b, true, 'cancelled');
    h.acquire('x', dying, true, 'died');
    h.ok({ type: 'CancelWait', name: 'x', leaseId: b });
    h.tick(100);
    // Cancelled: the retry queues again (a new wait).
    expect(h.acquire('x', b, true, 'cancelled')).to.include({ status: 'queued', duplicate: false });
    expect(h.lastEvents()).to.deep.equal([['QUEUED', 'x', b, 0]]);
    // Own lease died: the retry meets the dead lease.
    expect(h.fail({ type: 'Acquire', name: 'x', leaseId: dying, wait: true, requestId: 'died' })).to.include({
      error: 'NOT_FOUND',
    });
  });

  it('a second request id for an already-waiting lease also follows the wait', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('x', b, true, 'first');
    h.acquire('x', b, true, 'second');
    const idx = h.next;
    h.ok({ type: 'Release', name: 'x', token: ta });
    expect(h.acquire('x', b, true, 'second')).to.include({ status: 'acquired', token: idx, duplicate: true });
    expect(h.acquire('x', b, true, 'first')).to.include({ status: 'acquired', token: idx, duplicate: true });
  });

  it('failures are not remembered: a retry after the cause is gone applies', () => {
    const h = new Harness();
    expect(h.fail({ type: 'Grant', ttlMs: 5, marginMs: 0, requestId: 'bad' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.ok({ type: 'Grant', ttlMs: 500, marginMs: 0, requestId: 'bad' }).duplicate).to.equal(false);
  });

  it(`forgets the oldest request id beyond ${DEDUP_CAPACITY} (bounded, FIFO, deterministic)`, function () {
    this.timeout(30_000);
    const sm = new LockStateMachine();
    const grant = (i: number, rid: string) =>
      sm.apply({ index: i, data: encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: rid }) }).result;
    let index = 0;
    for (let i = 0; i <= DEDUP_CAPACITY; i++) grant(++index, `r${i}`); // r0 .. r10000: one too many
    expect(grant(++index, 'r1')).to.include({ leaseId: 2, duplicate: true }); // still remembered
    expect(grant(++index, 'r0')).to.include({ leaseId: index, duplicate: false }); // forgotten: applied again
    sm.checkInvariants();
  });
});
