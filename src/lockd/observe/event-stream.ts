// /events: the node's ObservedEvent stream as server-sent events (text/event-stream), for the
// study dashboard and anyone with curl. It opens with `event: state`, a snapshot of the node taken
// in the same turn as the subscription (state-snapshot.ts), so every event after it applies to it,
// then `event: history`: the node's recent decisions up to that snapshot (event-history.ts),
// {node, seq, complete, events}, which the snapshot already reflects.
// Each client has its own bounded queue on the bus (EVENTS_QUEUE events and about
// EVENTS_QUEUE_BYTES of JSON, whichever is reached first): while its socket is backed up (write() said
// wait) nothing more is taken, the queue fills, the oldest events are dropped, and the client is
// told how many with an `event: lost` before the next ones it gets. One flush takes the whole
// queue at once; a client whose unsent bytes would pass MAX_BUFFERED_BYTES (one event bigger than
// that) is cut off (the flush stops building there), and reconnects to a fresh snapshot.
//   id: 42            ← the event's seq (per node, from 1; a gap = events lost)
//   event: lock-granted
//   data: {"seq":42,"at":...,"node":"n1","term":3,"type":"lock-granted","index":17,"name":"db","leaseId":12,"token":17,"handoff":false}
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EventBus } from './bus.js';
import type { EventHistory } from './event-history.js';
import type { ObservedEvent } from './observed-events.js';
import type { StateSnapshot } from './state-snapshot.js';
import type { ViewFilter } from '../state-machine/index.js';

/**
 * A reader with a principal (TLS on): what it may see is asked again at every flush, so a rule
 * changed while its stream is open applies from the next event on (the rule's own applied entry
 * wakes every reader), and a reader that lost `read` on '' is cut off, told why.
 */
export interface EventReader {
  /** What it may see now (undefined: everything). */
  only(): ViewFilter | undefined;
  /** Whether it may still read the stream at all. */
  mayRead(): boolean;
}

/**
 * `ev` as `only` lets it be seen: an event naming a lock or fenced key the reader may not read is
 * dropped; an applied entry's message (which may quote a name) is dropped too. Raft, lease and
 * tick events name no lock and pass.
 */
export function visibleEvent(ev: ObservedEvent, only: ViewFilter | undefined): ObservedEvent | undefined {
  if (!only) return ev;
  switch (ev.type) {
    case 'lock-granted':
    case 'lock-freed':
    case 'waiter':
    case 'release':
    case 'lock-mode':
      return only.lock(ev.name) ? ev : undefined;
    case 'fence':
      return only.fence(ev.key) ? ev : undefined;
    case 'applied': {
      if (ev.message === undefined) return ev;
      const { message: _hidden, ...rest } = ev;
      return rest;
    }
    default:
      return ev;
  }
}

/** Events one client may fall behind by before it loses the oldest. */
export const EVENTS_QUEUE = 1000;
/**
 * Approximate bytes (as JSON) of the events one client may fall behind by before it loses the
 * oldest. Without it, 1,000 Ticks of 20,000 renewals (~320 KB each) pin ~300 MB for one stalled
 * reader. 4 MiB is a dozen such Ticks, over a second of them; a reader that loses events is told
 * and the dashboard reloads a snapshot anyway.
 */
export const EVENTS_QUEUE_BYTES = 4 * 1024 * 1024;
/** Concurrent /events clients per node; more are answered 503. */
export const MAX_EVENT_CLIENTS = 32;
/** Bytes written to one client and not yet sent beyond which it is disconnected. */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** A comment line this often keeps idle proxies and load balancers from closing the stream. */
const KEEPALIVE_MS = 15_000;

export class EventStreams {
  private readonly open = new Set<ServerResponse>();
  private readonly ends = new WeakMap<Socket, Set<() => void>>();
  /**
   * Events serialized in this turn of the loop, for every reader that flushes in it: the bus wakes
   * them all in one turn, so an event is serialized once, not once per reader (32 readers of a
   * Tick with 20,000 renewals: ~90 ms of the node's loop, ten Ticks a second). Emptied on the next
   * turn, so a stalled reader's queue never keeps frames alive.
   */
  private readonly frames = new Map<ObservedEvent, string>();

