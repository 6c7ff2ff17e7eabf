// Request-id deduplication: a retried Grant/Acquire returns the first outcome instead of applying twice.
// Bounded FIFO (oldest id forgotten first). Map insertion order is the FIFO order, and it is replicated:
// every replica inserts the same ids in the same log order, and snapshots preserve the order.

import type { AcquireStatus } from './results.js';
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

export type DedupRecord = GrantRecord | AcquireRecord;

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
