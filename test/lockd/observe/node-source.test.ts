// The node source on a real state machine: applied entries become the events the metrics and the
// dashboard read — a fenced write refused with "33 < 34", a hand-off to the first waiter, a Tick's
// logical time and expiries, a stale Release — and vote messages become votes.
import { expect } from 'chai';
import { setImmediate as turn } from 'node:timers/promises';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import type { ObservedEvent } from '../../../src/lockd/observe/observed-events.js';
import { NodeSource } from '../../../src/lockd/observe/node-source.js';
import { message } from '../../../src/raft/types.js';
import { LockStateMachine, encodeCommand, type Command } from '../../../src/lockd/state-machine/index.js';
import { grantToken } from '../../../src/lockd/state-machine/token.js';

describe('observe: events sourced from applies, roles and votes', () => {
  const setup = () => {
    const bus = new EventBus('n1', () => 2);
    const sm = new LockStateMachine();
    const source = new NodeSource(bus, 'n1', undefined, sm);
    const sub = bus.subscribe(10_000, () => {});
    let index = 0;
    const apply = (cmd: Command) => {
      const entry = { index: ++index, term: 2, data: encodeCommand(cmd) };
      source.applied(entry, sm.apply(entry));
      return entry.index;
    };
    const events = async (): Promise<ObservedEvent[]> => {
      await turn();
      return [...sub.take().events];
    };
    return { source, apply, events };
  };

  it('grants, a hand-off to the waiter, a stale release, fenced writes accepted and refused with the numbers', async () => {
    const { apply, events } = setup();
    apply({ type: 'Grant', ttlMs: 5000, marginMs: 100 }); // lease 1
    apply({ type: 'Grant', ttlMs: 5000, marginMs: 100 }); // lease 2
    // Events carry log indexes (i1, i2); tokens are the grants' own (entry index × 1024 + ordinal).
    const i1 = apply({ type: 'Acquire', name: 'db', leaseId: 1, wait: false });
    const t1 = grantToken(i1, 0);
    apply({ type: 'Acquire', name: 'db', leaseId: 2, wait: true });
    apply({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token: t1 });
    const stale = apply({ type: 'Release', name: 'db', token: t1 - 1 });
    const i2 = apply({ type: 'Release', name: 'db', token: t1 }); // hands db to lease 2 in this entry
    const t2 = grantToken(i2, 0);
    apply({ type: 'FenceWrite', key: 'k', value: new Uint8Array([2]), token: t2 });
    apply({ type: 'FenceWrite', key: 'k', value: new Uint8Array([3]), token: t1 });
    const evs = await events();
    const of = <T extends ObservedEvent['type']>(t: T) => evs.filter((e): e is Extract<ObservedEvent, { type: T }> => e.type === t);
    expect(of('lease-granted').map((e) => [e.leaseId, e.ttlMs, e.deadline])).to.deep.equal([
      [1, 5000, 5100],
      [2, 5000, 5100],
    ]); // now 0 + ttl + margin
    expect(of('lock-granted').map((e) => [e.name, e.index, e.leaseId, e.token, e.handoff])).to.deep.equal([
      ['db', i1, 1, t1, false],
      ['db', i2, 2, t2, true],
    ]);
    expect(of('waiter')).to.have.length(1);
    expect(of('waiter')[0]).to.include({ name: 'db', leaseId: 2, action: 'queued' });
    expect(of('release').map((e) => [e.index, e.token, e.ok])).to.deep.equal([
      [stale, t1 - 1, false],
      [i2, t1, true],
    ]);
    expect(of('lock-freed')[0]).to.include({ name: 'db', index: i2, leaseId: 1, token: t1, why: 'released' });
    const fences = of('fence');
    expect(fences.map((e) => [e.token, e.accepted, e.stale, e.highest])).to.deep.equal([
      [t1, true, false, t1],
      [t2, true, false, t2],
      [t1, false, true, t2],
    ]);
    expect(fences[2].reason).to.equal(`${t1} < ${t2}`);
    expect(of('applied').map((e) => e.command)).to.deep.equal([
      'Grant',
      'Grant',
      'Acquire',
      'Acquire',
      'FenceWrite',
      'Release',
      'Release',
      'FenceWrite',
      'FenceWrite',
    ]);
    expect(of('applied')[8]).to.include({ ok: false, error: 'FAILED_PRECONDITION' });
  });

  it('a Tick: logical now, elapsed, renewed and expired leases, the lock lost by expiry; votes; leader changes', async () => {
    const { source, apply, events } = setup();
    apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }); // lease 1
    apply({ type: 'Grant', ttlMs: 5000, marginMs: 0 }); // lease 2
    apply({ type: 'Acquire', name: 'x', leaseId: 1, wait: false });
    const tick = apply({ type: 'Tick', elapsedMs: 1500, marginMs: 0, renewed: [2] });
    source.message(message({ type: 'VoteResp', from: 'n2', to: 'n1', term: 3, reject: false }));
    source.message(message({ type: 'PreVoteResp', from: 'n1', to: 'n3', term: 4, reject: true }));
    source.roleChanged('leader', 'n1');
    source.roleChanged('leader', 'n1');
    const evs = await events();
    expect(evs.find((e) => e.type === 'tick')).to.include({ index: tick, now: 1500, elapsedMs: 1500 });
    const t = evs.find((e) => e.type === 'tick') as Extract<ObservedEvent, { type: 'tick' }>;
    expect(t.renewed).to.deep.equal([2]);
    expect(t.deadlines).to.deep.equal([6500]); // renewed at now 1,500: 1,500 + 5,000 (its grant gave 5,000)
    expect(t.expired).to.deep.equal([1]);
    expect(evs.find((e) => e.type === 'lease-ended')).to.include({ leaseId: 1, why: 'expired', index: tick });
    expect(evs.find((e) => e.type === 'lock-freed')).to.include({ name: 'x', why: 'expired' });
    const votes = evs.filter((e) => e.type === 'vote');
    expect(votes[0]).to.include({ voter: 'n2', candidate: 'n1', granted: true, pre: false, voteTerm: 3 });
    expect(votes[1]).to.include({ voter: 'n1', candidate: 'n3', granted: false, pre: true, voteTerm: 4 });
    expect(evs.filter((e) => e.type === 'role')).to.have.length(2);
    expect(evs.filter((e) => e.type === 'leader-changed')).to.have.length(1);
  });

  it('a Tick this node proposed carries the time its lease clock measured (before the cap); another Tick does not', async () => {
    const { source, apply, events } = setup();
    apply({ type: 'Grant', ttlMs: 90_000, marginMs: 0 }); // a live lease, as when a leader ticks
    const leap: Command = { type: 'Tick', elapsedMs: 200, marginMs: 0, renewed: [] };
    source.tickProposed(2, encodeCommand(leap), 60_101);
    const mine = apply(leap);
    const other = apply(leap); // the same bytes again, not proposed here since: unknown
    source.tickProposed(1, encodeCommand({ type: 'Tick', elapsedMs: 100, marginMs: 0, renewed: [] }), 100); // an older term's
    const stale = apply({ type: 'Tick', elapsedMs: 100, marginMs: 0, renewed: [] });
    const ticks = (await events()).filter((e) => e.type === 'tick');
    expect(ticks.map((t) => [t.index, t.elapsedMs, t.measuredMs])).to.deep.equal([
      [mine, 200, 60_101],
      [other, 200, undefined],
      [stale, 100, undefined],
    ]);
  });

  it("the loop's facts: a term change with the vote, appended entries, the commit moving, a synced write timed, snapshots", async () => {
    const bus = new EventBus('n1', () => 5);
    const source = new NodeSource(bus, 'n1', { term: 4, commit: 10 });
    const sub = bus.subscribe(100, () => {});
    const entries = [11, 12].map((index) => ({ index, term: 5, data: new Uint8Array(0) }));
    source.driverEvent({ kind: 'sync-started' });
    expect(source.syncOutstandingMs()).to.be.at.least(0);
    source.driverEvent({
      kind: 'persisted',
      rd: {
        hardState: { term: 5, vote: 'n2', commit: 10 },
        termOrVoteChanged: true,
        mustSync: true,
        entries,
        committedEntries: [],
        messages: [],
        readStates: [],
      },
    });
    source.driverEvent({ kind: 'synced', ms: 3.5, entries: 2 });
    expect(source.syncOutstandingMs()).to.equal(0);
    source.driverEvent({
      kind: 'persisted',
      rd: {
        hardState: { term: 5, vote: 'n2', commit: 12 },
        termOrVoteChanged: false,
        mustSync: false,
        entries: [],
        committedEntries: entries,
        messages: [],
        readStates: [],
      },
    });
    source.driverEvent({ kind: 'snapshot-taken', index: 12, bytes: 99 });
    await turn();
    const evs = sub.take().events.map(({ seq: _s, at: _a, node: _n, term: _t, ...body }) => body);
    expect(evs).to.deep.equal([
      { type: 'term-changed', from: 4, vote: 'n2' },
      { type: 'appended', first: 11, last: 12, lastTerm: 5 },
      { type: 'disk-sync', ms: 3.5, entries: 2 },
      { type: 'committed', index: 12 }, // commit 10 was no news
      { type: 'snapshot', how: 'taken', index: 12, bytes: 99 },
    ]);
  });
});
