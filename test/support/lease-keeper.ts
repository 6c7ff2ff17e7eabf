// Keeps one lease alive over the KeepAlive stream, as a minimal client would: a renewal every
// interval, and on a broken stream a reconnect to the next endpoint. For tests and helper scripts.
import type * as grpc from '@grpc/grpc-js';
import type { LeaseKeepAliveRequest } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import type { LockApi } from './lock-api-client.js';

export class LeaseKeeper {
  acks = 0;
  lastTtlMs = -1;
  /** Set when the server said ttl_ms = 0 for the lease. */
  lost = false;
  reconnects = 0;
  /** Send times of the requests on the current stream not yet answered (answers come in order). */
  private unanswered: number[] = [];
  private stream: grpc.ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private stopped = false;

  constructor(
    private readonly apis: readonly LockApi[],
    readonly leaseId: number,
    private readonly intervalMs: number,
    private readonly onLost: () => void = () => {},
    /** Each renewal, with the send time (Date.now()) of the request it answered. */
    private readonly onAck: (sentAt: number) => void = () => {},
  ) {}

  start(): this {
    this.connect();
    this.timer = setInterval(() => this.send(), this.intervalMs);
    this.send();
    return this;
  }

  private connect(): void {
    if (this.stopped) return;
    const api = this.apis[this.next++ % this.apis.length];
    const s = api.keepAliveStream();
    this.stream = s;
    this.unanswered = [];
    s.on('data', (res: LeaseKeepAliveResponse__Output) => {
      if (res.leaseId !== this.leaseId) return;
      const sentAt = this.unanswered.shift();
      if (sentAt !== undefined && res.ttlMs > 0) this.onAck(sentAt);
      this.acks++;
      this.lastTtlMs = res.ttlMs;
      if (res.ttlMs === 0 && !this.lost) {
        this.lost = true;
        this.onLost();
      }
    });
    const broken = () => {
      if (this.stream !== s || this.stopped) return;
      this.stream = undefined;
      this.reconnects++;
      setTimeout(() => this.connect(), 50);
    };
    s.on('error', broken);
    s.on('end', broken);
  }

  private send(): void {
    if (this.lost || !this.stream) return;
    this.unanswered.push(Date.now());
    this.stream.write({ leaseId: this.leaseId });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.stream?.cancel();
    this.stream = undefined;
  }
}
