// The bookkeeping every long-lived server stream of the lock API shares (Lease.KeepAlive,
// Session.Open, Lock.Observe), written once:
//  - a stream is open until it finishes (the client half-closed and nothing is pending: OK), fails
//    (we end it with a status) or is closed (the client went away); `onClose` runs once, however
//    it ends, so what the stream holds (watched leases, waiting operations) is released;
//  - backpressure: when write() returns false (the client does not read fast enough), the stream
//    is not read until it drains; likewise while `maxPending` of its requests await answers
//    (KeepAlive: answers wait for the next Tick, so reading on would queue renewals without bound).
//    Unread requests stay in the client's buffers and HTTP/2 flow control stops the client, so what
//    this server holds per stream is bounded by the answers to what it read before the pause (for a
//    session, at most its 1,024 operations in flight), never by what the client sends. Example: a
//    session client that writes 10,000 invalid operations and reads nothing has ~1,000 of them read
//    (the answers that fit its receive window); the rest wait in its own process.
//  - a stream that only writes (Observe) cannot stop its source: its backlog is bounded, and a
//    reader that falls that far behind is ended with RESOURCE_EXHAUSTED;
//  - what waits for a slow reader waits HERE, not in grpc-js: at most CALL_WRITES messages are
//    handed to the call unflushed, the rest queue in this stream and follow once the call has
//    flushed them. Every message grpc-js holds costs a write callback (an error object, a status)
//    when its connection drops, all in one turn of the loop: 400 unread Observe
//    streams holding 900 events each held a leader's loop for seconds when their connection
//    closed, past an election timeout. A queue of ours is dropped at once.
//  - a relay (the follower's KeepAlive proxy) reads each side only as fast as the other drains.
//  - bytes: every message sent is charged to the stream's account of the node's outbound budget
//    (admission/outbound-budget.ts) until grpc-js has flushed it; a stream over its cap ends with
//    RESOURCE_EXHAUSTED naming max-stream-outbound-bytes, and the budget ends the streams holding
//    the most when the node's total is over max-outbound-bytes. Each request read is charged to the
//    node's inbound budget (admission/inbound-budget.ts) while its handler runs; one over
//    max-inbound-bytes is refused (hooks.onRefused, else the stream ends). Not while the work it
//    began is pending: one waiting operation would then pin its whole message (up to 4 MiB, most of
//    it answered and freed at once) for as long as it waits, and 16 such streams the node's budget.
//    Pending work is bounded per stream instead (maxPending; a Session's operations in flight).
import * as grpc from '@grpc/grpc-js';
import { loopActivity } from '../observe/loop-activity.js';
import { ApiError } from './api-error.js';
import { messageBytes } from './admission/message-size.js';
import type { OutboundAccount, OutboundBudget } from './admission/outbound-budget.js';
import type { InboundBudget } from './admission/inbound-budget.js';

/** Messages a stream hands grpc-js before they are flushed (see the file comment). */
export const CALL_WRITES = 4;

