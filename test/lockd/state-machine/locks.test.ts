import { expect } from 'chai';
import { LockStateMachine, MAX_WAITERS_PER_LOCK } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

describe('state machine: locks and fencing tokens', () => {
  it('acquires a free name with the granting entry’s first token (index × 2^10)', () => {
    const h = new Harness();
    const lease = h.grant();
    const out = h.apply({ type: 'Acquire', name: 'db', leaseId: lease, wait: false });
    expect(out.result).to.deep.equal({
      type: 'Acquire',
      ok: true,
      status: 'acquired',
      token: tok(2),
      shared: false,
      holderLeaseId: lease,
      holderToken: tok(2),
      position: 0,
      endedToken: 0,
      delayRemainingMs: 0,
      duplicate: false,
    });
    expect(h.lastEvents()).to.deep.equal([['ACQUIRED', 'db', lease, tok(2)]]);
    expect(h.sm.inspectLock('db')).to.deep.include({ held: true, token: tok(2), holderLeaseId: lease, waitingLeaseIds: [] });
  });

  it('inspecting a name nobody holds says so', () => {
    expect(new Harness().sm.inspectLock('nope')).to.deep.include({ held: false, token: 0, holderLeaseId: 0, waitingLeaseIds: [] });
  });

  it('try-lock (wait=false) on a held name answers at once with the holder, and queues nothing', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    h.acquire('db', a);
    expect(h.acquire('db', b, false)).to.include({ status: 'held', token: 0, holderLeaseId: a, holderToken: tok(3), position: 0 });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('db').waitingLeaseIds).to.deep.equal([]);
  });

  it('is idempotent for the holder: the same lease gets its existing token, nothing new happens', () => {
    const h = new Harness();
    const a = h.grant();
    h.acquire('db', a);
    for (const wait of [false, true]) {
      expect(h.acquire('db', a, wait)).to.include({ status: 'acquired', token: tok(2) });
      expect(h.lastEvents()).to.deep.equal([]);
    }
  });

  it('queues a waiter once, however often it asks', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    h.acquire('db', a);
    expect(h.acquire('db', b, true)).to.include({ status: 'queued', position: 1, holderLeaseId: a });
    expect(h.lastEvents()).to.deep.equal([['QUEUED', 'db', b, 0]]);
    expect(h.acquire('db', b, true)).to.include({ status: 'queued', position: 1 });
    expect(h.acquire('db', b, false)).to.include({ status: 'queued', position: 1 });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('db').waitingLeaseIds).to.deep.equal([b]);
  });

  it('grants five waiters in FIFO order, each by the entry that releases its predecessor, with increasing tokens', () => {
    const h = new Harness();
    const holder = h.grant();
    const waiters = [h.grant(), h.grant(), h.grant(), h.grant(), h.grant()];
    let token = h.acquire('q', holder).token;
    waiters.forEach((w, i) => expect(h.acquire('q', w, true)).to.include({ status: 'queued', position: i + 1 }));
    expect(h.sm.inspectLock('q').waitingLeaseIds).to.deep.equal(waiters);
    let prev = holder;
    const tokens = [token];
    for (const w of waiters) {
      const idx = tok(h.next);
      expect(h.ok({ type: 'Release', name: 'q', token }).released).to.equal(true);
      expect(h.lastEvents()).to.deep.equal([
        ['RELEASED', 'q', prev, token],
        ['ACQUIRED', 'q', w, idx],
      ]);
      expect(h.sm.inspectLock('q')).to.include({ held: true, token: idx, holderLeaseId: w });
      prev = w;
      token = idx;
      tokens.push(token);
    }
    expect(tokens).to.deep.equal([...tokens].sort((x, y) => x - y));
    expect(new Set(tokens).size).to.equal(6);
    h.ok({ type: 'Release', name: 'q', token });
    expect(h.sm.inspectLock('q').held).to.equal(false);
  });

  it('Release is compare-and-delete: a stale token changes nothing and says released=false', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const t1 = h.acquire('db', a).token;
    h.ok({ type: 'Release', name: 'db', token: t1 });
    const t2 = h.acquire('db', b).token;
    const before = h.sm.inspectLock('db');
    expect(h.ok({ type: 'Release', name: 'db', token: t1 })).to.deep.equal({ type: 'Release', ok: true, released: false });
    expect(h.ok({ type: 'Release', name: 'db', token: t2 + 100 }).released).to.equal(false);
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('db')).to.deep.equal(before);
  });

  it('Release of a name nobody holds is NOT_FOUND', () => {
    const h = new Harness();
    expect(h.fail({ type: 'Release', name: 'ghost', token: 1 })).to.include({ error: 'NOT_FOUND' });
  });

  it('Acquire for an unknown, expired or revoked lease is NOT_FOUND at that log position (grant-time validity)', () => {
    const h = new Harness();
    const expired = h.grant(100, 0);
    const revoked = h.grant();
    h.tick(100);
    h.ok({ type: 'Revoke', leaseId: revoked });
    for (const id of [expired, revoked, 777]) {
      for (const wait of [false, true]) {
        const f = h.fail({ type: 'Acquire', name: 'db', leaseId: id, wait });
        expect(f).to.include({ error: 'NOT_FOUND' });
        expect(f.message).to.match(new RegExp(`lease ${id} not found`));
      }
    }
    expect(h.sm.inspectLock('db').held).to.equal(false);
  });

  it('expiry hands the lock to the first waiter in the same Tick entry, with a token of that entry', () => {
    const h = new Harness();
    const holder = h.grant(200, 0);
    const w = h.grant(10_000, 0);
    const t0 = h.acquire('db', holder).token;
    h.acquire('db', w, true);
    h.tick(100, [w]);
    expect(h.sm.inspectLock('db').holderLeaseId).to.equal(holder);
    const idx = tok(h.next);
    const r = h.tick(100, [w]);
    expect(r.expired).to.deep.equal([holder]);
    expect(h.lastEvents()).to.deep.equal([
      ['EXPIRED', 'db', holder, t0],
      ['ACQUIRED', 'db', w, idx],
      ['LEASE_EXPIRED', '', holder, 0],
    ]);
    expect(h.sm.inspectLock('db')).to.deep.include({ held: true, token: idx, holderLeaseId: w, waitingLeaseIds: [] });
  });

  it('a waiter whose own lease expires is removed at once (WAITER_REMOVED) and the queue moves up', () => {
    const h = new Harness();
    const holder = h.grant(10_000, 0);
    const dying = h.grant(100, 0);
    const next = h.grant(10_000, 0);
    h.acquire('db', holder);
    h.acquire('db', dying, true);
    h.acquire('db', next, true);
    h.tick(100);
    expect(h.lastEvents()).to.deep.equal([
      ['WAITER_REMOVED', 'db', dying, 0],
      ['LEASE_EXPIRED', '', dying, 0],
    ]);
    expect(h.sm.inspectLock('db').waitingLeaseIds).to.deep.equal([next]);
  });

  it('when holder and first waiter expire in one entry, the lock goes to the next live waiter', () => {
    const h = new Harness();
    const holder = h.grant(100, 0);
    const w1 = h.grant(100, 0);
    const w2 = h.grant(10_000, 0);
    const t0 = h.acquire('db', holder).token;
    h.acquire('db', w1, true);
    h.acquire('db', w2, true);
    const idx = tok(h.next);
    h.tick(100);
    expect(h.lastEvents()).to.deep.equal([
      ['WAITER_REMOVED', 'db', w1, 0],
      ['EXPIRED', 'db', holder, t0],
      ['ACQUIRED', 'db', w2, idx],
      ['LEASE_EXPIRED', '', holder, 0],
      ['LEASE_EXPIRED', '', w1, 0],
    ]);
    expect(h.sm.inspectLock('db')).to.include({ holderLeaseId: w2, token: idx });
  });

  it('an expiring lease releases every lock it holds and every wait it has', () => {
    const h = new Harness();
    const dying = h.grant(100, 0);
    const other = h.grant(10_000, 0);
    h.acquire('a', dying);
    h.acquire('b', dying);
    h.acquire('c', other);
    h.acquire('c', dying, true);
    h.acquire('b', other, true);
    const idx = tok(h.next);
    h.tick(100);
    expect(h.sm.inspectLock('a').held).to.equal(false);
    expect(h.sm.inspectLock('b')).to.include({ holderLeaseId: other, token: idx });
    expect(h.sm.inspectLock('c').waitingLeaseIds).to.deep.equal([]);
    expect(h.sm.timeToLive(other)?.locks).to.deep.equal(['b', 'c']);
  });

  it('Revoke releases the lease’s locks (RELEASED), hands them on, and drops its waits', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('y', b);
    h.acquire('y', a, true);
    h.acquire('x', b, true);
    const idx = tok(h.next);
    expect(h.ok({ type: 'Revoke', leaseId: a }).releasedLocks).to.deep.equal(['x']);
    expect(h.lastEvents()).to.deep.equal([
      ['WAITER_REMOVED', 'y', a, 0],
      ['RELEASED', 'x', a, ta],
      ['ACQUIRED', 'x', b, idx],
      ['LEASE_REVOKED', '', a, 0],
    ]);
  });

  it('CancelWait takes a waiter out of the queue; cancelling what is not waiting changes nothing', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const c = h.grant();
    h.acquire('x', a);
    h.acquire('x', b, true);
    h.acquire('x', c, true);
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: b })).to.deep.equal({
      type: 'CancelWait',
      ok: true,
      removed: true,
      heldToken: 0,
      released: false,
    });
    expect(h.lastEvents()).to.deep.equal([['WAIT_CANCELLED', 'x', b, 0]]);
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([c]);
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: b }).removed).to.equal(false);
    expect(h.ok({ type: 'CancelWait', name: 'nope', leaseId: b }).removed).to.equal(false);
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: 999 }).removed).to.equal(false);
    expect(h.lastEvents()).to.deep.equal([]);
  });

  it('CancelWait that arrives after the grant reports the token so the service can release it', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    const ta = h.acquire('x', a).token;
    h.acquire('x', b, true);
    const idx = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: ta });
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: b })).to.include({ removed: false, heldToken: idx });
  });

  it(`refuses waiter number ${MAX_WAITERS_PER_LOCK + 1} with RESOURCE_EXHAUSTED`, () => {
    const h = new Harness(new LockStateMachine()); // the per-entry full sweep would make this quadratic
    h.acquire('hot', h.grant());
    for (let i = 0; i < MAX_WAITERS_PER_LOCK; i++) h.acquire('hot', h.grant(), true);
    const extra = h.grant();
    const f = h.fail({ type: 'Acquire', name: 'hot', leaseId: extra, wait: true });
    expect(f).to.include({ error: 'RESOURCE_EXHAUSTED' });
    expect(h.sm.inspectLock('hot').waitingLeaseIds).to.have.length(MAX_WAITERS_PER_LOCK);
    expect(h.sm.timeToLive(extra)?.waiting).to.deep.equal([]);
    // A try-lock is still answered: the bound is on the queue only.
    expect(h.acquire('hot', extra, false).status).to.equal('held');
    h.sm.checkInvariants();
  });

  it('tokens for one name strictly increase across release, expiry and re-creation', () => {
    const h = new Harness();
    const tokens: number[] = [];
    for (let round = 0; round < 5; round++) {
      const l = h.grant(100, 0);
      tokens.push(h.acquire('n', l).token);
      if (round % 2) h.ok({ type: 'Release', name: 'n', token: tokens[tokens.length - 1] });
      else h.tick(100);
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).to.be.greaterThan(tokens[i - 1]);
  });

  it('different names are independent', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    expect(h.acquire('one', a).status).to.equal('acquired');
    expect(h.acquire('two', b).status).to.equal('acquired');
    expect(h.acquire('ONE', b).status).to.equal('acquired');
  });
});
