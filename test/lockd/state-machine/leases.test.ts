import { expect } from 'chai';
import { LockStateMachine, MAX_LEASES, InvariantError, encodeCommand } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

describe('state machine: leases on the replicated logical clock', () => {
  it('a lease id is the index of its Grant entry; the deadline is now + ttl + margin', () => {
    const h = new Harness();
    h.noop();
    h.tick(500);
    const out = h.apply({ type: 'Grant', ttlMs: 1000, marginMs: 200 });
    expect(out.result).to.deep.equal({ type: 'Grant', ok: true, leaseId: 3, ttlMs: 1000, duplicate: false });
    expect(h.lastEvents()).to.deep.equal([['LEASE_GRANTED', '', 3, 0]]);
    expect(h.sm.now).to.equal(500);
    expect(h.sm.timeToLive(3)).to.deep.equal({ leaseId: 3, grantedTtlMs: 1000, owner: 'anonymous', remainingMs: 1200, locks: [], waiting: [] });
  });

  // [elapsed steps after grant, expected alive after each]; ttl 1000 + margin 200 -> deadline at 1200.
  const expiryCases: [string, number[], boolean[]][] = [
    ['one step short of the deadline', [1199], [true]],
    ['exactly at the deadline (deadline <= now expires)', [1200], [false]],
    ['past it in one big step', [5000], [false]],
    ['in small steps', [400, 400, 399, 1], [true, true, true, false]],
  ];
  for (const [label, steps, alive] of expiryCases) {
    it(`expiry with margin: ${label}`, () => {
      const h = new Harness();
      const id = h.grant(1000, 200);
      steps.forEach((e, i) => {
        const r = h.tick(e);
        expect(h.sm.hasLease(id), `after step ${i}`).to.equal(alive[i]);
        expect(r.expired).to.deep.equal(alive[i] || (i > 0 && !alive[i - 1]) ? [] : [id]);
      });
    });
  }

  it('the expiring Tick emits LEASE_EXPIRED and later ticks report nothing', () => {
    const h = new Harness();
    const id = h.grant(100, 0);
    h.tick(100);
    expect(h.lastEvents()).to.deep.equal([['LEASE_EXPIRED', '', id, 0]]);
    expect(h.sm.timeToLive(id)).to.equal(undefined);
    expect(h.sm.hasLiveLeases()).to.equal(false);
  });

  it('Tick renews listed live leases to now + ttl + the Tick margin, and answers the keepalives', () => {
    const h = new Harness();
    const a = h.grant(1000, 0);
    const b = h.grant(2000, 0);
    const r = h.tick(900, [b, a, b], 150);
    expect(r).to.deep.equal({
      type: 'Tick',
      ok: true,
      now: 900,
      renewed: [
        { leaseId: b, ttlMs: 2000 },
        { leaseId: a, ttlMs: 1000 },
      ],
      gone: [],
      expired: [],
    });
    expect(h.sm.timeToLive(a)?.remainingMs).to.equal(1150);
    expect(h.sm.timeToLive(b)?.remainingMs).to.equal(2150);
    h.tick(1149);
    expect(h.sm.hasLease(a)).to.equal(true);
    h.tick(1);
    expect(h.sm.hasLease(a)).to.equal(false);
    expect(h.sm.hasLease(b)).to.equal(true);
  });

  it('a renewal carried by the Tick that crosses the deadline still counts (renew happens before expiry)', () => {
    const h = new Harness();
    const id = h.grant(1000, 0);
    const r = h.tick(1500, [id], 100);
    expect(r.renewed).to.deep.equal([{ leaseId: id, ttlMs: 1000 }]);
    expect(r.expired).to.deep.equal([]);
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(1100);
  });

  it('renewing an expired, revoked or unknown lease reports it gone (keepalive ttl 0) and creates nothing', () => {
    const h = new Harness();
    const expired = h.grant(100, 0);
    const revoked = h.grant(1000, 0);
    const live = h.grant(1000, 0);
    h.tick(100);
    h.ok({ type: 'Revoke', leaseId: revoked });
    const r = h.tick(10, [expired, revoked, 999, live]);
    expect(r.renewed).to.deep.equal([{ leaseId: live, ttlMs: 1000 }]);
    expect(r.gone).to.deep.equal([expired, revoked, 999]);
    expect(h.sm.listLeases().map((l) => l.leaseId)).to.deep.equal([live]);
  });

  it('a renewal never shortens a deadline (a smaller margin than the Grant had)', () => {
    const h = new Harness();
    const id = h.grant(1000, 5000);
    h.tick(10, [id], 0);
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(5990);
  });

  it('ticks expire several leases in one entry, in ascending id order', () => {
    const h = new Harness();
    const a = h.grant(300, 0);
    const b = h.grant(100, 0);
    const c = h.grant(200, 0);
    const keep = h.grant(1000, 0);
    const r = h.tick(300);
    expect(r.expired).to.deep.equal([a, b, c]);
    expect(h.lastEvents()).to.deep.equal([
      ['LEASE_EXPIRED', '', a, 0],
      ['LEASE_EXPIRED', '', b, 0],
      ['LEASE_EXPIRED', '', c, 0],
    ]);
    expect(h.sm.hasLiveLeases()).to.equal(true);
    expect(h.sm.listLeases().map((l) => l.leaseId)).to.deep.equal([keep]);
  });

  it('time stands still without Ticks: no-ops and other entries do not age leases', () => {
    const h = new Harness();
    const id = h.grant(100, 0);
    for (let i = 0; i < 20; i++) h.noop();
    h.acquire('x', id);
    expect(h.sm.now).to.equal(0);
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(100);
  });

  it('Revoke ends a live lease; an unknown or already ended one is NOT_FOUND', () => {
    const h = new Harness();
    const id = h.grant();
    expect(h.ok({ type: 'Revoke', leaseId: id })).to.deep.equal({ type: 'Revoke', ok: true, leaseId: id, releasedLocks: [] });
    expect(h.lastEvents()).to.deep.equal([['LEASE_REVOKED', '', id, 0]]);
    expect(h.fail({ type: 'Revoke', leaseId: id })).to.include({ error: 'NOT_FOUND' });
    expect(h.fail({ type: 'Revoke', leaseId: 12345 }).message).to.match(/lease 12345 not found/);
  });

  it('listLeases and timeToLive report exact remaining time and the locks held', () => {
    const h = new Harness();
    const a = h.grant(1000, 100);
    const b = h.grant(5000, 100);
    h.acquire('z', a);
    h.acquire('m', a);
    h.acquire('m', b, true);
    h.tick(250);
    expect(h.sm.listLeases()).to.deep.equal([
      { leaseId: a, grantedTtlMs: 1000, owner: 'anonymous', remainingMs: 850, locks: ['m', 'z'], waiting: [] },
      { leaseId: b, grantedTtlMs: 5000, owner: 'anonymous', remainingMs: 4850, locks: [], waiting: ['m'] },
    ]);
  });

  it('a Raft no-op (empty data) changes nothing but the applied index', () => {
    const h = new Harness();
    h.grant();
    const before = h.sm.snapshot();
    const out = h.noop();
    expect(out).to.deep.equal({ index: 2, result: undefined, events: [] });
    expect(h.sm.appliedIndex).to.equal(2);
    expect(h.sm.snapshot()).to.not.deep.equal(before); // appliedIndex is part of the state
  });

  it('asserts the applied index strictly increases', () => {
    const sm = new LockStateMachine();
    const data = encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    sm.apply({ index: 5, data });
    expect(() => sm.apply({ index: 5, data })).to.throw(InvariantError, /applied-index-increases/);
    expect(() => sm.apply({ index: 4, data })).to.throw(InvariantError);
    expect(() => sm.apply({ index: 0, data: new Uint8Array(0) })).to.throw(InvariantError);
  });

  it(`refuses more than ${MAX_LEASES} live leases with RESOURCE_EXHAUSTED`, function () {
    this.timeout(30_000);
    const sm = new LockStateMachine();
    const data = encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    for (let i = 1; i <= MAX_LEASES; i++) sm.apply({ index: i, data });
    const out = sm.apply({ index: MAX_LEASES + 1, data });
    expect(out.result).to.include({ ok: false, error: 'RESOURCE_EXHAUSTED' });
    expect(sm.listLeases()).to.have.length(MAX_LEASES);
  });
});
