// The observation bus: bounded subscriptions that lose the oldest events and say how many, wake
// their reader on a later turn (never inside publish), and stop receiving once closed.
import { expect } from 'chai';
import { setImmediate as turn } from 'node:timers/promises';
import { EventBus } from '../../../src/lockd/observe/bus.js';

describe('observe: the event bus', () => {
  it('a full subscription drops the oldest events and reports how many; seq numbers the events from 1', async () => {
    const bus = new EventBus('n1', () => 7);
    let wakes = 0;
    const sub = bus.subscribe(3, () => wakes++);
    for (let i = 1; i <= 5; i++) bus.publish({ type: 'committed', index: i });
    expect(wakes).to.equal(0); // not inside publish
    await turn();
    expect(wakes).to.equal(1); // once for the whole turn
    const { events, lost } = sub.take();
    expect(lost).to.equal(2);
    expect(events.map((e) => e.seq)).to.deep.equal([3, 4, 5]);
    expect(events[0]).to.include({ node: 'n1', term: 7, type: 'committed', index: 3 });
    expect(sub.take()).to.deep.equal({ events: [], lost: 0 });
  });

  it('a reader that never takes keeps at most its capacity; others are unaffected; a closed one receives nothing', async () => {
    const bus = new EventBus('n1', () => 1);
    const slow = bus.subscribe(10, () => {});
    const got: number[] = [];
    const fast = bus.subscribe(10, () => got.push(...fast.take().events.map((e) => e.seq)));
    for (let i = 1; i <= 1000; i++) {
      bus.publish({ type: 'committed', index: i });
      if (i % 10 === 0) await turn();
    }
    await turn();
    expect(slow.size).to.equal(10);
    expect(got).to.have.length(1000);
    const t = slow.take();
    expect(t.lost).to.equal(990);
    expect(t.events.map((e) => e.seq)).to.deep.equal([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    slow.close();
    expect(bus.subscribers).to.equal(1);
    bus.publish({ type: 'committed', index: 1001 });
    expect(slow.size).to.equal(0);
    expect(() => bus.subscribe(0, () => {})).to.throw(RangeError);
  });

  it('a byte-bounded subscription drops the oldest past about maxBytes (counted), and keeps its newest event however big', () => {
    const bus = new EventBus('n1', () => 1);
    const sub = bus.subscribe(1000, () => {}, 10_000);
    const applied = (bytes: number) =>
      bus.publish({ type: 'applied', index: 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message: 'x'.repeat(bytes) });
    for (let i = 0; i < 100; i++) applied(1000); // ~1.1 KB each: ~9 fit
    expect(sub.queuedBytes).to.be.at.most(10_000);
    const t = sub.take();
    expect(t.events.length).to.be.within(5, 9);
    expect(t.lost).to.equal(100 - t.events.length);
    expect(t.events.at(-1)!.seq).to.equal(100);
    applied(50_000);
    expect(sub.size).to.equal(1);
    applied(10);
    expect(sub.take()).to.include({ lost: 1 });
    expect(sub.queuedBytes).to.equal(0);
    expect(() => bus.subscribe(10, () => {}, 0)).to.throw(RangeError);
  });
});
