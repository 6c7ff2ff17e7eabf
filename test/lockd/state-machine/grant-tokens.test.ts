// One grant, one token: holders granted by one entry (a Tick expiring holders, SetPermits growing,
// shared readers joining) each get a token of their own, so a stale holder's token never acts on a
// live holder's grant — not through a lock-bound fenced write, not through Release without lease_id.

import { expect } from 'chai';
import { grantToken, tokenIndex, MAX_TOKEN_INDEX, InvariantError } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** A semaphore of 2 held by h1, h2 (short leases) with w1, w2 waiting: one Tick expires both holders and grants both waiters. */
function twoGrantedByOneTick() {
  const h = new Harness();
  const [h1, h2] = [h.grant(100), h.grant(100)];
  const [w1, w2] = [h.grant(300), h.grant(10_000)];
  for (const l of [h1, h2]) h.ok({ type: 'Acquire', name: 'sem', leaseId: l, wait: false, permits: 2 });
  for (const l of [w1, w2]) h.ok({ type: 'Acquire', name: 'sem', leaseId: l, wait: true, permits: 2 });
  const at = h.next;
  h.tick(100, [w1, w2]);
  const granted = h.lastEvents().filter((e) => e[0] === 'ACQUIRED');
  expect(granted.map((e) => e[2])).to.deep.equal([w1, w2]);
  return { h, w1, w2, at, t1: granted[0][3], t2: granted[1][3] };
}

describe('state machine: every grant has a token of its own', () => {
  it('two waiters granted by one Tick get distinct tokens, both naming that entry', () => {
    const { at, t1, t2 } = twoGrantedByOneTick();
    expect(t1).to.not.equal(t2);
    expect([tokenIndex(t1), tokenIndex(t2)]).to.deep.equal([at, at]);
    expect(t2).to.be.greaterThan(t1);
  });

  it('waiters granted by SetPermits growing, and shared readers let in by a downgrade, get distinct tokens', () => {
    const h = new Harness();
    const [a, b, c] = [h.grant(), h.grant(), h.grant()];
    h.acquire('s', a);
    h.acquire('s', b, true);
    h.acquire('s', c, true);
    const at = h.next;
    h.ok({ type: 'SetPermits', name: 's', permits: 3 });
    expect(h.lastEvents()).to.deep.equal([
      ['PERMITS_CHANGED', 's', 0, 0],
      ['ACQUIRED', 's', b, grantToken(at, 0)],
      ['ACQUIRED', 's', c, grantToken(at, 1)],
    ]);

    const [w, r1, r2] = [h.grant(), h.grant(), h.grant()];
    const wToken = h.acquire('rw', w);
    for (const r of [r1, r2]) h.ok({ type: 'Acquire', name: 'rw', leaseId: r, wait: true, shared: true });
    const down = h.next;
    h.ok({ type: 'Acquire', name: 'rw', leaseId: w, wait: false, shared: true });
    expect(h.lastEvents()).to.deep.equal([
      ['DOWNGRADED', 'rw', w, (wToken as { token: number }).token],
      ['ACQUIRED', 'rw', r1, grantToken(down, 0)],
      ['ACQUIRED', 'rw', r2, grantToken(down, 1)],
    ]);
    const tokens = h.sm.inspectLock('rw').holders.map((x) => x.token);
    expect(new Set(tokens).size).to.equal(3);
  });

  it("a stale holder's token is refused by a lock-bound fenced write and by Release without lease_id; the live grant is untouched", () => {
    const { h, w1, w2, t1, t2 } = twoGrantedByOneTick();
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('w2'), token: t2, lock: 'sem' });
    h.tick(300, [w2]); // w1's lease (ttl 300, renewed at 100) expires; w2 holds on
    expect(h.sm.hasLease(w1)).to.equal(false);

    const f = h.fail({ type: 'FenceWrite', key: 'k', value: bytes('stale w1'), token: t1, lock: 'sem' });
    expect(f).to.include({ error: 'FAILED_PRECONDITION' });
    expect(f.message).to.contain(`fencing token ${t1} is not the current grant of lock sem`);
    expect(new TextDecoder().decode(h.sm.fenceRead('k').value)).to.equal('w2');

    expect(h.ok({ type: 'Release', name: 'sem', token: t1 })).to.deep.equal({ type: 'Release', ok: true, released: false });
    expect(h.ok({ type: 'Release', name: 'sem', token: t1, leaseId: w2 }).released).to.equal(false);
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('sem').holders.map((x) => [x.leaseId, x.token])).to.deep.equal([[w2, t2]]);
    // w2's own token still names w2's grant.
    expect(h.ok({ type: 'FenceWrite', key: 'k', value: bytes('w2 again'), token: t2, lock: 'sem' })).to.include({ highestToken: t2 });
  });

  it('the token bound is asserted: ordinals stay below 2^10 and indexes within 2^43 (tokens < 2^53)', () => {
    expect(grantToken(MAX_TOKEN_INDEX, 1023)).to.equal(Number.MAX_SAFE_INTEGER);
    expect(() => grantToken(7, 1024)).to.throw(InvariantError, /token-ordinal-bound/);
    expect(() => grantToken(MAX_TOKEN_INDEX + 1, 0)).to.throw(InvariantError, /token-index-range/);
    expect(tokenIndex(grantToken(123_456, 1023))).to.equal(123_456);
  });
});
