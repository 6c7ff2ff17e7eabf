// A renewal does not wait for the lease clock's interval: it prompts a Tick at once, coalesced (one Tick
// in flight; renewals arriving meanwhile ride the next), never closer than RENEWAL_TICK_GAP_MS to the
// previous one, and still answered from the committed Tick's logical time with the full margin.
// A hand-driven clock: the interval timer never fires by itself, so every Tick here is a prompted one.
import { expect } from 'chai';
import pino from 'pino';
import { LeaseClock, RENEWAL_TICK_GAP_MS } from '../../../src/lockd/node/lease-clock.js';
import type { Clock, ClockTimer } from '../../../src/lockd/node/clock.js';
import type { NodeContext } from '../../../src/lockd/node/node-context.js';
import { LockStateMachine, MAX_TICK_EXPIRY_WORK, MAX_TICK_RENEWALS, leaderMargins, driftAllowanceMs } from '../../../src/lockd/state-machine/index.js';
import { FakeDriver } from './fake-driver.js';

const silent = pino({ level: 'silent' });
const TIMING = { leaseTickMs: 100, maxElapsedMs: 200 };
const TTL = 60_000;

/** monoMs moves only when the test says; `after` timers fire from advance(); `every` never fires. */
class HandClock implements Clock {
  t = 1000;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  wallMs = (): number => this.t;
  monoMs = (): number => this.t;
  after(ms: number, fn: () => void): ClockTimer {
    const e = { at: this.t + ms, fn, live: true };
    this.timers.push(e);
    const h: ClockTimer = { clear: () => void (e.live = false), unref: () => h };
    return h;
  }
  every(): ClockTimer {
    const h: ClockTimer = { clear: () => undefined, unref: () => h };
    return h;
  }
  soon(fn: () => void): void {
    setImmediate(fn);
  }
  /** Time moves on by `ms`; the timers now due run. */
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((e) => e.live && e.at <= this.t);
    this.timers = this.timers.filter((e) => !due.includes(e));
    for (const e of due) e.fn();
  }
  get waiting(): number {
    return this.timers.filter((e) => e.live).length;
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn();
}

