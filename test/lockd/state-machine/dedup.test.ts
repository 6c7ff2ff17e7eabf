import { expect } from 'chai';
import { DEDUP_CAPACITY, LockStateMachine, encodeCommand } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

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

  it("another principal's reuse of a Grant request id is PERMISSION_DENIED, live or ended; the owner's retry keeps its answer", () => {
    const h = new Harness();
    const id = h.ok({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g1', principal: 'alice' }).leaseId;
    const bob = { type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g1', principal: 'bob' } as const;
    h.tick(100); // alice's lease ended: its id must not be handed to bob
    expect(h.sm.hasLiveLeases()).to.equal(false);
    const refused = h.fail(bob);
    expect(refused).to.include({ error: 'PERMISSION_DENIED' });
    expect(refused.message).to.contain('another principal').and.not.match(/lease/);
    // Refused alike while the lease lives (no telling live from ended).
    h.ok({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g2', principal: 'alice' });
    expect(h.fail({ ...bob, requestId: 'g2' })).to.include({ error: 'PERMISSION_DENIED' });
    expect(h.ok({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g1', principal: 'alice' })).to.include({ leaseId: id, duplicate: true });
    // The owner survives a snapshot.
    const restored = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot()));
    expect(restored.fail(bob)).to.include({ error: 'PERMISSION_DENIED' });
    expect(restored.ok({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: 'g1', principal: 'alice' })).to.include({ leaseId: id, duplicate: true });
  });

  it('a request id reused for a different request is INVALID_ARGUMENT', () => {
    const h = new Harness();
    const lease = h.grant(1000, 0, 'r');
    expect(h.fail({ type: 'Grant', ttlMs: 2000, marginMs: 0, requestId: 'r' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.fail({ type: 'Acquire', name: 'x', leaseId: lease, wait: false, requestId: 'r' })).to.include({
      error: 'INVALID_ARGUMENT',
    });
    h.acquire('x', lease, false, 'a');
    for (const [name, wait] of [
      ['y', false],
      ['x', true],
    ] as const)
      expect(h.fail({ type: 'Acquire', name, leaseId: lease, wait, requestId: 'a' }).message).to.match(/already used/);
  });

  it('a retried Acquire whose grant was released and taken by another lease answers "ended" — never the old grant', () => {
    const h = new Harness();
    const A = h.grant();
    const B = h.grant();
    const first = h.acquire('rp', A, false, 'R1');
    h.ok({ type: 'Release', name: 'rp', token: first.token });
    const tB = h.acquire('rp', B).token;
    const before = h.sm.snapshot();
    const retry = h.acquire('rp', A, false, 'R1');
    expect(retry).to.deep.equal({
      type: 'Acquire',
      ok: true,
      status: 'ended',
      token: 0,
      shared: false,
      holderLeaseId: B,
      holderToken: tB,
      position: 0,
      endedToken: first.token,
      delayRemainingMs: 0,
      duplicate: true,
    });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('rp')).to.include({ holderLeaseId: B, token: tB });
    // Nothing changed but appliedIndex.
    const ref = new Harness(LockStateMachine.fromSnapshot(before));
    ref.noop();
    expect(h.sm.snapshot()).to.deep.equal(ref.sm.snapshot());
  });

  it('a retried Acquire after the lock was released and left free answers "ended" and does not re-acquire (no orphan)', () => {
    const h = new Harness();
    const lease = h.grant();
    const first = h.acquire('x', lease, true, 'a1');
    h.ok({ type: 'Release', name: 'x', token: first.token });
    expect(h.acquire('x', lease, true, 'a1')).to.include({ status: 'ended', endedToken: first.token, holderLeaseId: 0, token: 0, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a retried Acquire whose grant still holds answers it (acquired, same token)', () => {
    const h = new Harness();
    const lease = h.grant();
    const first = h.acquire('x', lease, false, 'a1');
    expect(h.acquire('x', lease, false, 'a1')).to.deep.equal({ ...first, duplicate: true });
  });

  it('a retried Acquire after its lease expired is NOT_FOUND, naming the lease and the grant that ended with it', () => {
    const h = new Harness();
    const A = h.grant(100, 0);
    const B = h.grant(10_000, 0);
    const first = h.acquire('rp', A, false, 'R1');
    h.tick(100, [B]);
    h.acquire('rp', B);
    const f = h.fail({ type: 'Acquire', name: 'rp', leaseId: A, wait: false, requestId: 'R1' });
    expect(f.error).to.equal('NOT_FOUND');
    expect(f.message).to.contain(`lease ${A} not found`).and.to.contain(`token ${first.token}`).and.to.contain('R1');
    expect(h.sm.inspectLock('rp')).to.include({ holderLeaseId: B });
    // The record is kept: the next retry is told the same.
    expect(h.fail({ type: 'Acquire', name: 'rp', leaseId: A, wait: false, requestId: 'R1' }).error).to.equal('NOT_FOUND');
  });

  it('a retried try-lock that found the lock held never takes it: it answers the holder now (0 when free)', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const c = h.grant();
    const t = h.acquire('x', a).token;
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: a });
    h.ok({ type: 'Release', name: 'x', token: t });
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: 0, holderToken: 0, token: 0, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
    const tc = h.acquire('x', c).token;
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: c, holderToken: tc, duplicate: true });
  });

  it('a retried try-lock never hands out a grant its lease got by another call, nor re-asserts it', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const t = h.acquire('x', a).token;
    h.acquire('x', b, false, 'try');
    const queuedAt = h.next;
    h.acquire('x', b, true, 'wait');
    const tb = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: t });
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: b, holderToken: tb, token: 0 });
    // The wait's cleanup still finds its grant unclaimed: the try-lock's replay handed nobody the lock.
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: b, abandonedAtIndex: queuedAt, acquireRequestId: 'wait' })).to.include({
      released: true,
      heldToken: tb,
    });
  });

  it('a try-lock answered "queued" (its lease waits by another call) replays the truth, never afresh', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const t = h.acquire('x', a).token;
    h.acquire('x', b, true);
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'queued', position: 1 });
    h.ok({ type: 'CancelWait', name: 'x', leaseId: b });
    h.ok({ type: 'Release', name: 'x', token: t });
    // Free now: a fresh try-lock would take it; the retry of the old one must not.
    expect(h.acquire('x', b, false, 'try')).to.include({ status: 'held', holderLeaseId: 0, duplicate: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a retried waiting Acquire follows the wait: queued (current position) while waiting, acquired once granted, ended once released', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const c = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('x', b, true);
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'queued', position: 2 });
    h.ok({ type: 'CancelWait', name: 'x', leaseId: b });
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'queued', position: 1, duplicate: true });
    const idx = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: ta });
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'acquired', token: idx, duplicate: true });
    h.ok({ type: 'Release', name: 'x', token: idx });
    // Settled: after the release the retry is told the grant ended, and does not take the lock again.
    expect(h.acquire('x', c, true, 'w')).to.include({ status: 'ended', endedToken: idx, token: 0, duplicate: true });
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

  it('every request id answered "queued" by one wait is settled by its grant: none is granted twice', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('x', b, true, 'first');
    h.acquire('x', b, true, 'second');
    // A snapshot in between: the restored replica must settle both too.
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    for (const r of [h, copy]) {
      const idx = tok(r.next);
      r.ok({ type: 'Release', name: 'x', token: ta });
      expect(r.acquire('x', b, true, 'second')).to.include({ status: 'acquired', token: idx, duplicate: true });
      r.ok({ type: 'Release', name: 'x', token: idx });
      for (const rid of ['first', 'second']) expect(r.acquire('x', b, true, rid)).to.include({ status: 'ended', endedToken: idx, duplicate: true });
      expect(r.sm.inspectLock('x').held).to.equal(false);
    }
    expect(copy.sm.snapshot()).to.deep.equal(h.sm.snapshot());
  });

  it('every request id of a wait that ends without a grant is forgotten: a retry is a new wait', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    h.acquire('x', a);
    h.acquire('x', b, true, 'first');
    h.acquire('x', b, true, 'second');
    h.ok({ type: 'CancelWait', name: 'x', leaseId: b });
    expect(h.acquire('x', b, true, 'second')).to.include({ status: 'queued', duplicate: false });
    expect(h.lastEvents()).to.deep.equal([['QUEUED', 'x', b, 0]]);
    expect(h.acquire('x', b, true, 'first')).to.include({ status: 'queued', duplicate: false });
  });

  it('failures are not remembered: a retry after the cause is gone applies', () => {
    const h = new Harness();
    expect(h.fail({ type: 'Grant', ttlMs: 5, marginMs: 0, requestId: 'bad' })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.ok({ type: 'Grant', ttlMs: 500, marginMs: 0, requestId: 'bad' }).duplicate).to.equal(false);
  });

  it(`forgets the oldest request id beyond ${DEDUP_CAPACITY} (bounded, FIFO, deterministic)`, function () {
    this.timeout(30_000);
    const sm = new LockStateMachine();
    const grant = (i: number, rid: string) => sm.apply({ index: i, data: encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: rid }) }).result;
    let index = 0;
    for (let i = 0; i <= DEDUP_CAPACITY; i++) grant(++index, `r${i}`); // r0 .. r10000: one too many
    expect(grant(++index, 'r1')).to.include({ leaseId: 2, duplicate: true }); // still remembered
    expect(grant(++index, 'r0')).to.include({ leaseId: index, duplicate: false }); // forgotten: applied again
    sm.checkInvariants();
  });
});
