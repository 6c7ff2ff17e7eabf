// The leader's lease clock against a real state machine, with a stand-in for the Raft driver that
// applies each proposal at once (or loses, refuses or holds it on demand): Ticks stay bounded, unknown
// leases never enter one, and nothing refused or lost stops the clock.
import { expect } from 'chai';
import pino from 'pino';
import { LeaseClock } from '../../../src/lockd/node/lease-clock.js';
import type { NodeContext } from '../../../src/lockd/node/node-context.js';
import { InvariantError, LockStateMachine, MAX_TICK_RENEWALS, encodeCommand } from '../../../src/lockd/state-machine/index.js';
import { FakeDriver } from './fake-driver.js';
import { waitFor } from '../../support/process-cluster.js';

const silent = pino({ level: 'silent' });
const TIMING = { leaseTickMs: 5, maxElapsedMs: 10 };

describe('lease: the leader’s lease clock', function () {
  this.timeout(30_000);
  const clocks: LeaseClock[] = [];
  afterEach(() => clocks.splice(0).forEach((c) => c.close()));

  function setup(): { driver: FakeDriver; clock: LeaseClock; sm: LockStateMachine } {
    const sm = new LockStateMachine();
    const driver = new FakeDriver(sm);
    const ctx = { config: {}, driver, stateMachine: sm, logger: silent } as unknown as NodeContext;
    const clock = new LeaseClock(ctx, TIMING);
    clock.run();
    clocks.push(clock);
    return { driver, clock, sm };
  }

  it(`carries at most ${MAX_TICK_RENEWALS} distinct leases per Tick, rolls the rest into the next ones, while the clock keeps advancing`, async () => {
    const { driver, clock, sm } = setup();
    const ids = driver.grant(2 * MAX_TICK_RENEWALS + 500, 3_600_000);
    driver.elect(1);
    driver.apply(new Uint8Array(0)); // the new leader's no-op: caught up
    const answers = new Map<number, number[]>();
    for (const id of [...ids, ...ids]) clock.renew(id, (ttl) => answers.set(id, [...(answers.get(id) ?? []), ttl]));
    expect(clock.queued).to.equal(ids.length); // each lease queued once, its second keepalive shares the answer
    await waitFor(
      'every keepalive answered',
      () => (answers.size === ids.length && [...answers.values()].every((a) => a.length === 2) ? true : undefined),
      20_000,
      5,
    );
    const carrying = driver.ticks.filter((t) => t.renewed.length > 0);
    expect(carrying.map((t) => t.renewed.length)).to.deep.equal([MAX_TICK_RENEWALS, MAX_TICK_RENEWALS, 500]);
    expect(new Set(carrying.flatMap((t) => t.renewed)).size).to.equal(ids.length); // no lease twice, none left out
    expect(carrying.flatMap((t) => t.renewed)).to.deep.equal(ids); // in arrival order
    for (const a of answers.values()) expect(a).to.deep.equal([3_600_000, 3_600_000]);
    expect(
      carrying.every((t) => t.elapsedMs > 0),
      'every Tick counted time',
    ).to.equal(true);
    expect(sm.now).to.be.at.least(carrying.reduce((n, t) => n + t.elapsedMs, 0));
  });

  it('answers a lease the state does not hold with ttl 0 (at once at or below the applied index, else after one read barrier), and never puts it in a Tick', async () => {
    const { driver, clock, sm } = setup();
    const ended = driver.grant(200, 60_000);
    const [live] = driver.grant(1, 60_000);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    for (const id of ended) driver.apply(encodeCommand({ type: 'Revoke', leaseId: id }));
    const applied = sm.appliedIndex;
    const got: number[] = [];
    // The committed log says these are gone: ended leases, and indexes that were never Grants.
    for (let id = 1; id <= applied; id++) if (id !== live) expect(clock.renew(id, (ttl) => got.push(ttl))).to.equal(true);
    expect(got).to.have.length(applied - 1);
    expect(new Set(got)).to.deep.equal(new Set([0]));
    // Beyond the applied index only a ReadIndex can say so: one for the whole flood.
    const later: number[] = [];
    for (let id = 1_000_000; id < 1_050_000; id++) expect(clock.renew(id, (ttl) => later.push(ttl))).to.equal(true);
    expect(later).to.have.length(0);
    await waitFor('the flood answered', () => (later.length === 50_000 ? true : undefined), 5000, 5);
    expect(new Set(later)).to.deep.equal(new Set([0]));
    expect(driver.reads).to.equal(2); // one for the first arrival, one for all that came while it ran
    expect(clock.queued).to.equal(0);
    let liveTtl = -1;
    clock.renew(live, (ttl) => (liveTtl = ttl));
    await waitFor('the live lease renewed', () => (liveTtl >= 0 ? true : undefined), 5000, 5);
    expect(liveTtl).to.equal(60_000);
    expect(driver.ticks.flatMap((t) => t.renewed)).to.deep.equal([live]);
  });

  it('before the new leader has applied an entry of its term, an unknown lease waits; that entry answers it ttl 0', () => {
    const { driver, clock } = setup();
    const [live] = driver.grant(1, 60_000);
    driver.mode = 'hold'; // no Tick lands meanwhile
    driver.elect(1);
    const got = new Map<number, number>();
    clock.renew(424242, (ttl) => got.set(424242, ttl));
    clock.renew(live, (ttl) => got.set(live, ttl));
    expect(got.size).to.equal(0); // the state may still lack a lease granted under the old leader
    driver.apply(new Uint8Array(0)); // the no-op of term 1: everything committed before is applied
    expect([...got]).to.deep.equal([[424242, 0]]);
    expect(clock.queued).to.equal(1); // the live one waits for its Tick
  });

  it('a Tick that is lost or refused stops nothing: its renewals ride in the next Tick, which advances the clock', async () => {
    const { driver, clock, sm } = setup();
    const [a] = driver.grant(1, 60_000);
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    driver.next = ['lose', 'refuse'];
    let ttl = -1;
    clock.renew(a, (t) => (ttl = t));
    await waitFor('the renewal answered', () => (ttl >= 0 ? true : undefined), 5000, 5);
    expect(ttl).to.equal(60_000);
    expect(driver.ticks.slice(0, 3).map((t) => t.renewed)).to.deep.equal([[a], [a], [a]]);
    const now = sm.now;
    await waitFor('the clock to go on', () => (sm.now > now ? true : undefined), 5000, 5);
  });

  it('refuses to start with a timing whose Ticks the state machine would refuse', () => {
    const sm = new LockStateMachine();
    const ctx = { config: {}, driver: new FakeDriver(sm), stateMachine: sm, logger: silent } as unknown as NodeContext;
    expect(() => new LeaseClock(ctx, { leaseTickMs: 60_000, maxElapsedMs: 120_000 })).to.throw(InvariantError, /lease clock invariant.*elapsed_ms/);
  });

  it('states the cluster version in a Tick only once every member runs 0.2.0 or newer, once per change and term', async () => {
    const sm = new LockStateMachine();
    const driver = new FakeDriver(sm);
    let cv = { version: '0.1.0', complete: true };
    const ctx = { config: {}, driver, stateMachine: sm, logger: silent, clusterVersion: () => cv } as unknown as NodeContext;
    const clock = new LeaseClock(ctx, TIMING);
    clock.run();
    clocks.push(clock);
    driver.grant(1, 3_600_000); // a live lease: the clock ticks
    driver.elect(1);
    driver.apply(new Uint8Array(0));
    await waitFor('Ticks at 0.1.0', () => (driver.ticks.length >= 5 ? true : undefined), 5000, 2);
    cv = { version: '0.2.0', complete: false }; // one member not heard from yet
    const incomplete = driver.ticks.length;
    await waitFor('more Ticks', () => (driver.ticks.length >= incomplete + 5 ? true : undefined), 5000, 2);
    expect(driver.ticks.filter((t) => t.clusterVersion !== undefined)).to.have.length(0);
    cv = { version: '0.2.0', complete: true };
    const open = driver.ticks.length;
    await waitFor('Ticks after the gate opened', () => (driver.ticks.length >= open + 5 ? true : undefined), 5000, 2);
    expect(driver.ticks.map((t) => t.clusterVersion).filter((v) => v !== undefined)).to.deep.equal(['0.2.0']);
    driver.elect(2); // a new term states it again
    driver.apply(new Uint8Array(0));
    const term2 = driver.ticks.length;
    await waitFor('Ticks of term 2', () => (driver.ticks.length >= term2 + 5 ? true : undefined), 5000, 2);
    expect(driver.ticks.map((t) => t.clusterVersion).filter((v) => v !== undefined)).to.deep.equal(['0.2.0', '0.2.0']);
  });
});
