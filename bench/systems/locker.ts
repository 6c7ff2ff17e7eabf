// One lock client, the same shape for every system and recipe, so every workload runs the same
// loop against each. Lease ids are decimal strings (etcd's use all 63 bits).
import type { InFlight } from '../lib/grpc-call.js';

export interface Held {
  readonly name: string;
  /** System-specific handle: lockd's fencing token, etcd's lock key. */
  readonly handle: string | number;
}

export interface Locker {
  /** e.g. "lockd", "etcd v3lock", "etcd mutex". */
  readonly label: string;
  grant(ttlMs: number): Promise<string>;
  revoke(lease: string): Promise<void>;
  /** Blocking acquire: resolves once `lease` holds `name`. */
  acquire(name: string, lease: string, timeoutMs: number, inflight?: InFlight): Promise<Held>;
  release(held: Held, timeoutMs: number): Promise<void>;
  keepAlives(): KeepAliveStream;
  close(): void;
}

/** A bidirectional keepalive stream: one request renews one lease; replies come back in order. */
export interface KeepAliveStream {
  send(lease: string): void;
  onReply(cb: (lease: string, ttlMs: number) => void): void;
  onError(cb: (e: Error) => void): void;
  close(): void;
}
