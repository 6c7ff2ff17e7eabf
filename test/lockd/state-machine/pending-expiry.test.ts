// Bounded work per entry (docs/design.md §4): a Tick ends at most MAX_TICK_EXPIRY_WORK of the leases
// due, and a lease past its deadline whose cleanup is still pending is dead for every check.

import { expect } from 'chai';
import { LockStateMachine, MAX_TICK_EXPIRY_WORK, MAX_TICK_RENEWALS, encodeCommand, statesEqual, type Command } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

/** Entries applied to a replica, for replaying them on another. */
class Recorder extends Harness {
  readonly log: Command[] = [];
  override apply(cmd: Command) {
    this.log.push(cmd);
    return super.apply(cmd);
  }
}

/**
 * One live lease L (holds b), a live waiter W behind V on b, MAX_TICK_EXPIRY_WORK fillers and the
 * victim V, last by id: V holds a (exclusive) and e (an election) and waits for b. All but L and W are
 * due at 1000; the first Tick past it ends the fillers (each costs 1: the whole budget) and leaves V pending.
 */
function setUp() {
  const h = new Recorder(new LockStateMachine());
  const live = h.grant(100_000);
  const waiter = h.grant(100_000);
  const fillers: number[] = [];
  for (let i = 0; i < MAX_TICK_EXPIRY_WORK; i++) fillers.push(h.grant(1000));
  const v = h.grant(1000);
  const a = h.acquire('a', v).token;
  h.acquire('b', live);
  expect(h.acquire('b', v, true).status).to.equal('queued');
  expect(h.acquire('b', waiter, true).status).to.equal('queued');
  const e = h.ok({ type: 'Acquire', name: 'e', leaseId: v, wait: false, election: true }).token;
  const first = h.tick(1000);
  return { h, live, waiter, fillers, v, a, e, first };
}