/** What backpressure needs of a stream written to. */
interface Sink<T> {
  write(message: T): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** What backpressure needs of a stream read from. */
interface Source {
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
}

/** Write `message` to `to`; if `to` is full, stop reading `from` until `to` drains. */
function writeOrPause<T>(to: Sink<T>, message: T, from: Source): void {
  if (to.write(message) || from.isPaused()) return;
  from.pause();
  to.once('drain', () => from.resume());
}

/** Pass every message `from` sends on to `to`, reading `from` only as fast as `to` drains. */
export function relay<T>(from: Source & { on(event: 'data', listener: (m: T) => void): unknown }, to: Sink<T>, isOpen: () => boolean): void {
  from.on('data', (m: T) => {
    if (isOpen()) writeOrPause(to, m, from);
  });
}

type Call<Req, Res> = grpc.ServerDuplexStream<Req, Res> | grpc.ServerWritableStream<Req, Res>;

export interface StreamHooks<Req> {
  /** A request arrived on an open duplex stream (given: the call is read). */
  onRequest?(req: Req): void;
  /** A request refused by the inbound budget, never handled: answer it (default: the stream ends with `err`). */
  onRefused?(req: Req, err: ApiError): void;
  /** The stream ended, however: release what it holds. Runs once, before any status is sent. */
  onClose?(): void;
}

/** For a stream that only writes: how many messages may wait for a slow reader before it is ended. */
export interface Backlog {
  readonly messages: number;
  /** Who fell behind, for the status message (e.g. 'observer of "x"'). */
  readonly what: string;
}

export interface StreamLimits {
  /** For a duplex stream: requests pending (begun, not settled) at which reading pauses until one settles. */
  readonly maxPending?: number;
  /** For a stream that only writes: bounds what waits for a slow reader. */
  readonly backlog?: Backlog;
}

export class ServerStream<Req, Res> {
  private halfClosed = false;
  private pending = 0;
  private isOpen = true;
  /** write() returned false and 'drain' has not come yet. */
  private writeBlocked = false;
  /** Messages waiting for 'drain', oldest at `head` (see the file comment), and their charged bytes. */
  private queue: Res[] = [];
  private sizes: number[] = [];
  private head = 0;

  constructor(
    readonly call: Call<Req, Res>,
    private readonly hooks: StreamHooks<Req>,
    private readonly closed: (s: ServerStream<Req, Res>) => void,
    /** The call as read (a duplex call with onRequest): paused while the client does not read. */
    private readonly source: Source | undefined,
    private readonly limits: StreamLimits,
    /** This stream's share of the node's outbound budget (none: unbounded bytes, e.g. a test's streams). */
    private readonly account?: OutboundAccount,
    private readonly budgetEnded?: (call: Call<Req, Res>) => void,
    /** The node's inbound budget, charged for each request read (none: unbounded, e.g. a test's streams). */
    private readonly inbound?: InboundBudget,
  ) {}

  get open(): boolean {
    return this.isOpen;
  }

  /** A request read: charged to the inbound budget while its handler runs (see the file comment). */
  receive(req: Req, handle: (req: Req) => void): void {
    if (!this.inbound) return handle(req);
    const charge = this.inbound.charge(messageBytes(req));
    if ('refused' in charge) return this.refuse(req, charge.refused);
    try {
      handle(req);
    } finally {
      charge.credit();
    }
  }

  /** A request over the inbound budget, never handled. A throwing hook (a malformed request) ends the stream, never the process. */
  private refuse(req: Req, err: ApiError): void {
    if (!this.hooks.onRefused) return this.fail(err);
    try {
      this.hooks.onRefused(req, err);
    } catch {
      this.fail(err);
    }
  }

  /**
   * Work begun that answers later: after a half-close the stream does not finish before it settles.
   * Returns its settle (only its first run counts): the work is over, answered or not; that finishes
   * a half-closed stream with nothing left.
   */
  begin(): () => void {
    this.pending++;
    this.updateReading();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.pending--;
      this.updateReading();
      this.maybeFinish();
    };
  }

  /** Send a message (dropped if the stream is over), honouring backpressure (see the file comment). */
  send(res: Res): void {
    if (!this.isOpen) return;
    const bytes = this.account ? messageBytes(res) : 0;
    const over = this.account?.charge(bytes);
    if (over) return this.failForBytes(over);
    if (this.writeBlocked) {
      this.queue.push(res);
      this.sizes.push(bytes);
    } else this.write(res, bytes);
    const backlog = this.limits.backlog;
    if (backlog && this.call.writableLength + this.queued > backlog.messages)
      this.fail(new ApiError(grpc.status.RESOURCE_EXHAUSTED, `${backlog.what} fell ${backlog.messages} messages behind; reconnect`));
  }

