// /events' bounds, in process on a real HTTP server: a client that stops reading loses the oldest
// events (told how many) instead of growing the node's memory, and one whose unsent bytes pass
// MAX_BUFFERED_BYTES is disconnected (before the flush builds more); streams pipelined on one
// connection end with it; an event is serialized once for all readers; more than MAX_EVENT_CLIENTS
// streams are refused with 503.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { EventStreams, MAX_BUFFERED_BYTES, MAX_EVENT_CLIENTS, EVENTS_QUEUE } from '../../../src/lockd/observe/event-stream.js';
import type { StateSnapshot } from '../../../src/lockd/observe/state-snapshot.js';
import { waitFor } from '../../support/process-cluster.js';

const SNAPSHOT = { type: 'state', node: 'n1', seq: 0, at: 0, term: 1, role: 'leader', leader: 'n1', lastIndex: 0, commit: 0, applied: 0, machine: { now: 0, applied: 0, leases: { rows: [], total: 0 }, locks: { rows: [], total: 0 }, fence: { rows: [], total: 0 } } } as StateSnapshot;

describe('observe: /events bounds per client', () => {
  let server: Server;
  let streams: EventStreams;
  let bus: EventBus;
  let port: number;
  let lost = 0;
  const sockets: Socket[] = [];

  beforeEach(async () => {
    bus = new EventBus('n1', () => 1);
    streams = new EventStreams(bus, (n) => (lost += n), () => ({ ...SNAPSHOT, seq: bus.lastSeq }));
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
    for (let k = 0; k < n; k++) bus.publish({ type: 'applied', index: k + 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message: 'x'.repeat(bytes) });
  }

  it('a stalled reader is cut off once one flush leaves more than MAX_BUFFERED_BYTES unsent', async () => {
    await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // EVENTS_QUEUE events in one turn: one flush writes them all (> 8 MiB) to a socket nobody reads.
    const each = Math.ceil((MAX_BUFFERED_BYTES * 1.5) / EVENTS_QUEUE);
    publish(EVENTS_QUEUE, each);
    // The node destroyed the response (the paused client has not read the close yet): unsubscribed.
    await waitFor('the subscription to end', () => (bus.subscribers === 0 ? true : undefined), 5000);
  });

  it('one flush builds no more than MAX_BUFFERED_BYTES: a queue of huge events cuts the reader off, never a string past what V8 can hold', async () => {
    await stalledClient();
    await waitFor('the subscription', () => (bus.subscribers === 1 ? true : undefined));
    // 1,000 events of 600 KB: 600 M characters in one flush, more than V8's longest string (2^29 - 24).
    // Built whole, `out +=` throws RangeError in the flush's turn, an uncaught exception in the node.
    const message = 'x'.repeat(600_000);
    for (let k = 0; k < EVENTS_QUEUE; k++) bus.publish({ type: 'applied', index: k + 1, entryTerm: 1, command: 'Acquire', ok: false, error: 'INVALID_ARGUMENT', message });
    await waitFor('the subscription to end', () => (bus.subscribers === 0 ? true : undefined), 5000);
  });

  it('a stalled reader below the byte bound stays connected and loses the oldest events, counted', async () => {
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
