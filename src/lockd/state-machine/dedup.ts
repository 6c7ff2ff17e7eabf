// Request-id deduplication: a retried (or late) mutating command returns the first outcome instead of
// applying twice (Grant/Acquire here and in their commands; the rest in request-once.ts).
// Bounded FIFO (oldest id forgotten first). Map insertion order is the FIFO order, and it is replicated:
// every replica inserts the same ids in the same log order, and snapshots preserve the order.

import type { AcquireStatus, ErrorKind } from './results.js';
import { DEDUP_CAPACITY } from './limits.js';

export interface GrantRecord {
  readonly type: 'Grant';
  readonly ttlMs: number;
  readonly leaseId: number;
}

/** For status = queued the outcome is still open: it is updated when the waiter is granted, dropped when it leaves. */
export interface AcquireRecord {
  readonly type: 'Acquire';
  readonly name: string;
  readonly leaseId: number;
  readonly wait: boolean;
  readonly status: AcquireStatus;
  readonly token: number;
  readonly holderLeaseId: number;
  readonly holderToken: number;
}

/** Release: what it did to the grant (name, token); that grant ends once and never comes back, so released stays true. */
export interface ReleaseRecord {
  readonly type: 'Release';
  readonly name: string;
  readonly token: number;
  readonly released: boolean;
}

/** Revoke: the lease this request ended (lease ids are never reused, so that stays true). */
export interface RevokeRecord {
  readonly type: 'Revoke';
  readonly leaseId: number;
}

/** CancelWait: what the first attempt did; heldToken is re-read at replay unless it was released. */
export interface CancelWaitRecord {
  readonly type: 'CancelWait';
  readonly name: string;
  readonly leaseId: number;
  readonly abandonedAtIndex: number;
  readonly removed: boolean;
  readonly released: boolean;
  readonly heldToken: number;
}

/**
 * FenceWrite / FenceDelete: the outcome, refusals included (a write refused once must not be applied
 * by a late attempt after the client acted on the refusal). `digest` identifies the value written
 * ('' for a delete) without keeping up to 64 KiB per record; it is not cryptographic, so a client
 * that reuses its own id with a colliding value only gets its own first answer back.
 */
export interface FenceRecord {
  readonly type: 'FenceWrite' | 'FenceDelete';
  readonly key: string;
  readonly token: number;
  readonly lock: string;
  readonly digest: string;
  /** undefined: accepted. */
  readonly error?: ErrorKind;
  readonly message: string;
  readonly highestToken: number;
  readonly deleted: boolean;
}

export type DedupRecord = GrantRecord | AcquireRecord | ReleaseRecord | RevokeRecord | CancelWaitRecord | FenceRecord;

export class DedupTable {
  private readonly records = new Map<string, DedupRecord>();

  constructor(readonly capacity: number = DEDUP_CAPACITY) {}

  get size(): number {
    return this.records.size;
  }

  get(requestId: string): DedupRecord | undefined {
    return this.records.get(requestId);
  }

  /** Remember a new id, forgetting the oldest beyond capacity. */
  add(requestId: string, rec: DedupRecord): void {
    if (this.records.has(requestId)) throw new Error(`dedup: request id ${requestId} already recorded`);
    this.records.set(requestId, rec);
    while (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value as string;
      this.records.delete(oldest);
    }
  }

  /** Replace an existing record's outcome, keeping its place in the FIFO. */
  replace(requestId: string, rec: DedupRecord): void {
    if (!this.records.has(requestId)) throw new Error(`dedup: request id ${requestId} not recorded`);
    this.records.set(requestId, rec);
  }

  delete(requestId: string): void {
    this.records.delete(requestId);
  }

  /** Oldest first. */
  entries(): IterableIterator<[string, DedupRecord]> {
    return this.records.entries();
  }
}
