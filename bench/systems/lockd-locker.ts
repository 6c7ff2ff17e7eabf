// lockd.v1 Lease/Lock over unary gRPC calls (the same pattern as the etcd lockers).
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { AcquireResponse__Output } from '../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { LeaseGrantResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseGrantResponse.js';
import type { LeaseKeepAliveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import type { ReleaseResponse__Output } from '../../src/proto/gen/lockd/v1/ReleaseResponse.js';
import { CHANNEL_OPTIONS, unary, type InFlight } from '../lib/grpc-call.js';
import type { Held, KeepAliveStream, Locker } from './locker.js';
import type { BenchTls } from '../lib/bench-tls.js';

export class LockdLocker implements Locker {
  readonly label = 'lockd';
  private readonly lease: grpc.Client;
  private readonly lock: grpc.Client;

  constructor(address: string, tls?: BenchTls) {
    const creds = tls?.credentials() ?? grpc.credentials.createInsecure();
    this.lease = new lockdProto.lockd.v1.Lease(address, creds, CHANNEL_OPTIONS);
    this.lock = new lockdProto.lockd.v1.Lock(address, creds, CHANNEL_OPTIONS);
  }

  async grant(ttlMs: number): Promise<string> {
    const r = await unary<LeaseGrantResponse__Output>(this.lease, 'Grant', { ttlMs, requestId: randomUUID() }, 5000);
    return String(r.leaseId);
  }

  async revoke(lease: string): Promise<void> {
    await unary(this.lease, 'Revoke', { leaseId: Number(lease) }, 5000);
  }

  async acquire(name: string, lease: string, timeoutMs: number, inflight?: InFlight): Promise<Held> {
    // A request id, as a real client sends so that a retried Acquire applies once.
    const r = await unary<AcquireResponse__Output>(
      this.lock,
      'Acquire',
      { name, leaseId: Number(lease), wait: true, requestId: randomUUID() },
      timeoutMs,
      inflight,
    );
    if (!r.acquired) throw new Error(`lockd Acquire(${name}, wait) answered acquired=false`);
    return { name, handle: r.fencingToken };
  }

  async release(held: Held, timeoutMs: number): Promise<void> {
    const r = await unary<ReleaseResponse__Output>(this.lock, 'Release', { name: held.name, fencingToken: held.handle }, timeoutMs);
    if (!r.released) throw new Error(`lockd Release(${held.name}, ${held.handle}) answered released=false`);
  }

  keepAlives(): KeepAliveStream {
    const call = (this.lease as unknown as { KeepAlive(): grpc.ClientDuplexStream<{ leaseId: number }, LeaseKeepAliveResponse__Output> }).KeepAlive();
    return {
      send: (lease) => void call.write({ leaseId: Number(lease) }),
      onReply: (cb) => void call.on('data', (r: LeaseKeepAliveResponse__Output) => cb(String(r.leaseId), r.ttlMs)),
      onError: (cb) => void call.on('error', (e: Error) => cb(e)),
      close: () => {
        call.on('error', () => {});
        call.cancel();
      },
    };
  }

  close(): void {
    this.lease.close();
    this.lock.close();
  }
}
