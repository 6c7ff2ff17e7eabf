// An election is not a lock: one leader whatever else is sent; every change of a lock is an event;
// a retry says the mode it got; a cleanup CancelWait needs the abandoned Acquire's request id.

import { expect } from 'chai';
import type { AcquireCommand } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

const campaign = (h: Harness, name: string, leaseId: number, o: Partial<AcquireCommand> = {}) =>
  h.apply({ type: 'Acquire', name, leaseId, wait: true, value: `v${leaseId}`, election: true, ...o }).result!;

describe('state machine: an election has one leader', () => {
  it('refuses SetPermits, a Lock.Acquire (shared, a downgrade, permits) on an election, and a Campaign on a lock', () => {
    const h = new Harness();
    const [a, b, c] = [h.grant(), h.grant(), h.grant()];
    const ta = (campaign(h, 'e', a) as { token: number }).token;
    campaign(h, 'e', b);
    campaign(h, 'e', c);
    const f = h.fail({ type: 'SetPermits', name: 'e', permits: 3 });
    expect(f).to.include({ error: 'FAILED_PRECONDITION' });
    expect(f.message).to.contain('election');
    expect(h.fail({ type: 'Acquire', name: 'e', leaseId: a, wait: false, shared: true })).to.include({ error: 'FAILED_PRECONDITION' });
    expect(h.fail({ type: 'Acquire', name: 'e', leaseId: b, wait: true, shared: true }).message).to.contain('is an election');
    expect(h.fail({ type: 'Acquire', name: 'e', leaseId: a, wait: false })).to.include({ error: 'FAILED_PRECONDITION' });
    const v = h.sm.inspectLock('e');
    expect(v.holders.map((x) => [x.leaseId, x.shared])).to.deep.equal([[a, false]]);
    expect(v).to.include({ permits: 1, election: true });
    h.ok({ type: 'Proclaim', name: 'e', token: ta, value: 'still a' });
    // The converse: a lock's name is not an election.
    h.acquire('l', a);
    expect((campaign(h, 'l', b) as { message: string }).message).to.contain('not an election');
    expect(h.fail({ type: 'Proclaim', name: 'l', token: h.sm.inspectLock('l').token, value: 'x' }).message).to.contain('not an election');
    // Release (Resign) of the leadership works through either service: the next campaigner leads.
    h.ok({ type: 'Release', name: 'e', token: ta });
    expect(h.sm.inspectLock('e').holders.map((x) => x.leaseId)).to.deep.equal([b]);
  });

  it("Proclaim with a stale token names the leader's token, not its own", () => {
    const h = new Harness();
    const [a, b] = [h.grant(), h.grant()];
    const ta = (campaign(h, 'e', a) as { token: number }).token;
    campaign(h, 'e', b);
    h.ok({ type: 'Release', name: 'e', token: ta });
    const tb = h.sm.inspectLock('e').token;
    const m = h.fail({ type: 'Proclaim', name: 'e', token: ta, value: 'x' }).message;
    expect(m).to.contain(`fencing token ${ta} is not the leadership`).and.contain(`lease ${b} leads it under token ${tb}`);
  });
});

describe('state machine: every change of a lock is an event', () => {
  it('a downgrade emits DOWNGRADED; SetPermits with no waiters emits PERMITS_CHANGED', () => {
    const h = new Harness();
    const [a, b] = [h.grant(), h.grant()];
    const t = h.acquire('rw', a).token;
    h.ok({ type: 'Acquire', name: 'rw', leaseId: a, wait: false, shared: true });
    expect(h.lastEvents()).to.deep.equal([['DOWNGRADED', 'rw', a, t]]);
    h.acquire('s', b);
    h.ok({ type: 'SetPermits', name: 's', permits: 3 });
    expect(h.lastEvents()).to.deep.equal([['PERMITS_CHANGED', 's', 0, 0]]);
    h.ok({ type: 'SetPermits', name: 's', permits: 3 });
    expect(h.lastEvents()).to.deep.equal([]); // no change, no event
  });
});

describe('state machine: a retry reports the mode it got', () => {
  it('a retried exclusive Acquire after a downgrade answers acquired, same token, shared = true', () => {
    const h = new Harness();
    const a = h.grant();
    const first = h.ok({ type: 'Acquire', name: 'rw', leaseId: a, wait: true, requestId: 'x1' });
    expect(first).to.include({ status: 'acquired', shared: false });
    h.ok({ type: 'Acquire', name: 'rw', leaseId: a, wait: false, shared: true });
    expect(h.ok({ type: 'Acquire', name: 'rw', leaseId: a, wait: true, requestId: 'x1' })).to.include({
      status: 'acquired',
      token: first.token,
      shared: true,
      duplicate: true,
    });
  });
});

describe('state machine: a handed grant is not cancelled by a third party', () => {
  it("a cleanup naming the right index but not the abandoned Acquire's request id takes nothing back", () => {
    const h = new Harness();
    const [holder, waiter] = [h.grant(), h.grant()];
    const t = h.acquire('x', holder).token;
    const queuedAt = h.next;
    h.acquire('x', waiter, true, 'secret-rid');
    h.ok({ type: 'Release', name: 'x', token: t });
    const granted = h.sm.inspectLock('x').token;
    // What anyone can read: the lease id (Inspect) and the queued index (a QUEUED event).
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: waiter, abandonedAtIndex: queuedAt })).to.include({ released: false, heldToken: 0 });
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: waiter, abandonedAtIndex: queuedAt, acquireRequestId: 'guess' })).to.include({ released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: waiter, token: granted });
    // The server's own cleanup knows the request id: it still frees an abandoned grant.
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: waiter, abandonedAtIndex: queuedAt, acquireRequestId: 'secret-rid' })).to.include({
      released: true,
      heldToken: granted,
    });
  });
});
