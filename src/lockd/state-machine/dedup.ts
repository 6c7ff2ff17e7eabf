// Request-id deduplication: a retried (or late) mutating command returns the first outcome instead of
// applying twice (Grant/Acquire here and in their commands; the rest in request-once.ts).
// Bounded FIFO (oldest id forgotten first). Map insertion order is the FIFO order, and it is replicated:
// every replica inserts the same ids in the same log order, and snapshots preserve the order.
// Each id is charged to a principal (quotas.ts). An id added under quotas (`window` given) first
// forgets its principal's oldest ids beyond that principal's window, then the table's oldest beyond
// DEDUP_CAPACITY_QUOTAS; one added before quotas forgets the table's oldest beyond DEDUP_CAPACITY,
// as it always did, so one principal's calls no longer shorten another's window once quotas apply.
// A record is a memory, not the truth (docs/lessons.md 11): lock-commands.ts `replay` answers a retry with
// what is true now, and the records of open waits are kept true as the waits end (lock-transitions.ts).

import type { AcquireStatus, ErrorKind } from './results.js';
import { DEDUP_CAPACITY, DEDUP_CAPACITY_QUOTAS } from './limits.js';
import { ANONYMOUS } from './acl-table.js';

export interface GrantRecord {
  readonly type: 'Grant';
  readonly ttlMs: number;
  readonly leaseId: number;
  /** The principal that asked: only its retries are answered with this lease, live or ended. */
  readonly owner: string;
}

/**
 * For status = queued and wait = true the outcome is still open: every such record of a waiter is
 * settled to 'acquired' when the waiter is granted, and dropped when it leaves (waitsOf).
 */
export interface AcquireRecord {
  readonly type: 'Acquire';
  readonly name: string;
  readonly leaseId: number;
  readonly wait: boolean;
  /** The request's recipe (normalised: permits >= 1), so a reused id with another one is refused. */
  readonly permits: number;
  readonly shared: boolean;
  readonly lockDelayMs: number;
  readonly value: string;
  readonly status: Exclude<AcquireStatus, 'ended'>;
  readonly token: number;
  readonly holderLeaseId: number;
  readonly holderToken: number;
}

/** Release: what it did to the grant (name, token); that grant ends once and never comes back, so released stays true. */
export interface ReleaseRecord {
  readonly type: 'Release';
  readonly name: string;
  readonly token: number;
  /** The request's lease_id (0 = none given). */
  readonly leaseId: number;
  readonly released: boolean;
}

/** SetPermits: what it changed; a late duplicate must not undo a later change. */
export interface SetPermitsRecord {
  readonly type: 'SetPermits';
  readonly name: string;
  readonly permits: number;
  readonly previous: number;
  readonly granted: number;
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

/** AclGrant / AclRevoke: the rule and whether the first attempt changed it (a late attempt must not undo a later change). */
export interface AclRecord {
  readonly type: 'AclGrant' | 'AclRevoke';
  readonly subject: string;
  readonly prefix: string;
  readonly verb: string;
  readonly changed: boolean;
}

/** QuotaSet: what it asked (a late attempt must not undo a later change). `spec` is the request's canonical form. */
export interface QuotaRecord {
  readonly type: 'QuotaSet';
  readonly subject: string;
  readonly spec: string;
}

export type DedupRecord =
  GrantRecord | AcquireRecord | ReleaseRecord | RevokeRecord | CancelWaitRecord | FenceRecord | SetPermitsRecord | AclRecord | QuotaRecord;

/** Records of open waits (Acquire, wait = true, status = queued), by the waiter they follow. */
const openWait = (r: DedupRecord | undefined): r is AcquireRecord => r?.type === 'Acquire' && r.wait && r.status === 'queued';
const waitKey = (leaseId: number, name: string) => `${leaseId}\u0000${name}`; // names hold no control characters

export class DedupTable {
  private readonly records = new Map<string, DedupRecord>();
  /**
   * Derived index of the open-wait records (several request ids may wait by one waiter: retries
   * under new ids, other calls). Not snapshotted: add() rebuilds it, in FIFO order, on restore.
   */
  private readonly waits = new Map<string, Set<string>>();

  /** The principal each id is charged to (snapshotted from format 9; before it, legacyOwner). */
  private readonly owners = new Map<string, string>();
  /** Derived: each principal's ids in FIFO order. */
  private readonly byOwner = new Map<string, Set<string>>();