  constructor(
    private readonly bus: EventBus,
    private readonly onLost: (n: number) => void,
    private readonly snapshot: (only?: ViewFilter) => StateSnapshot,
    /** The node's recent decisions, sent after the snapshot (none: an empty history). */
    private readonly history?: EventHistory,
  ) {}

  /** Extra response headers (CORS) are the caller's. */
  serve(req: IncomingMessage, res: ServerResponse, headers: Record<string, string> = {}, reader?: EventReader): void {
    if (this.open.size >= MAX_EVENT_CLIENTS) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' });
      res.end(`too many /events clients (limit ${MAX_EVENT_CLIENTS})\n`);
      return;
    }
    this.open.add(res);
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 1000\n: lockd ${this.bus.node} events; last seq ${this.bus.lastSeq}\n\n`);
    const send = (out: string) => {
      res.write(out);
      if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy(); // 'close' below unsubscribes
    };
    const flush = () => {
      if (res.writableNeedDrain || res.destroyed) return; // resumed by 'drain'
      const { events, lost } = sub.take();
      if (reader && !reader.mayRead()) {
        res.end(`event: denied\ndata: ${JSON.stringify({ reason: "this principal may no longer read the node's observations" })}\n\n`);
        return;
      }
      const only = reader?.only();
      let out = '';
      if (lost > 0) {
        this.onLost(lost);
        out += `event: lost\ndata: ${JSON.stringify({ lost })}\n\n`;
      }
      for (const raw of events) {
        const ev = visibleEvent(raw, only);
        if (ev === undefined) continue;
        out += ev === raw ? this.frame(ev) : `id: ${ev.seq}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
        // Cut off while building, not after: the queue's byte bound is an estimate (a string of
        // escapes counts short), and its newest event is kept however big.
        if (res.writableLength + out.length > MAX_BUFFERED_BYTES) return void res.destroy();
      }
      if (out) send(out);
    };
    // Snapshot and subscription in one turn: no event can fall between them.
    const sub = this.bus.subscribe(EVENTS_QUEUE, flush, EVENTS_QUEUE_BYTES);
    const only = reader?.only();
    const snap = this.snapshot(only);
    send(`event: state\ndata: ${JSON.stringify(snap)}\n\n`);
    // The recent decisions the snapshot already reflects (event-history.ts): for the timeline and
    // the facts no state holds (the last refusal of a fenced key), never to apply again. Not for a
    // response pipelined behind another (no socket of its own yet; no browser pipelines): what it
    // writes waits in memory, and enough of it pauses the connection's reads, so its close goes unseen.
    if (res.socket) {
      const past = this.history?.take() ?? { events: [], complete: false };
      const events = past.events.flatMap((ev) => visibleEvent(ev, only) ?? []);
      send(`event: history\ndata: ${JSON.stringify({ node: this.bus.node, seq: snap.seq, complete: past.complete, events })}\n\n`);
    }
    res.on('drain', flush);
    const keepalive = setInterval(() => {
      if (!res.writableNeedDrain) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    // A response pipelined behind another on its connection (HTTP/1.1 pipelining: one packet may
    // carry 32 `GET /events`) is queued, never given the socket, and so never emits 'close' when
    // the connection dies: the connection's own 'close' ends it too, or its slot would be held forever.
    const onConnectionClose = this.connectionCloses(req.socket);
    const end = () => {
      clearInterval(keepalive);
      sub.close();
      this.open.delete(res);
      onConnectionClose.delete(end);
    };
    res.on('close', end); // the client went away (req's 'close' only means the request was read)
    onConnectionClose.add(end);
  }

  private frame(ev: ObservedEvent): string {
    let f = this.frames.get(ev);
    if (f === undefined) {
      if (this.frames.size === 0) setImmediate(() => this.frames.clear());
      f = `id: ${ev.seq}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
      this.frames.set(ev, f);
    }
    return f;
  }

  /** What to end when `socket` closes: one listener per connection, however many streams it pipelined. */
  private connectionCloses(socket: Socket): Set<() => void> {
    let ends = this.ends.get(socket);
    if (!ends) {
      const set = (ends = new Set());
      this.ends.set(socket, set);
      socket.once('close', () => {
        for (const end of [...set]) end();
        this.ends.delete(socket);
      });
    }
    return ends;
  }

  close(): void {
    this.history?.close();
    for (const res of this.open) res.end();
  }
}
