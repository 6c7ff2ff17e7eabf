// A leader that was deposed without knowing it yet (paused, partitioned, short of checkQuorum) must not
// tell a client that a live lease is gone. Its state lacks what the new leader granted since, so "the
// state does not hold it" proves nothing for an id beyond its applied index; ttl 0 means "you lost your
// locks" (lockctl run kills its command on it). Before the fix the clock answered every lease its state
// lacked with ttl 0 at once, from local state: the stale-leader class of etcd #15247.
import { expect } from 'chai';
import pino from 'pino';
import { CONFIRM_RETRY_MS, LeaseClock } from '../../../src/lockd/node/lease-clock.js';
import { NotLeaderError } from '../../../src/lockd/node/proposal-errors.js';
import type { NodeContext } from '../../../src/lockd/node/node-context.js';
import { LockStateMachine, encodeCommand } from '../../../src/lockd/state-machine/index.js';
import { waitFor } from '../../support/process-cluster.js';
import { FakeDriver } from './fake-driver.js';

const silent = pino({ level: 'silent' });

describe('lease: a deposed leader never reports a live lease gone', function () {
  this.timeout(30_000);
  const clocks: LeaseClock[] = [];
  afterEach(() => clocks.splice(0).forEach((c) => c.close()));

  function leader(): { driver: FakeDriver; clock: LeaseClock; sm: LockStateMachine } {
    const sm = new LockStateMachine();
    const driver = new FakeDriver(sm);
    const clock = new LeaseClock({ config: {}, driver, stateMachine: sm, logger: silent } as unknown as NodeContext, { leaseTickMs: 5, maxElapsedMs: 10 });
    clock.run();
    clocks.push(clock);
    driver.grant(3, 60_000);
    driver.elect(1);
    driver.apply(new Uint8Array(0)); // caught up
    return { driver, clock, sm };
  }

  it('a lease granted beyond its applied log (by a newer leader) is not answered while leadership is unconfirmed, and never ttl 0 once it is refused', async () => {
    const { driver, clock, sm } = leader();
    driver.readMode = 'hold'; // the quorum is elsewhere now: no ReadIndex completes
    const grantedElsewhere = sm.appliedIndex + 7;
    const got: number[] = [];
    expect(clock.renew(grantedElsewhere, (ttl) => got.push(ttl))).to.equal(true);
    expect(got, 'answered from local state alone').to.deep.equal([]);
    await new Promise((r) => setTimeout(r, 50)); // several lease-clock intervals
    expect(got).to.deep.equal([]);
    expect(driver.ticks.flatMap((t) => t.renewed)).not.to.include(grantedElsewhere); // nor carried in a Tick
    // The read barrier fails (this node learns it is not the leader): still nothing said.
    for (const r of driver.heldReads.splice(0)) r.reject(new NotLeaderError('n2'));
    await new Promise((r) => setTimeout(r, 20));
    expect(got).to.deep.equal([]);
    expect(clock.unconfirmedCount).to.equal(1); // waits for the next barrier (or the step-down that ends the stream)
  });

  it('a still-leading leader answers such a lease ttl 0 once a read barrier confirms it, and renews one whose Grant it applied meanwhile', async () => {
    const { driver, clock, sm } = leader();
    driver.readMode = 'hold';
    const never = sm.appliedIndex + 50;
    const next = sm.appliedIndex + 1; // the id the next Grant entry will get
    const got = new Map<number, number[]>();
    const note = (id: number) => (ttl: number) => got.set(id, [...(got.get(id) ?? []), ttl]);
    clock.renew(never, note(never));
    clock.renew(next, note(next));
    clock.renew(never, note(never)); // asked after the first barrier: it waits for the next one
    expect(clock.unconfirmedCount).to.equal(3);
    driver.apply(encodeCommand({ type: 'Grant', ttlMs: 5000, marginMs: 10 })); // lands at `next`
    expect(sm.hasLease(next)).to.equal(true);
    driver.readMode = 'resolve';
    for (const r of driver.heldReads.splice(0)) r.resolve();
    await waitFor('both answered', () => (got.get(never)?.length === 2 && got.get(next)?.length === 1 ? true : undefined), 5000, 5);
    expect(got.get(never)).to.deep.equal([0, 0]);
    expect(got.get(next)).to.deep.equal([5000]);
    expect(driver.ticks.flatMap((t) => t.renewed)).to.deep.equal([next]);
  });

  it(`a read barrier that never settles is asked again after ${CONFIRM_RETRY_MS} ms: the renewals are not stuck behind it`, async () => {
    const { driver, clock, sm } = leader();
    driver.readMode = 'hold';
    const id = sm.appliedIndex + 3;
    let ttl = -1;
    clock.renew(id, (t) => (ttl = t));
    expect(driver.reads).to.equal(1);
    driver.readMode = 'resolve'; // the first one stays held forever (its read context lost)
    await waitFor('answered by a second barrier', () => (ttl >= 0 ? true : undefined), CONFIRM_RETRY_MS + 5000, 10);
    expect(ttl).to.equal(0);
    expect(driver.reads).to.equal(2);
  });
});
