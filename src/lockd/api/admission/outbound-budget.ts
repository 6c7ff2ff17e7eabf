// Bytes of outbound stream messages that wait for their readers, bounded per stream and in total
// (a global memory budget for what slow readers leave unread). Every long-lived stream of the lock
// API (Session, KeepAlive, Observe, Election.Observe: api/server-stream.ts) charges its account
// for each message it sends and is credited once grpc-js has flushed it (the message's write
// callback: HTTP/2 flow control holds it until the client reads). Over its own cap a stream ends
// with RESOURCE_EXHAUSTED naming max-stream-outbound-bytes. Over the total, the streams holding
// the most are ended (RESOURCE_EXHAUSTED naming max-outbound-bytes) until the total fits: the slow
// readers go, not whichever stream happened to send next. Ending a stream drops its queue at once
// (server-stream.ts), so nothing here waits on a client, and an eviction is O(streams), run after
// the send that went over has returned (never inside another stream's send). A stream so ended
// whose reader does not take its status has its connection closed (stuck-streams.ts).
import type { ApiError } from '../api-error.js';
import { closeIfStuck, type EndedCall } from './stuck-streams.js';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import { LimitUse } from './limit-use.js';

/** One stream's share of the budget. */
export interface OutboundAccount {
  /** Bytes this stream holds unflushed. */
  readonly bytes: number;
  /** Charge `n` bytes; undefined if the stream is within its cap, else the error it must end with. */
  charge(n: number): ApiError | undefined;
  /** Credit `n` bytes (a message flushed or dropped). */
  credit(n: number): void;
  /** The stream ended: its whole balance is returned at once. */
  close(): void;
}

class Account implements OutboundAccount {
  bytes = 0;
  open = true;

  constructor(
    private readonly budget: OutboundBudget,
    /** Ends the stream (it was chosen to go to bring the total within the budget). */
    readonly evict: (err: ApiError) => void,
  ) {}

  charge(n: number): ApiError | undefined {
    if (!this.open) return undefined;
    this.bytes += n;
    return this.budget.charged(this, n);
  }

  credit(n: number): void {
    if (!this.open) return;
    this.bytes -= n;
    this.budget.credited(n);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.budget.closed(this);
  }
}

export class OutboundBudget {
  private total = 0;
  private readonly accounts = new Set<Account>();
  private evictionDue = false;
  readonly totalUse: LimitUse;
  readonly streamUse: LimitUse;

  constructor(settings: Pick<AdmissionSettings, 'outboundBytes' | 'streamOutboundBytes'>, onRefusal?: (use: LimitUse) => void) {
    this.totalUse = new LimitUse('max-outbound-bytes', settings.outboundBytes, () => this.total, onRefusal);
    this.streamUse = new LimitUse('max-stream-outbound-bytes', settings.streamOutboundBytes, () => this.largest()?.bytes ?? 0, onRefusal);
  }

  /** Set by admission once the node can close client connections (admission.ts); none: a stuck stream stays until its client goes. */
  closeConnection: ((peer: string) => boolean) | undefined;

  /** A stream this budget ended (its cap, or evicted): its connection goes if its status cannot. */
  ended(call: EndedCall): void {
    if (this.closeConnection) closeIfStuck(call, this.closeConnection);
  }

  /** Bytes held by every stream (tests, status). */
  get bytes(): number {
    return this.total;
  }

  get streams(): number {
    return this.accounts.size;
  }

  /** An account for a new stream; `evict` ends that stream when the total is over and it holds the most. */
  open(evict: (err: ApiError) => void): OutboundAccount {
    const a = new Account(this, evict);
    this.accounts.add(a);
    return a;
  }

  /** @internal (Account) */
  charged(a: Account, n: number): ApiError | undefined {
    this.total += n;
    if (a.bytes > this.streamUse.limit)
      return this.streamUse.refuse("this stream's reader left that many bytes unread; read faster or ask for less at once, and reconnect");
    if (this.total > this.totalUse.limit && !this.evictionDue) {
      this.evictionDue = true;
      queueMicrotask(this.evict);
    }
    return undefined;
  }

  /** @internal (Account) */
  credited(n: number): void {
    this.total -= n;
  }

  /** @internal (Account) */
  closed(a: Account): void {
    this.accounts.delete(a);
    this.total -= a.bytes;
    a.bytes = 0;
  }

  private largest(): Account | undefined {
    let best: Account | undefined;
    for (const a of this.accounts) if (!best || a.bytes > best.bytes) best = a;
    return best;
  }

  /** End the streams holding the most until the total is within the budget. */
  private readonly evict = (): void => {
    this.evictionDue = false;
    while (this.total > this.totalUse.limit) {
      const a = this.largest();
      if (!a || a.bytes === 0) return;
      const held = a.bytes;
      a.close(); // its balance leaves the total now, whatever the stream does next
      a.evict(
        this.totalUse.refuse(
          `this node's streams hold ${this.total + held} bytes their readers have not read; this stream held the most (${held} bytes): read faster and reconnect`,
        ),
      );
    }
  };
}
