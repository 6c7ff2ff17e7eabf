// Plain promise wrappers over the lockd.v1 gRPC clients, for tests and the helper scripts they
// run as child processes (the real TS client library lives in src/client; these tests use the
// wire API directly so that they check the server and nothing else). With `retryUnavailable`, each
// unary call is retried on UNAVAILABLE with the same request (and a request id of its own when the
// caller gave none), as the real client does: for tests that are not about a leader change.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { LeaseClient } from '../../src/proto/gen/lockd/v1/Lease.js';
import type { LockClient } from '../../src/proto/gen/lockd/v1/Lock.js';
import type { FenceClient } from '../../src/proto/gen/lockd/v1/Fence.js';
import type { LeaseGrantResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseGrantResponse.js';
import type { LeaseTimeToLiveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseTimeToLiveResponse.js';
import type { LeaseListResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseListResponse.js';
import type { AcquireResponse__Output } from '../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { InspectResponse__Output } from '../../src/proto/gen/lockd/v1/InspectResponse.js';
import type { CancelWaitResponse__Output } from '../../src/proto/gen/lockd/v1/CancelWaitResponse.js';
import type { SetPermitsResponse__Output } from '../../src/proto/gen/lockd/v1/SetPermitsResponse.js';
import type { FenceReadResponse__Output } from '../../src/proto/gen/lockd/v1/FenceReadResponse.js';
import type { FenceDeleteResponse__Output } from '../../src/proto/gen/lockd/v1/FenceDeleteResponse.js';
import type { LockEvent__Output } from '../../src/proto/gen/lockd/v1/LockEvent.js';
import type { LeaseKeepAliveRequest } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { retryUnavailable } from './retry-unavailable.js';

export const DEFAULT_TIMEOUT_MS = 5000;

export interface CallOpts {
  readonly timeoutMs?: number;
}

type Cb<T> = (err: grpc.ServiceError | null, res?: T) => void;

type Start<T> = (md: grpc.Metadata, opts: grpc.CallOptions, cb: Cb<T>) => unknown;

function once<T>(start: Start<T>, deadline: number): Promise<T> {
  const opts: grpc.CallOptions = Number.isFinite(deadline) ? { deadline } : {};
  return new Promise((resolve, reject) => start(new grpc.Metadata(), opts, (err, res) => (err ? reject(err) : resolve(res as T))));
}

export interface LockApiOptions {
  /** Retry UNAVAILABLE with the same request until the call's deadline (see the header). */
  readonly retryUnavailable?: boolean;
}

/** One node's three lock services. */
export class LockApi {
  readonly lease: LeaseClient;
  readonly lock: LockClient;
  readonly fence: FenceClient;
  private readonly retrying: boolean;

  constructor(
    readonly address: string,
    opts: LockApiOptions = {},
  ) {
    this.retrying = opts.retryUnavailable ?? false;
    const creds = grpc.credentials.createInsecure();
    this.lease = new lockdProto.lockd.v1.Lease(address, creds);
    this.lock = new lockdProto.lockd.v1.Lock(address, creds);
    this.fence = new lockdProto.lockd.v1.Fence(address, creds);
  }

  private unary<T>(start: Start<T>, o: CallOpts = {}): Promise<T> {
    const deadline = Date.now() + (o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return this.retrying ? retryUnavailable(deadline, (d) => once(start, d)) : once(start, deadline);
  }

  /** The request id a mutating call sends: the caller's, else one of its own when retrying (so a retry is applied once). */
  private id(requestId: string | undefined): string {
    return requestId ?? (this.retrying ? `test-${randomUUID()}` : '');
  }

  grant(ttlMs: number, o: CallOpts & { requestId?: string } = {}): Promise<LeaseGrantResponse__Output> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lease.Grant({ ttlMs, requestId }, md, opts, cb), o);
  }

  revoke(leaseId: number, o: CallOpts & { requestId?: string } = {}): Promise<unknown> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lease.Revoke({ leaseId, requestId }, md, opts, cb), o);
  }

  timeToLive(leaseId: number, o: CallOpts = {}): Promise<LeaseTimeToLiveResponse__Output> {
    return this.unary((md, opts, cb) => this.lease.TimeToLive({ leaseId }, md, opts, cb), o);
  }

  /** Lease.List; with no page fields the request is what a client from before paging sent. */
  list(o: CallOpts & { pageSize?: number; pageToken?: string } = {}): Promise<LeaseListResponse__Output> {
    const req = o.pageSize === undefined && o.pageToken === undefined ? {} : { pageSize: o.pageSize ?? 0, pageToken: o.pageToken ?? '' };
    return this.unary((md, opts, cb) => this.lease.List(req, md, opts, cb), o);
  }

  acquire(name: string, leaseId: number, o: CallOpts & { wait?: boolean; requestId?: string; permits?: number } = {}): Promise<AcquireResponse__Output> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lock.Acquire({ name, leaseId, wait: o.wait ?? false, requestId, permits: o.permits ?? 0 }, md, opts, cb), o);
  }

  setPermits(name: string, permits: number, o: CallOpts & { requestId?: string } = {}): Promise<SetPermitsResponse__Output> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lock.SetPermits({ name, permits, requestId }, md, opts, cb), o);
  }

  /** A waiting Acquire that can be cancelled by the caller. */
  acquireCancellable(name: string, leaseId: number, o: CallOpts & { requestId?: string } = {}): { result: Promise<AcquireResponse__Output>; cancel(): void } {
    let call: grpc.ClientUnaryCall | undefined;
    const requestId = this.id(o.requestId); // one id for every attempt
    const result = this.unary<AcquireResponse__Output>((md, opts, cb) => (call = this.lock.Acquire({ name, leaseId, wait: true, requestId }, md, opts, cb)), o);
    return { result, cancel: () => call?.cancel() };
  }

  /** Release; `leaseId` 0 (the default, as the clients' low-level release sends) = whichever grant the token names. */
  release(name: string, fencingToken: number, o: CallOpts & { requestId?: string; leaseId?: number } = {}): Promise<{ released: boolean }> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lock.Release({ name, fencingToken, requestId, leaseId: o.leaseId ?? 0 }, md, opts, cb), o);
  }

  inspect(name: string, o: CallOpts = {}): Promise<InspectResponse__Output> {
    return this.unary((md, opts, cb) => this.lock.Inspect({ name }, md, opts, cb), o);
  }

  cancelWait(name: string, leaseId: number, o: CallOpts & { requestId?: string } = {}): Promise<CancelWaitResponse__Output> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.lock.CancelWait({ name, leaseId, requestId }, md, opts, cb), o);
  }

  fenceWrite(
    key: string,
    value: Uint8Array | string,
    fencingToken: number,
    o: CallOpts & { requestId?: string; lock?: string } = {},
  ): Promise<{ highestToken: number }> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.fence.Write({ key, value: Buffer.from(value), fencingToken, requestId, lock: o.lock ?? '' }, md, opts, cb), o);
  }

  fenceDelete(key: string, fencingToken: number, o: CallOpts & { requestId?: string; lock?: string } = {}): Promise<FenceDeleteResponse__Output> {
    const requestId = this.id(o.requestId); // one id for every attempt
    return this.unary((md, opts, cb) => this.fence.Delete({ key, fencingToken, requestId, lock: o.lock ?? '' }, md, opts, cb), o);
  }

  fenceRead(key: string, o: CallOpts = {}): Promise<FenceReadResponse__Output> {
    return this.unary((md, opts, cb) => this.fence.Read({ key }, md, opts, cb), o);
  }

  /** Observe `name`; resolves once the server has sent headers (the subscription is active). */
  async observe(name: string): Promise<Observation> {
    const stream = this.lock.Observe({ name });
    const obs = new Observation(stream);
    await new Promise<void>((resolve, reject) => {
      stream.once('metadata', () => resolve());
      stream.once('error', reject);
    });
    return obs;
  }

  keepAliveStream(): grpc.ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output> {
    return this.lease.KeepAlive();
  }

  close(): void {
    this.lease.close();
    this.lock.close();
    this.fence.close();
  }
}

/** Events received on one Observe stream. */
export class Observation {
  readonly events: LockEvent__Output[] = [];
  error: grpc.ServiceError | undefined;

  constructor(private readonly stream: grpc.ClientReadableStream<LockEvent__Output>) {
    stream.on('data', (ev: LockEvent__Output) => this.events.push(ev));
    stream.on('error', (e: grpc.ServiceError) => (this.error = e));
  }

  cancel(): void {
    this.stream.cancel();
  }
}

/** The status code of a rejected call (throws if the promise resolved). */
export async function statusOf(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
