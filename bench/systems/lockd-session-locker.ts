// lockd.v1 Lease/Lock operations over the Session stream (src/client/session-client.ts): every
// locker of one workload that dials the same address shares ONE session (one bidirectional stream),
// as the clients of one process would; operations are multiplexed on it by correlation id. The
// unary LockdLocker gives the same loop over one HTTP/2 connection with a unary call per operation.
import { randomUUID } from 'node:crypto';
import { SessionClient } from '../../src/client/session-client.js';
import type { InFlight } from '../lib/grpc-call.js';
import type { Held, KeepAliveStream, Locker } from './locker.js';
import type { BenchTls } from '../lib/bench-tls.js';

interface Shared {
  readonly client: SessionClient;
  users: number;
}

/** Sessions by address, closed when their last locker closes (so each workload opens its own). */
const shared = new Map<string, Shared>();

export class LockdSessionLocker implements Locker {
  readonly label = 'lockd session';
  private readonly s: Shared;
  private closed = false;

  constructor(
    private readonly address: string,
    tls?: BenchTls,
    /** The client class: a baseline checkout's own build (--lockd-baseline), or this checkout's. */
    Client: typeof SessionClient = SessionClient,
  ) {
    let s = shared.get(address);
    if (!s) shared.set(address, (s = { client: new Client({ endpoints: [address], timeoutMs: 10_000, ...tls?.clientOptions() }), users: 0 }));
    s.users++;
    this.s = s;
  }

  async grant(ttlMs: number): Promise<string> {
    const r = await this.s.client.grant(ttlMs, { timeoutMs: 5000 });
    return String(r.leaseId);
  }

  async revoke(lease: string): Promise<void> {
    await this.s.client.revoke(Number(lease), { timeoutMs: 5000 });
  }

  async acquire(name: string, lease: string, timeoutMs: number, inflight?: InFlight): Promise<Held> {
    const ac = new AbortController();
    const handle = { cancel: () => ac.abort() };
    inflight?.add(handle);
    try {
      // A request id, as a real client sends so that a retried Acquire applies once.
      const r = await this.s.client.acquire(name, Number(lease), { wait: true, requestId: randomUUID(), timeoutMs, signal: ac.signal });
      if (!r.acquired) throw new Error(`lockd session acquire(${name}, wait) answered acquired=false`);
      return { name, handle: r.fencingToken };
    } finally {
      inflight?.delete(handle);
    }
  }

  async release(held: Held, timeoutMs: number): Promise<void> {
    const released = await this.s.client.release(held.name, Number(held.handle), { timeoutMs });
    if (!released) throw new Error(`lockd session release(${held.name}, ${held.handle}) answered released=false`);
  }

  keepAlives(): KeepAliveStream {
    throw new Error('LockdSessionLocker: keepalives are not session operations (use LockdLocker)');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (--this.s.users === 0) {
      shared.delete(this.address);
      this.s.client.close();
    }
  }
}
