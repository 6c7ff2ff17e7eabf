// The lease deadline margin: the tick cap plus a drift allowance of DRIFT_BOUND_PPM of the TTL, carried
// in the Grant and Tick entries (replicas never read configuration), and what it guarantees a client.
import { expect } from 'chai';
import { DRIFT_BOUND_PPM, driftAllowanceMs, leaderMargins, leaseDeadline } from '../../../src/lockd/state-machine/deadline-margin.js';
import { MAX_DRIFT_PPM, MAX_TTL_MS, MIN_TTL_MS, decodeCommand, encodeCommand, validateCommand } from '../../../src/lockd/state-machine/index.js';
import { Harness } from '../state-machine/harness.js';

describe('lease: the deadline margin covers a documented clock-drift bound', () => {
  it('a leader carries a 200 ms tick cap and 1,000 ppm of the TTL: 3.8 s at 1 h, 201 ms at 1 s', () => {
    expect(DRIFT_BOUND_PPM).to.equal(1000);
    expect(leaderMargins(200)).to.deep.equal({ marginMs: 200, driftPpm: 1000 });
    expect(leaseDeadline(0, 3_600_000, 200, 1000)).to.equal(3_603_800);
    expect(leaseDeadline(500, 1000, 200, 1000)).to.equal(1701);
    expect(driftAllowanceMs(MIN_TTL_MS, 1000)).to.equal(1); // rounded up, never down to 0
  });

  it('a client that trusts its lease for ttl on a clock up to 1,000 ppm slower than the leader’s stops before the cluster expires it', () => {
    // The worst case of docs/design.md §4: the next Tick counts up to marginMs of time from before the entry, and
    // the leader's clock runs fast by r, so the deadline is reached after (deadline - now - marginMs) / (1 + r)
    // of the client's time. That must be at least the ttl the client trusts.
    const { marginMs, driftPpm } = leaderMargins(200);
    for (const ttl of [MIN_TTL_MS, 1000, 10_000, 60_000, 600_000, MAX_TTL_MS]) {
      const lasts = (leaseDeadline(0, ttl, marginMs, driftPpm) - marginMs) / (1 + DRIFT_BOUND_PPM / 1e6);
      expect(lasts, `ttl ${ttl}`).to.be.at.least(ttl);
    }
    // The old margin alone (no drift allowance) fell short at 1 h already at 100 ppm.
    expect((leaseDeadline(0, MAX_TTL_MS, 200, 0) - 200) / (1 + 100 / 1e6)).to.be.below(MAX_TTL_MS);
  });

  it('Grant and Tick apply the drift allowance from the entry: remaining time just after is ttl + margin + allowance', () => {
    const h = new Harness();
    const id = h.ok({ type: 'Grant', ttlMs: MAX_TTL_MS, marginMs: 200, driftPpm: 1000 }).leaseId;
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(3_603_800);
    h.ok({ type: 'Tick', elapsedMs: 60_000, marginMs: 200, driftPpm: 1000, renewed: [id] });
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(3_603_800);
    h.ok({ type: 'Tick', elapsedMs: 1000, marginMs: 200, driftPpm: 0, renewed: [id] }); // never shortened
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(3_602_800);
  });

  it('an entry without driftPpm (written before it existed) keeps the old deadline, and encodes as before', () => {
    const h = new Harness();
    const id = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 200 }).leaseId;
    expect(h.sm.timeToLive(id)?.remainingMs).to.equal(1200);
    const old = encodeCommand({ type: 'Tick', elapsedMs: 1, marginMs: 200, renewed: [2] });
    expect(encodeCommand({ type: 'Tick', elapsedMs: 1, marginMs: 200, driftPpm: 0, renewed: [2] })).to.deep.equal(old);
    const cmd = { type: 'Grant', ttlMs: 1000, marginMs: 200, driftPpm: 1000, requestId: 'r' } as const;
    expect(decodeCommand(encodeCommand(cmd))).to.deep.equal(cmd);
  });

  it(`refuses a drift bound outside [0, ${MAX_DRIFT_PPM}] ppm or not an integer`, () => {
    for (const driftPpm of [-1, MAX_DRIFT_PPM + 1, 1.5]) {
      expect(validateCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0, driftPpm })?.message, String(driftPpm)).to.match(/drift_ppm/);
      expect(validateCommand({ type: 'Tick', elapsedMs: 0, marginMs: 0, driftPpm, renewed: [] })?.message).to.match(/drift_ppm/);
    }
    expect(validateCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0, driftPpm: MAX_DRIFT_PPM })).to.equal(undefined);
  });
});
