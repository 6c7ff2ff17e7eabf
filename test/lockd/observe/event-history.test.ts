// The node's recent decisions (observe/event-history.ts) and their replay on /events: decisions
// are kept, routine traffic is not; the window is bounded by count and bytes and says when it is
// no longer complete; /events sends it as `event: history` right after the `state` snapshot.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { EventHistory } from '../../../src/lockd/observe/event-history.js';
import { EventStreams } from '../../../src/lockd/observe/event-stream.js';
import type { StateSnapshot } from '../../../src/lockd/observe/state-snapshot.js';

const SNAPSHOT = {
  type: 'state',
  node: 'n1',
  seq: 0,
  at: 0,
  term: 1,
  role: 'leader',
  leader: 'n1',
  lastIndex: 0,
  commit: 0,
  applied: 0,
  machine: { now: 0, applied: 0, leases: { rows: [], total: 0 }, locks: { rows: [], total: 0 }, fence: { rows: [], total: 0 } },
} as StateSnapshot;

describe('observe: the recent-decision history', () => {
  it('keeps decisions (a refused fenced write, a grant, an expiring Tick without its renewals), not routine traffic', () => {
    const bus = new EventBus('n1', () => 2);
    const h = new EventHistory(bus);
    bus.publish({ type: 'appended', first: 1, last: 1, lastTerm: 2 });
    bus.publish({ type: 'committed', index: 1 });
    bus.publish({ type: 'applied', index: 1, entryTerm: 2, command: 'FenceWrite', ok: true });
    bus.publish({ type: 'tick', index: 2, now: 100, elapsedMs: 100, renewed: [1], deadlines: [900], expired: [] });
    bus.publish({ type: 'lock-granted', index: 3, name: 'a', leaseId: 1, token: 3072, handoff: false });
    bus.publish({ type: 'tick', index: 4, now: 200, elapsedMs: 100, renewed: [5, 6], deadlines: [1, 2], expired: [1] });
    bus.publish({ type: 'fence', index: 5, op: 'write', key: 'k', token: 3072, accepted: false, stale: true, highest: 9216, reason: '3072 < 9216' });
    bus.publish({ type: 'loop-lag', maxMs: 3, heartbeatGapMs: 0 });
    const { events, complete } = h.take();
    expect(events.map((e) => e.type)).to.deep.equal(['lock-granted', 'tick', 'fence']);
    expect(events[1]).to.deep.include({ expired: [1], renewed: [], deadlines: [] });
    expect(events[2]).to.deep.include({ key: 'k', token: 3072, highest: 9216, seq: 7 });
    expect(complete).to.equal(true);
    h.close();
  });

  it('is bounded by count and by bytes, oldest first out, and then says it is not complete', () => {
    const bus = new EventBus('n1', () => 1);
    const h = new EventHistory(bus, 10, 1_000_000);
    for (let k = 1; k <= 25; k++) bus.publish({ type: 'lease-granted', index: k, leaseId: k, ttlMs: 1000, deadline: 1200 });
    let t = h.take();
    expect(t.events.map((e) => (e.type === 'lease-granted' ? e.leaseId : 0))).to.deep.equal([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(t.complete).to.equal(false);
    const small = new EventHistory(bus, 100, 2_500);
    for (let k = 1; k <= 5; k++)
      bus.publish({ type: 'applied', index: k, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message: 'x'.repeat(900) });
    t = small.take();
    expect(t.events.length).to.equal(2); // ~1,050 bytes each
    expect(t.events.at(-1)).to.deep.include({ index: 5 });
    h.close();
    small.close();
  });

  it('/events: `state`, then `history` with the decisions up to it, then live events', async () => {
    const bus = new EventBus('n1', () => 1);
    const history = new EventHistory(bus);
    const streams = new EventStreams(
      bus,
      () => {},
      () => ({ ...SNAPSHOT, seq: bus.lastSeq }),
      history,
    );
    const server: Server = createServer((req, res) => streams.serve(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      bus.publish({ type: 'fence', index: 7, op: 'write', key: 'row', token: 3072, accepted: false, stale: true, highest: 9216, reason: '3072 < 9216' });
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('event: history')) text += new TextDecoder().decode((await reader.read()).value);
      bus.publish({ type: 'committed', index: 8 });
      while (!text.includes('event: committed')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const order = ['event: state', 'event: history', 'event: committed'].map((x) => text.indexOf(x));
      expect(order).to.deep.equal([...order].sort((a, b) => a - b));
      const data = JSON.parse(/event: history\ndata: (.*)\n/.exec(text)![1]) as {
        node: string;
        seq: number;
        complete: boolean;
        events: Array<Record<string, unknown>>;
      };
      expect(data).to.deep.include({ node: 'n1', seq: 1, complete: true });
      expect(data.events).to.have.length(1);
      expect(data.events[0]).to.deep.include({ type: 'fence', key: 'row', token: 3072, highest: 9216 });
    } finally {
      streams.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
