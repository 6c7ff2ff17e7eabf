// Bounded work per entry (docs/design.md §4): a Tick ends at most MAX_TICK_EXPIRY_WORK of the leases
// due, and a lease past its deadline whose cleanup is still pending is dead for every check of its
// own (it cannot renew, acquire, write, release or proclaim), while its grants stand, visibly, until
// the entry that ends them — which carries their events.

import { expect } from 'chai';
import {
  LockStateMachine,
  MAX_LEASES,
  MAX_TICK_EXPIRY_WORK,
  MAX_TICK_RENEWALS,
  encodeCommand,
  statesEqual,
  type Command,
} from '../../../src/lockd/state-machine/index.js';
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
    // Its grants and queue places still show — they stand until its cleanup or a reap ends them,
    // in an entry that carries the events — so no view shows a free lock with a queue.
    expect(h.sm.inspectLock('a')).to.include({ held: true, holderLeaseId: v });
    expect(h.sm.inspectLock('e')).to.include({ held: true, holderLeaseId: v });
    expect(h.sm.inspectLock('b').waitingLeaseIds).to.deep.equal([v, waiter]);
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
      const out = apply({ type: 'Tick', elapsedMs: elapsed, marginMs: 0, renewed: [], expiryWork: MAX_TICK_EXPIRY_WORK }).result as unknown as {
        expired: number[];
      };
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

// The promises a reader relies on while a cleanup is pending (a hostile review of the bounded-expiry
// change found each broken: the view hid dead holders, so a lock read free with a queue, and views
// changed in entries that emitted nothing). proto/lockd.proto LockEvent: "Every change of holders,
// mode, permits or leader is one of these"; AcquireRequest: FIFO, "granted as soon as the head of
// the queue fits"; lock_delay_ms: "Inspect shows when".
describe('state machine: what readers see while a cleanup is pending', () => {
  /** MAX_TICK_EXPIRY_WORK fillers due at 1000, then `n` victims due at 1000: the first Tick past 1000 ends only the fillers. */
  function backlog(h: Harness, n: number): number[] {
    for (let i = 0; i < MAX_TICK_EXPIRY_WORK; i++) h.grant(1000);
    return Array.from({ length: n }, () => h.grant(1000));
  }
  const view = (h: Harness, name: string) => {
    const v = h.sm.inspectLock(name);
    return { holders: v.holders.map((x) => x.leaseId), waiting: v.waitingLeaseIds, delay: v.delayUntil };
  };

  it('no view shows a free lock with a queue; the view changes only in entries with events for it', () => {
    const h = new Harness(new LockStateMachine());
    const w = h.grant(100_000);
    const [v] = backlog(h, 1);
    h.acquire('L', v);
    h.ok({ type: 'Acquire', name: 'rw', leaseId: v, wait: false, shared: true });
    expect(h.acquire('L', w, true).status).to.equal('queued');
    expect(h.ok({ type: 'Acquire', name: 'rw', leaseId: w, wait: true }).status).to.equal('queued');
    const before = [view(h, 'L'), view(h, 'rw')];
    h.tick(1000); // V past its deadline, cleanup pending
    expect(h.sm.timeToLive(v), 'precondition: V is dead for its own reads').to.equal(undefined);
    const named = (ev: [string, string, number, number]) => ev[1] === 'L' || ev[1] === 'rw';
    expect(h.lastEvents().filter(named), 'the killing entry changes no lock').to.deep.equal([]);
    expect([view(h, 'L'), view(h, 'rw')], 'so no view changes').to.deep.equal(before);
    // The cleanup Tick ends V: the views change in the entry whose events say so.
    expect(h.tick(0).expired).to.deep.equal([v]);
    const events = h
      .lastEvents()
      .filter(named)
      .map(([type, name, leaseId]) => [type, name, leaseId]);
    expect(events).to.deep.include.members([
      ['EXPIRED', 'L', v],
      ['ACQUIRED', 'L', w],
      ['EXPIRED', 'rw', v],
      ['ACQUIRED', 'rw', w],
    ]);
    expect([view(h, 'L').holders, view(h, 'rw').holders]).to.deep.equal([[w], [w]]);
    h.sm.checkInvariants();
  });

  it('a command naming the lock ends the dead grant first, with its events, and the view before it was true', () => {
    const h = new Harness(new LockStateMachine());
    const x = h.grant(100_000);
    const [v] = backlog(h, 1);
    h.ok({ type: 'Acquire', name: 'L', leaseId: v, wait: false, lockDelayMs: 500 });
    h.tick(1000);
    expect(view(h, 'L'), 'held by V until its grant ends: no delay yet').to.deep.equal({ holders: [v], waiting: [], delay: 0 });
    const r = h.ok({ type: 'Acquire', name: 'L', leaseId: x, wait: false }); // no time passes
    expect(r.status, 'the reap ends V and starts its lock-delay from now').to.equal('held');
    expect(r.delayRemainingMs).to.equal(500);
    expect(h.lastEvents().map(([type, name, leaseId]) => [type, name, leaseId])).to.deep.include(['EXPIRED', 'L', v]);
    expect(view(h, 'L').delay, 'Inspect shows the delay the Acquire was answered').to.equal(h.sm.inspectLock('L').delayUntil);
    expect(h.sm.inspectLock('L').delayRemainingMs).to.equal(500);
  });

  it('Grant refused at the lease cap says pending cleanups count, and that retrying helps', function () {
    this.timeout(60_000);
    const h = new Harness(new LockStateMachine());
    for (let i = 0; i < MAX_LEASES; i++) h.grant(1000);
    h.tick(1000); // all due; MAX_TICK_EXPIRY_WORK of them end, the rest are pending
    for (let i = 0; i < MAX_TICK_EXPIRY_WORK; i++) h.grant(100_000);
    const refused = h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    expect(refused.error).to.equal('RESOURCE_EXHAUSTED');
    expect(refused.message)
      .to.match(/cleanup pending/)
      .and.match(/retry/);
    h.tick(0); // the next cleanup frees room
    h.grant(1000);
  });
});