describe('lease: a renewal prompts a Tick at once', function () {
  const clocks: LeaseClock[] = [];
  afterEach(() => clocks.splice(0).forEach((c) => c.close()));

  function setup(): { driver: FakeDriver; clock: LeaseClock; sm: LockStateMachine; hand: HandClock } {
    const sm = new LockStateMachine();
    const driver = new FakeDriver(sm);
    const hand = new HandClock();
    const ctx = { config: {}, driver, stateMachine: sm, logger: silent, clock: hand } as unknown as NodeContext;
    const clock = new LeaseClock(ctx, TIMING);
    clock.run();
    clocks.push(clock);
    return { driver, clock, sm, hand };
  }

  it('answers a keepalive from its own Tick without the interval firing, from that Tick’s logical time plus the full margin', async () => {
    const { driver, clock, sm, hand } = setup();
    const [a] = driver.grant(1, TTL);
    driver.elect(1);
    driver.apply(new Uint8Array(0)); // the no-op: caught up
    hand.advance(37); // 37 ms of real time since the election, not yet counted
    let ttl = -1;
    clock.renew(a, (t) => (ttl = t));
    expect(driver.ticks, 'not inside renew(): after the current input').to.have.length(0);
    await turns(3);
    expect(driver.ticks.map((t) => t.renewed)).to.deep.equal([[a]]);
    expect(ttl).to.equal(TTL);
    // The Tick counted the time measured on the monotonic clock, no more; the renewal's deadline is
    // that logical time + ttl + margin, exactly as an interval Tick would have set it.
    expect(driver.ticks[0].elapsedMs).to.equal(37);
    const { marginMs, driftPpm } = leaderMargins(TIMING.maxElapsedMs);
    expect(driver.ticks[0].marginMs).to.equal(marginMs);
    expect(sm.timeToLive(a)?.remainingMs).to.equal(TTL + marginMs + driftAllowanceMs(TTL, driftPpm));
  });

  it('one Tick in flight: keepalives of one turn share a Tick, those arriving meanwhile ride the next, after the gap', async () => {
    const { driver, clock, hand } = setup();
    const ids = driver.grant(5, TTL);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    driver.mode = 'hold';
    const answered: number[] = [];
    const renew = (id: number) => clock.renew(id, () => answered.push(id));
    renew(ids[0]);
    renew(ids[1]);
    await turns(3);
    expect(driver.ticks.map((t) => t.renewed)).to.deep.equal([[ids[0], ids[1]]]);
    renew(ids[2]);
    renew(ids[3]);
    renew(ids[2]); // a second keepalive of a queued lease shares its answer
    await turns(3);
    expect(driver.ticks, 'no second Tick while one is in flight').to.have.length(1);
    driver.mode = 'apply';
    driver.held.shift()!();
    await turns(3);
    expect(answered).to.deep.equal([ids[0], ids[1]]);
    // Applied at once: the next Tick waits for the gap since the previous proposal.
    expect(driver.ticks).to.have.length(1);
    expect(hand.waiting).to.equal(1);
    hand.advance(RENEWAL_TICK_GAP_MS - 1);
    await turns(3);
    expect(driver.ticks).to.have.length(1);
    hand.advance(1);
    await turns(3);
    expect(driver.ticks.map((t) => t.renewed)).to.deep.equal([
      [ids[0], ids[1]],
      [ids[2], ids[3]],
    ]);
    expect(answered).to.deep.equal([ids[0], ids[1], ids[2], ids[2], ids[3]]); // a lease's keepalives answered together
  });

  it(`many keepalives while a Tick is in flight make exactly one more Tick (at most ${MAX_TICK_RENEWALS} leases; the rest the one after)`, async () => {
    const { driver, clock, hand } = setup();
    const over = 100; // beyond what one Tick may carry
    const ids = driver.grant(MAX_TICK_RENEWALS + over + 1, TTL);
    const [first, ...rest] = ids;
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    driver.mode = 'hold';
    let answered = 0;
    clock.renew(first, () => answered++);
    await turns(3);
    expect(driver.ticks, 'the first keepalive’s Tick, held in flight').to.have.length(1);
    // Every other lease renews (some twice) over many event-loop turns and much clock time.
    for (let k = 0; k < rest.length; k += 1000) {
      for (const id of rest.slice(k, k + 1000)) clock.renew(id, () => answered++);
      clock.renew(rest[k], () => answered++);
      await turns(2);
      hand.advance(RENEWAL_TICK_GAP_MS);
    }
    expect(driver.ticks, 'nothing proposed while one is in flight').to.have.length(1);
    expect(hand.waiting, 'and nothing scheduled either').to.equal(0);
    driver.mode = 'apply';
    driver.held.shift()!();
    await turns(3);
    // The gap since that Tick's proposal has long passed: the next goes at once, with the oldest
    // MAX_TICK_RENEWALS arrivals, and nothing else is proposed while it is in flight.
    expect(driver.ticks.map((t) => t.renewed.length)).to.deep.equal([1, MAX_TICK_RENEWALS]);
    // It was applied at once; the rest ride the one after, the gap after it.
    hand.advance(RENEWAL_TICK_GAP_MS);
    await turns(3);
    expect(driver.ticks.map((t) => t.renewed.length)).to.deep.equal([1, MAX_TICK_RENEWALS, over]);
    expect(driver.ticks[1].renewed).to.deep.equal(rest.slice(0, MAX_TICK_RENEWALS));
    expect(driver.ticks[2].renewed).to.deep.equal(rest.slice(MAX_TICK_RENEWALS));
    expect(answered).to.equal(1 + rest.length + Math.ceil(rest.length / 1000));
    // Nothing is queued now: no further Tick until a keepalive comes (or the interval fires).
    hand.advance(RENEWAL_TICK_GAP_MS);
    await turns(3);
    expect(driver.ticks).to.have.length(3);
    expect(hand.waiting).to.equal(0);
  });

  it(`a keepalive flood costs at most one Tick per ${RENEWAL_TICK_GAP_MS} ms`, async () => {
    const { driver, clock, hand } = setup();
    const ids = driver.grant(50, TTL);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    let answered = 0;
    const start = hand.t;
    // 1,000 keepalives over 100 ms of clock time, ten every 1 ms.
    for (let ms = 0; ms < 100; ms++) {
      for (let k = 0; k < 10; k++) clock.renew(ids[(ms * 10 + k) % ids.length], () => answered++);
      await turns(3);
      hand.advance(1);
    }
    hand.advance(RENEWAL_TICK_GAP_MS);
    await turns(3);
    expect(answered).to.equal(1000);
    expect(driver.ticks.length).to.be.at.most(Math.ceil((hand.t - start) / RENEWAL_TICK_GAP_MS) + 1);
    expect(driver.ticks.length).to.be.at.least(10); // and yet they did not wait for the 100 ms interval
  });

  it('a stepped-down leader proposes nothing for the renewals it dropped', async () => {
    const { driver, clock } = setup();
    const [a] = driver.grant(1, TTL);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    let ttl = -1;
    clock.renew(a, (t) => (ttl = t));
    clock.close();
    await turns(3);
    expect(driver.ticks).to.have.length(0);
    expect(ttl).to.equal(-1); // dropped unanswered: the client resends to the new leader
  });

  it('a cleanup backlog left by a bounded Tick prompts the next Ticks back to back, not one per interval', async () => {
    const { driver, clock, sm, hand } = setup();
    const doomed = driver.grant(3 * MAX_TICK_EXPIRY_WORK, 500);
    const [keeper] = driver.grant(1, TTL);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    // Five renewals of a kept lease prompt five Ticks (each counts at most 200 ms), which pass the
    // doomed leases' deadlines; no interval fires (HandClock.every never does).
    for (let i = 0; i < 5; i++) {
      hand.advance(200);
      clock.renew(keeper, () => undefined);
      await turns(3);
    }
    // Nothing is queued now: only the backlog can ask for more Ticks.
    for (let i = 0; i < 6; i++) {
      hand.advance(RENEWAL_TICK_GAP_MS);
      await turns(3);
    }
    expect(sm.cleanupPending()).to.equal(false);
    expect(doomed.filter((id) => sm.hasLease(id))).to.deep.equal([]);
    expect(driver.ticks.length, 'Ticks beyond the five renewals: prompted by the backlog').to.be.above(5);
    for (const t of driver.ticks) expect(t.expiryWork).to.equal(MAX_TICK_EXPIRY_WORK);
    sm.checkInvariants();
  });
});