  /** Messages waiting in this stream for the call to drain. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  private write(res: Res, bytes: number): void {
    const account = this.account;
    if (this.call.writableLength + 1 < CALL_WRITES) {
      // Flushed (or dropped with the stream): its bytes leave the budget.
      if (account) this.call.write(res, () => account.credit(bytes));
      else this.call.write(res);
      return;
    }
    // Full: this write's callback comes once it (and every write before it) is flushed.
    this.writeBlocked = true;
    this.call.write(res, (err?: Error | null) => {
      account?.credit(bytes);
      if (!err) this.drained();
    });
    this.updateReading();
  }

  /** The call flushed what it held: pass on what waits until it is full again. */
  private readonly drained = (): void => {
    this.writeBlocked = false;
    while (this.isOpen && !this.writeBlocked && this.queued > 0) {
      const res = this.queue[this.head];
      const bytes = this.sizes[this.head];
      this.queue[this.head++] = undefined as Res; // let it go now
      this.write(res, bytes);
    }
    if (this.queued === 0) this.dropQueue();
    else if (this.head > 1024) {
      this.queue = this.queue.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    this.updateReading();
    this.maybeFinish();
  };

  private dropQueue(): void {
    this.queue = [];
    this.sizes = [];
    this.head = 0;
  }

  /** Read the call only while its answers drain and not too much of its work is pending. */
  private updateReading(): void {
    const source = this.source;
    if (!source || !this.isOpen) return;
    const stop = this.writeBlocked || this.pending >= (this.limits.maxPending ?? Infinity);
    if (stop && !source.isPaused()) source.pause();
    else if (!stop && source.isPaused()) source.resume();
  }

  /** Ended by the outbound budget (its cap, or evicted): the reader may not take the status (admission/stuck-streams.ts). */
  failForBytes(err: ApiError): void {
    if (!this.isOpen) return;
    this.fail(err);
    this.budgetEnded?.(this.call);
  }

  /** End the stream with an error status. */
  fail(err: ApiError): void {
    if (this.close()) this.call.emit('error', err.toStatus());
  }

  /** The client half-closed its side: finish once nothing is pending. */
  halfClose(): void {
    this.halfClosed = true;
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (!this.isOpen || !this.halfClosed || this.pending > 0 || this.queued > 0) return;
    this.close();
    this.call.end();
  }

  /** The stream is over (the client went away, or before our own status). False if it already was. */
  close(): boolean {
    if (!this.isOpen) return false;
    this.isOpen = false;
    this.dropQueue(); // O(1), however far behind the reader was
    this.account?.close(); // and its bytes leave the budget at once
    loopActivity.run('stream teardown', () => {
      this.closed(this);
      this.hooks.onClose?.();
    });
    return true;
  }
}

/** The open streams of one kind (e.g. every KeepAlive stream this node serves). */
export class ServerStreams<Req, Res> {
  private readonly streams = new Set<ServerStream<Req, Res>>();

  /** `budget`/`inbound`: the node's outbound and inbound budgets, which every stream served here charges (admission/). */
  constructor(
    private readonly budget?: OutboundBudget,
    private readonly inbound?: InboundBudget,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /**
   * Serve `call` until it ends: with hooks.onRequest the call is read (a duplex call) and paused
   * while its client does not read (or limits.maxPending of its requests are pending); without, it
   * only writes, and limits.backlog bounds what waits.
   */
  serve(call: Call<Req, Res>, hooks: StreamHooks<Req>, limits: StreamLimits = {}): ServerStream<Req, Res> {
    const onRequest = hooks.onRequest;
    const duplex = onRequest ? (call as grpc.ServerDuplexStream<Req, Res>) : undefined;
    const budget = this.budget;
    const account = budget?.open((err) => s.failForBytes(err));
    const s: ServerStream<Req, Res> = new ServerStream(
      call,
      hooks,
      (x) => this.streams.delete(x),
      duplex,
      limits,
      account,
      budget && ((c) => budget.ended(c)),
      this.inbound,
    );
    this.streams.add(s);
    call.on('cancelled', () => s.close());
    call.on('error', () => s.close());
    if (duplex && onRequest) {
      duplex.on('data', (req: Req) => {
        if (s.open) s.receive(req, onRequest);
      });
      duplex.on('end', () => s.halfClose());
    }
    return s;
  }

  /** End every open stream with `err`. */
  endAll(err: ApiError): void {
    for (const s of [...this.streams]) s.fail(err);
  }
}