  constructor(
    /** The shared window of entries before quotas. */
    readonly capacity: number = DEDUP_CAPACITY,
    /** The bound on every principal's windows together. */
    readonly maxSize: number = Math.max(capacity, DEDUP_CAPACITY_QUOTAS),
  ) {}

  get size(): number {
    return this.records.size;
  }

  get(requestId: string): DedupRecord | undefined {
    return this.records.get(requestId);
  }

  /**
   * Remember a new id. `charge` undefined (an entry before quotas): charged to legacyOwner, the
   * table's oldest forgotten beyond `capacity`. Else charged to `charge.principal`, whose oldest ids
   * beyond `charge.window` go first, then the table's oldest beyond `maxSize`.
   */
  add(requestId: string, rec: DedupRecord, charge?: { readonly principal: string; readonly window: number }): void {
    this.put(requestId, rec, charge?.principal ?? legacyOwner(rec));
    if (charge) {
      const mine = this.byOwner.get(charge.principal);
      while (mine && mine.size > charge.window) this.delete(mine.values().next().value as string);
    }
    const bound = charge ? this.maxSize : this.capacity;
    while (this.records.size > bound) this.delete(this.records.keys().next().value as string);
  }

  /** A snapshot's record, in FIFO order, forgetting nothing (the snapshot holds what the table held). */
  restore(requestId: string, rec: DedupRecord, owner: string): void {
    this.put(requestId, rec, owner);
  }

  /** The principal `requestId` is charged to. */
  ownerOf(requestId: string): string | undefined {
    return this.owners.get(requestId);
  }

  /** The principals charged at least one id. */
  principals(): IterableIterator<string> {
    return this.byOwner.keys();
  }

  /** Ids charged to `principal`. */
  countOf(principal: string): number {
    return this.byOwner.get(principal)?.size ?? 0;
  }

  private put(requestId: string, rec: DedupRecord, owner: string): void {
    if (this.records.has(requestId)) throw new Error(`dedup: request id ${requestId} already recorded`);
    this.records.set(requestId, rec);
    this.owners.set(requestId, owner);
    let mine = this.byOwner.get(owner);
    if (!mine) this.byOwner.set(owner, (mine = new Set()));
    mine.add(requestId);
    this.index(requestId, undefined, rec);
  }

  /** Replace an existing record's outcome, keeping its place in the FIFO. */
  replace(requestId: string, rec: DedupRecord): void {
    const old = this.records.get(requestId);
    if (!old) throw new Error(`dedup: request id ${requestId} not recorded`);
    this.records.set(requestId, rec);
    this.index(requestId, old, rec);
  }

  delete(requestId: string): void {
    this.index(requestId, this.records.get(requestId), undefined);
    this.records.delete(requestId);
    const owner = this.owners.get(requestId);
    if (owner === undefined) return;
    this.owners.delete(requestId);
    const mine = this.byOwner.get(owner);
    mine?.delete(requestId);
    if (mine?.size === 0) this.byOwner.delete(owner);
  }

  /** Request ids whose open-wait record follows the waiter (leaseId, name), oldest first. */
  waitsOf(leaseId: number, name: string): string[] {
    return [...(this.waits.get(waitKey(leaseId, name)) ?? [])];
  }

  private index(requestId: string, before: DedupRecord | undefined, after: DedupRecord | undefined): void {
    if (openWait(before)) {
      const k = waitKey(before.leaseId, before.name);
      const set = this.waits.get(k);
      set?.delete(requestId);
      if (set?.size === 0) this.waits.delete(k);
    }
    if (openWait(after)) {
      const k = waitKey(after.leaseId, after.name);
      let set = this.waits.get(k);
      if (!set) this.waits.set(k, (set = new Set()));
      set.add(requestId);
    }
  }

  /** Oldest first. */
  entries(): IterableIterator<[string, DedupRecord]> {
    return this.records.entries();
  }
}

/**
 * Who an id recorded before quotas is charged to: a Grant's asker, else the anonymous principal.
 * A snapshot of format 8 (no owners) is read this way, and one whose owners are all these is still
 * written as format 8 (snapshot-codec.ts), which a build before quotas reads.
 */
export function legacyOwner(rec: DedupRecord): string {
  return rec.type === 'Grant' ? rec.owner : ANONYMOUS;
}
