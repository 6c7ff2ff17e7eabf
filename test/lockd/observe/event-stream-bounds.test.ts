// /events' bounds, in process on a real HTTP server: a client that stops reading loses the oldest
// events (told how many) instead of growing the node's memory, the queue bounded by count and by
// bytes, and one whose unsent bytes pass MAX_BUFFERED_BYTES is disconnected (before the flush builds more); streams pipelined on one
// connection end with it; an event is serialized once for all readers; more than MAX_EVENT_CLIENTS
// streams are refused with 503.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { EventStreams, MAX_BUFFERED_BYTES, MAX_EVENT_CLIENTS, EVENTS_QUEUE, EVENTS_QUEUE_BYTES } from '../../../src/lockd/observe/event-stream.js';
import type { StateSnapshot } from '../../../src/lockd/observe/state-snapshot.js';
import { waitFor } from '../../support/process-cluster.js';

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

describe('observe: /events bounds per client', () => {
  let server: Server;
  let streams: EventStreams;
  let bus: EventBus;
  let port: number;
  let lost = 0;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    lost = 0;
    bus = new EventBus('n1', () => 1);
    streams = new EventStreams(
      bus,
      (n) => (lost += n),
      () => ({ ...SNAPSHOT, seq: bus.lastSeq }),
    );
    server = createServer((req, res) => streams.serve(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    streams.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** A raw client that sends the request and then reads nothing (its receive window fills). */
  function stalledClient(): Promise<{ socket: Socket }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
        socket.pause();
        resolve({ socket });
      });
      sockets.push(socket);
    });
  }

  /** Publish `n` events of about `bytes` each (an applied entry's refusal message). */
  function publish(n: number, bytes: number): void {
    for (let k = 0; k < n; k++)
      bus.publish({ type: 'applied', index: k + 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message: 'x'.repeat(bytes) });
  }

  it("a stalled reader is cut off once one flush leaves more than MAX_BUFFERED_BYTES unsent (an event bigger than the queue's byte bound)", async () => {
    await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // The queue keeps its newest event however big: one of 1.5 × MAX_BUFFERED_BYTES, to a socket nobody reads.
    publish(1, Math.ceil(MAX_BUFFERED_BYTES * 1.5));
    // The node destroyed the response (the paused client has not read the close yet): unsubscribed.
    await waitFor('the subscription to end', () => (bus.subscribers === 0 ? true : undefined), 5000);
  });

  it('one flush builds about EVENTS_QUEUE_BYTES at most: a queue of huge events loses the oldest, never builds a string past what V8 can hold', async () => {
    const { socket } = await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // 1,000 events of 600 KB in one turn: 600 M characters, more than V8's longest string (2^29 - 24).
    // Built whole, `out +=` throws RangeError in the flush's turn, an uncaught exception in the node.
    const message = 'x'.repeat(600_000);
    for (let k = 0; k < EVENTS_QUEUE; k++)
      bus.publish({ type: 'applied', index: k + 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.resume();
    await waitFor('the newest event', () => (text.includes(`id: ${bus.lastSeq}\n`) ? true : undefined), 10_000);
    const delivered = text.split('event: applied\n').length - 1;
    expect(delivered * 600_000, `${delivered} events delivered`).to.be.at.most(EVENTS_QUEUE_BYTES);
    expect(lost).to.equal(EVENTS_QUEUE - delivered);
  });

  it('a stalled reader below MAX_BUFFERED_BYTES stays connected and loses the oldest events, counted', async () => {
    const { socket } = await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // Small events, many turns: the socket backs up, nothing more is taken, the queue drops the oldest.
    for (let round = 0; round < 20 && lost === 0; round++) {
      publish(EVENTS_QUEUE, 2000);
      await new Promise((r) => setImmediate(r));
    }
    socket.resume(); // reading again delivers the `lost` count the node kept
    expect(bus.subscribers).to.equal(1);
    expect(socket.destroyed).to.equal(false);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    await waitFor('an event: lost line', () => (text.includes('event: lost') ? true : undefined));
    expect(lost).to.be.greaterThan(0);
  });

  it("a stalled reader's queue is bounded in bytes, not only in events: big Ticks are dropped (counted), the reader stays connected", async () => {
    const { socket } = await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // Back the socket up with small events (40 MB over 20 turns; from then on nothing is taken).
    for (let round = 0; round < 20; round++) {
      publish(EVENTS_QUEUE, 2000);
      await new Promise((r) => setImmediate(r));
    }
    // 200 Ticks of 20,000 renewals (~320 KB of JSON each: 64 MB), far fewer than EVENTS_QUEUE: by
    // count alone the queue keeps them all, the reader pins every one, and its next flush passes
    // MAX_BUFFERED_BYTES and cuts it off. By bytes, the oldest go and the reader is told.
    const ids = Array.from({ length: 20_000 }, (_, k) => 100_000 + k);
    const deadlines = ids.map((id) => 10_000_000 + id);
    for (let k = 0; k < 200; k++) {
      bus.publish({ type: 'tick', index: 10_000 + k, now: 1, elapsedMs: 100, renewed: ids, deadlines, expired: [] });
      if (k % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.resume();
    await waitFor('the newest Tick', () => (text.includes(`id: ${bus.lastSeq}\n`) ? true : undefined), 10_000);
    expect(bus.subscribers, 'still subscribed').to.equal(1);
    expect(socket.destroyed).to.equal(false);
    expect(lost).to.be.greaterThan(0);
    const ticks = text.split('event: tick\n').length - 1;
    expect(ticks * 320_000, `${ticks} Ticks delivered`).to.be.at.most(EVENTS_QUEUE_BYTES);
  });

  it('streams pipelined on one connection free their slots when it closes (one request packet cannot hold every slot forever)', async () => {
    // HTTP/1.1 pipelining: the responses after the first are queued behind it (which never ends),
    // are never given the socket, and so never emit 'close' of their own.
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(MAX_EVENT_CLIENTS));
    await waitFor('every pipelined stream', () => (bus.subscribers === MAX_EVENT_CLIENTS ? true : undefined));
    socket.destroy();
    await waitFor('every slot to be freed', () => (bus.subscribers === 0 ? true : undefined), 5000);
    const res = await fetch(`http://127.0.0.1:${port}/events`, { signal: AbortSignal.timeout(5000) });
    expect(res.status).to.equal(200);
    await res.body?.cancel();
  });

  it(`an event is serialized once for all ${MAX_EVENT_CLIENTS} readers, not once each (a Tick of 20,000 renewals is ~3 ms of the node's loop)`, async () => {
    const texts: string[] = [];
    for (let k = 0; k < MAX_EVENT_CLIENTS; k++) {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      const i = texts.push('') - 1;
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (texts[i] += d));
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    }
    await waitFor('every reader', () => (bus.subscribers === MAX_EVENT_CLIENTS ? true : undefined));
    let serialized = 0;
    const counted = { toJSON: () => `serialized ${++serialized}` } as unknown as string;
    bus.publish({ type: 'applied', index: 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message: counted });
    await waitFor('the event at every reader', () => (texts.every((t) => t.includes('event: applied')) ? true : undefined));
    expect(serialized).to.equal(1);
  });

  it(`more than ${MAX_EVENT_CLIENTS} streams: the next is answered 503`, async () => {
    for (let k = 0; k < MAX_EVENT_CLIENTS; k++) await stalledClient();
    await waitFor('every subscription', () => (bus.subscribers === MAX_EVENT_CLIENTS ? true : undefined));
    const res = await fetch(`http://127.0.0.1:${port}/events`);
    expect(res.status).to.equal(503);
    expect(await res.text()).to.contain(`too many /events clients (limit ${MAX_EVENT_CLIENTS})`);
  });
});