describe('state machine: bounded expiry per Tick, and leases whose cleanup is pending', () => {
  it('a Tick ends at most MAX_TICK_EXPIRY_WORK of the due leases, earliest deadline first, then the rest', () => {
    const { h, fillers, v, first } = setUp();
    expect(first.expired).to.deep.equal(fillers);
    expect(first.expired).to.not.include(v);
    h.sm.checkInvariants();
    const second = h.tick(0);
    expect(second.expired).to.deep.equal([v]);
    h.sm.checkInvariants();
  });

  it('a lease past its deadline whose cleanup is pending cannot be used anywhere', () => {
    const { h, live, waiter, v } = setUp();
    // Still in the table, cleanup pending...
    expect(h.sm.hasLiveLeases()).to.equal(true);
    // ...and dead for every read: TimeToLive, List, ownership, KeepAlive's check.
    expect(h.sm.timeToLive(v)).to.equal(undefined);
    expect(h.sm.hasLease(v)).to.equal(false);
    expect(h.sm.leaseOwner(v)).to.equal(undefined);
    expect(h.sm.listLeases().map((l) => l.leaseId)).to.deep.equal([live, waiter]);
    expect(h.sm.listLeasesPage(0, 1)).to.deep.include({ more: true });
    expect(h.sm.listLeasesPage(live, 1).leases.map((l) => l.leaseId)).to.deep.equal([waiter]);
    expect(h.sm.listLeasesPage(waiter, 1)).to.deep.equal({ leases: [], more: false });
    expect(h.sm.leaseCounts()).to.deep.equal({ live: 2, waiting: 1 });
    // Its grants and queue places are not shown: a is free, e has no leader, b's queue is W alone.
    expect(h.sm.inspectLock('a')).to.include({ held: false, holderLeaseId: 0 });
    expect(h.sm.inspectLock('e')).to.include({ held: false });
    expect(h.sm.inspectLock('b').waitingLeaseIds).to.deep.equal([waiter]);
    // Every command refuses it.
    expect(h.fail({ type: 'Acquire', name: 'z', leaseId: v, wait: false }).error).to.equal('NOT_FOUND');
    expect(h.fail({ type: 'Acquire', name: 'z', leaseId: v, wait: true }).error).to.equal('NOT_FOUND');
    expect(h.fail({ type: 'Revoke', leaseId: v }).error).to.equal('NOT_FOUND');
    expect(h.tick(0, [v]).gone).to.deep.equal([v]);
    expect(h.sm.hasLease(v)).to.equal(false);
    // (that Tick's budget went to V: its cleanup is done now; the rest of the checks run on a fresh set-up)
    const s = setUp();
    expect(s.h.fail({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token: s.a, lock: 'a' }).error).to.equal('FAILED_PRECONDITION');
    expect(s.h.fail({ type: 'Proclaim', name: 'e', token: s.e, value: 'x', leaseId: s.v }).error).to.equal('FAILED_PRECONDITION');
    expect(s.h.fail({ type: 'Release', name: 'a', token: s.a }).error).to.equal('NOT_FOUND');
    // Its lock is free to the next live acquirer at once (with no wait for its cleanup)...
    expect(s.h.acquire('a', s.live).status).to.equal('acquired');
    // ...and when b is released it goes to W, behind V in the queue, never to V.
    const b = s.h.sm.inspectLock('b').token;
    s.h.ok({ type: 'Release', name: 'b', token: b });
    expect(s.h.sm.inspectLock('b')).to.include({ held: true, holderLeaseId: s.waiter });
    // The election has nobody: a campaign wins it.
    expect(s.h.ok({ type: 'Acquire', name: 'e', leaseId: s.waiter, wait: false, election: true }).status).to.equal('acquired');
    s.h.sm.checkInvariants();
    // The cleanup Tick finds nothing of V left to hand on, and ends it.
    expect(s.h.tick(0).expired).to.deep.equal([s.v]);
    expect(s.h.sm.inspectLock('a').holderLeaseId).to.equal(s.live);
    s.h.sm.checkInvariants();
    // The same entries give the same state on another replica, and on one restored mid-backlog.
    const other = new Harness(new LockStateMachine());
    for (const cmd of s.h.log) other.apply(cmd);
    expect(statesEqual(other.sm, s.h.sm)).to.equal(true);
  });

  it('a snapshot taken while cleanup is pending restores the same pending set; the next entries agree', () => {
    const { h } = setUp();
    const restored = LockStateMachine.fromSnapshot(h.sm.snapshot());
    restored.checkInvariants();
    const cmd = encodeCommand({ type: 'Tick', elapsedMs: 0, marginMs: 0, renewed: [], expiryWork: MAX_TICK_EXPIRY_WORK });
    const x = h.sm.apply({ index: h.next, data: cmd });
    const y = restored.apply({ index: restored.appliedIndex + 1, data: cmd });
    expect(y).to.deep.equal(x);
    expect(statesEqual(restored, h.sm)).to.equal(true);
  });

  it('100,000 leases due at once end over ⌈100,000 / budget⌉ Ticks, each Tick bounded; 20,000 renewals fit one Tick', () => {
    const sm = new LockStateMachine();
    let index = 0;
    const apply = (cmd: Command) => sm.apply({ index: ++index, data: encodeCommand(cmd) });
    const ids: number[] = [];
    for (let i = 0; i < 100_000; i++) ids.push((apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }).result as { leaseId: number }).leaseId);
    // 20,000 of them renewed in one Tick, at the cap.
    const renew = ids.slice(0, MAX_TICK_RENEWALS);
    const r = apply({ type: 'Tick', elapsedMs: 500, marginMs: 0, renewed: renew }).result as unknown as { renewed: unknown[] };
    expect(r.renewed).to.have.length(MAX_TICK_RENEWALS);
    let ticks = 0;
    let ended = 0;
    let elapsed = 500;
    while (sm.hasLiveLeases()) {
      const out = apply({ type: 'Tick', elapsedMs: elapsed, marginMs: 0, renewed: [], expiryWork: MAX_TICK_EXPIRY_WORK }).result as unknown as { expired: number[] };
      elapsed = 0;
      expect(out.expired.length).to.be.at.most(MAX_TICK_EXPIRY_WORK);
      ended += out.expired.length;
      if (out.expired.length > 0) ticks++;
      if (ended === 80_000) elapsed = 500; // the renewed ones fall due 500 ms later
    }
    expect(ended).to.equal(100_000);
    expect(ticks).to.equal(Math.ceil(80_000 / MAX_TICK_EXPIRY_WORK) + Math.ceil(20_000 / MAX_TICK_EXPIRY_WORK));
    sm.checkInvariants();
  });

  it('a Tick without expiryWork (from a 0.1.0 leader, or one that has not heard every member run 0.2.0) ends every due lease, as 0.1.0 did', () => {
    const { h, v } = setUp();
    // setUp's first Tick was bounded and left V pending; an unbounded Tick ends it and anything else due.
    const out = h.tick(0, [], 0, undefined);
    expect(out.expired).to.include(v);
    expect(h.sm.inspectLock('a').held).to.equal(false);
    h.sm.checkInvariants();
    const sm = new LockStateMachine();
    let index = 0;
    const apply = (cmd: Command) => sm.apply({ index: ++index, data: encodeCommand(cmd) });
    for (let i = 0; i < 3 * MAX_TICK_EXPIRY_WORK; i++) apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    const all = apply({ type: 'Tick', elapsedMs: 1000, marginMs: 0, renewed: [] }).result as unknown as { expired: number[] };
    expect(all.expired).to.have.length(3 * MAX_TICK_EXPIRY_WORK);
    expect(sm.hasLiveLeases()).to.equal(false);
  });
});
