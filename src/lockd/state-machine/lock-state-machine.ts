// The replicated lease/lock state machine: committed entries in, results and events out.
// Pure and deterministic: no I/O, no clock, no randomness. Time arrives only as Tick commands.

import type { Entry } from '../../raft/types.js';
import type { ApplyResult } from './results.js';
import type { StateEvent } from './state-events.js';
import type { Command } from './commands.js';
import { ApplyContext } from './apply-context.js';
import { decodeCommand } from './command-codec.js';
import { validateCommand } from './validate.js';
import { failure } from './results.js';
import { MachineState } from './state.js';
import { applyGrant, applyRevoke, applyTick } from './lease-commands.js';
import { applyAcquire, applyCancelWait, applyProclaim, applyRelease, applySetPermits } from './lock-commands.js';
import { applyFenceDelete, applyFenceWrite } from './fence-commands.js';
import { applyOnce } from './request-once.js';
import { authorize } from './authorize.js';
import { applyAclGrant, applyAclRevoke } from './acl-commands.js';
import { applyQuotaSet } from './quota-commands.js';
import { SHARED_PRINCIPAL, type QuotaOverrides, type Quotas } from './quotas.js';
import { aclAllows, type AclRule, type AclVerb } from './acl-table.js';
import { checkInvariants } from './invariant-sweep.js';
import { check } from './invariant-error.js';
import { decodeState, encodeState } from './snapshot-codec.js';
import { bytesEqual, digest64 } from './bytes.js';
import { sortedNames } from './order.js';
import { lockMode, machineView, type LockMode, type MachineView, type ViewFilter } from './machine-view.js';
import { reapLock } from './lock-transitions.js';
import { isLive, leaseIsLive } from './lease-live.js';

/** The lock a command reads or changes, if any ('' = none). */
function lockNamed(cmd: Command): string {
  switch (cmd.type) {
    case 'Acquire':
    case 'Release':
    case 'CancelWait':
    case 'SetPermits':
    case 'Proclaim':
      return cmd.name;
    case 'FenceWrite':
    case 'FenceDelete':
      return cmd.lock ?? '';
    default:
      return '';
  }
}

/** A committed Raft entry (src/raft Entry fits); term is not used by the state machine. */
export type EntryLike = Pick<Entry, 'index' | 'data'> & { readonly term?: number; readonly type?: Entry['type'] };

export interface ApplyOutput {
  readonly index: number;
  /** The proposer's answer; undefined for a Raft no-op (empty data) and a config entry. */
  readonly result: ApplyResult | undefined;
  /** What happened, in order (see state-events.ts). */
  readonly events: readonly StateEvent[];
}

export interface HolderView {
  readonly leaseId: number;
  readonly token: number;
  readonly shared: boolean;
  readonly lockDelayMs: number;
  /** Election: the grant's value ('' = none). */
  readonly value: string;
}

export interface LockView {
  readonly held: boolean;
  /** The first (oldest) holder's token; 0 when not held. For a mutex: the holder. */
  readonly token: number;
  readonly holderLeaseId: number;
  /** FIFO order: the first is granted next. */
  readonly waitingLeaseIds: readonly number[];
  /** Whether each waiter (same order) asks shared. */
  readonly waitingShared: readonly boolean[];
  /** Every holder, in grant order. */
  readonly holders: readonly HolderView[];
  /** 1 for a mutex (and a free name). */
  readonly permits: number;
  /** Logical time the lock-delay ends (0 = none), and how long that is from now. */
  readonly delayUntil: number;
  readonly delayRemainingMs: number;
  /** Made by Election.Campaign (LockRecord.election); false for a lock and a free name. */
  readonly election: boolean;
}

export interface LeaseView {
  readonly leaseId: number;
  readonly grantedTtlMs: number;
  /** The principal that granted it. */
  readonly owner: string;
  /** deadline - now on the replicated clock (includes the margin, so it may exceed the TTL just after a renewal). */
  readonly remainingMs: number;
  /** Names held (sorted). */
  readonly locks: readonly string[];
  /** Names waited on (sorted). */
  readonly waiting: readonly string[];
}

export interface FenceView {
  readonly found: boolean;
  /** Empty when not found. */
  readonly value: Uint8Array;
  /** Highest accepted token; 0 when not found. */
  readonly token: number;
}

export interface LockStateMachineOptions {
  /** Run the full invariant sweep after every apply (tests, simulator). O(state) per entry. */
  readonly checkEveryApply?: boolean;
  /** The live-lease cap, for an in-process benchmark only (state.ts maxLeases); a node never sets it. */
  readonly maxLeases?: number;
}

export class LockStateMachine {
  private s: MachineState;
  private readonly checkEveryApply: boolean;
  private readonly maxLeases: number | undefined;

  constructor(opts: LockStateMachineOptions = {}) {
    this.s = new MachineState();
    this.checkEveryApply = opts.checkEveryApply ?? false;
    this.maxLeases = opts.maxLeases;
    if (this.maxLeases !== undefined) this.s.maxLeases = this.maxLeases;
  }

  static fromSnapshot(bytes: Uint8Array, opts: LockStateMachineOptions = {}): LockStateMachine {
    const sm = new LockStateMachine(opts);
    sm.restore(bytes);
    return sm;
  }

  get appliedIndex(): number {
    return this.s.appliedIndex;
  }

  /** Logical time (ms) as of appliedIndex. */
  get now(): number {
    return this.s.now;
  }

  /**
   * Apply one committed entry. Entries must come in log order (index strictly increasing). A malformed
   * entry throws CommandDecodeError and an invariant breach throws InvariantError: both are
   * bugs or corruption, after which this instance must be discarded.
   */
  apply(entry: EntryLike): ApplyOutput {
    check(
      Number.isSafeInteger(entry.index) && entry.index > this.s.appliedIndex,
      'applied-index-increases',
      () => `entry ${entry.index} applied after ${this.s.appliedIndex}`,
    );
    const ctx = new ApplyContext(entry.index);
    // A Raft no-op (empty) and a membership change (a config entry: the core's, not a command)
    // change nothing here but the applied index.
    const result = entry.data.length === 0 || entry.type === 'config' ? undefined : this.dispatch(ctx, decodeCommand(entry.data));
    this.s.appliedIndex = entry.index;
    if (this.checkEveryApply) checkInvariants(this.s);
    return { index: entry.index, result, events: ctx.events };
  }

  private dispatch(ctx: ApplyContext, cmd: Command): ApplyResult {
    const problem = validateCommand(cmd);
    if (problem) return failure(cmd.type, problem.error, problem.message);
    const denied = authorize(this.s, cmd);
    if (denied) return denied;
    // The lock this command reads loses its holders and waiters past their deadline first (their
    // cleanup may be pending: lease-live.ts), so the command sees only live ones.
    const lockName = lockNamed(cmd);
    if (lockName) reapLock(this.s, ctx, lockName);
    switch (cmd.type) {
      case 'Grant':
        return applyGrant(this.s, ctx, cmd);
      case 'Revoke':
        return applyOnce(this.s, ctx, cmd, applyRevoke);
      case 'Tick':
        return applyTick(this.s, ctx, cmd);
      case 'Acquire':
        return applyAcquire(this.s, ctx, cmd);
      case 'Release':
        return applyOnce(this.s, ctx, cmd, applyRelease);
      case 'FenceWrite':
        return applyOnce(this.s, ctx, cmd, applyFenceWrite);
      case 'FenceDelete':
        return applyOnce(this.s, ctx, cmd, applyFenceDelete);
      case 'CancelWait':
        return applyOnce(this.s, ctx, cmd, applyCancelWait);
      case 'SetPermits':
        return applyOnce(this.s, ctx, cmd, applySetPermits);
      case 'Proclaim':
        return applyProclaim(this.s, ctx, cmd);
      case 'AclGrant':
        return applyOnce(this.s, ctx, cmd, applyAclGrant);
      case 'AclRevoke':
        return applyOnce(this.s, ctx, cmd, applyAclRevoke);
      case 'QuotaSet':
        return applyOnce(this.s, ctx, cmd, applyQuotaSet);
    }
  }

  // ---- Queries: serve them after ReadIndex (applied >= read index) for linearizable reads. ----

  /**
   * The lock as the state holds it. A holder or waiter whose lease is past its deadline with cleanup
   * pending (lease-live.ts) is still shown: its grant stands until its cleanup Tick or the next
   * command naming the lock ends it, and that entry carries the events. Hiding it here would show a
   * free lock with a queue and change the view in an entry that emits nothing.
   */
  inspectLock(name: string): LockView {
    const lock = this.s.locks.get(name);
    if (!lock)
      return {
        held: false,
        token: 0,
        holderLeaseId: 0,
        waitingLeaseIds: [],
        waitingShared: [],
        holders: [],
        permits: 1,
        delayUntil: 0,
        delayRemainingMs: 0,
        election: false,
      };
    const { holders, waiters } = lock;
    const first = holders[0];
    return {
      held: first !== undefined,
      token: first?.token ?? 0,
      holderLeaseId: first?.leaseId ?? 0,
      waitingLeaseIds: waiters.map((w) => w.leaseId),
      waitingShared: waiters.map((w) => w.shared),
      holders: holders.map((h) => ({ leaseId: h.leaseId, token: h.token, shared: h.shared, lockDelayMs: h.lockDelayMs, value: h.value })),
      permits: lock.permits,
      delayUntil: lock.delayUntil,
      delayRemainingMs: lock.delayUntil === 0 ? 0 : lock.delayUntil - this.s.now,
      election: lock.election,
    };
  }

  /** undefined: the lease is unknown, expired or revoked. */
  timeToLive(leaseId: number): LeaseView | undefined {
    const lease = this.s.leases.get(leaseId);
    if (!isLive(this.s, lease)) return undefined; // past its deadline: dead, even with cleanup pending
    return {
      leaseId,
      grantedTtlMs: lease.ttlMs,
      owner: lease.owner,
      remainingMs: lease.deadline - this.s.now,
      locks: sortedNames(lease.held),
      waiting: sortedNames(lease.waiting),
    };
  }

  /** Live leases, ascending by id. */
  listLeases(): LeaseView[] {
    return [...this.s.leases.keys()]
      .filter((id) => leaseIsLive(this.s, id))
      .sort((a, b) => a - b)
      .map((id) => this.timeToLive(id)!);
  }

  /** Live leases and the queue places they hold, counted without building views (a /metrics scrape: O(leases), no sort). */
  leaseCounts(): { live: number; waiting: number } {
    let live = 0;
    let waiting = 0;
    for (const lease of this.s.leases.values()) {
      if (!isLive(this.s, lease)) continue;
      live++;
      waiting += lease.waiting.size;
    }
    return { live, waiting };
  }

  /**
   * One page of List: up to `limit` live leases with id > `afterId` that `visible` admits, ascending by
   * id, and whether more such may follow. The table iterates in ascending id (ids are Grant indices,
   * inserted in log order; a restore inserts them sorted: the invariant sweep checks it), so a page
   * costs the leases before it and its own, never a sort of the table.
   */
  listLeasesPage(afterId: number, limit: number, visible: (owner: string) => boolean = () => true): { leases: LeaseView[]; more: boolean } {
    const leases: LeaseView[] = [];
    for (const [id, lease] of this.s.leases) {
      if (id <= afterId || !isLive(this.s, lease) || !visible(lease.owner)) continue;
      if (leases.length === limit) return { leases, more: true };
      leases.push(this.timeToLive(id)!);
    }
    return { leases, more: false };
  }

  hasLease(leaseId: number): boolean {
    return leaseIsLive(this.s, leaseId);
  }

  /** The principal that granted a live lease; undefined: unknown, expired or revoked. */
  /** The kind of request a request id was used for, while the dedup table remembers it. */
  requestKind(requestId: string): string | undefined {
    return requestId ? this.s.dedup.get(requestId)?.type : undefined;
  }

  leaseOwner(leaseId: number): string | undefined {
    const lease = this.s.leases.get(leaseId);
    return isLive(this.s, lease) ? lease.owner : undefined;
  }

  // ---- Access rules (acl-table.ts). ----

  /** Rules, sorted (of one principal when given). */
  aclRules(principal?: string): AclRule[] {
    return this.s.acl.rules(principal);
  }

  /** An admin rule names `principal` (the --admin flags are the node's, not the state's). */
  aclIsAdmin(principal: string): boolean {
    return this.s.acl.isAdmin(principal);
  }

  /** Whether the rules let `principal` act on `name` with one of `anyOf` (acl-table.ts aclAllows). */
  aclAllows(principal: string, name: string, anyOf: readonly AclVerb[]): boolean {
    return aclAllows(this.s.acl, principal, name, anyOf);
  }

  /** Whether `principal` has `verb` on some prefix. */
  aclHoldsAnywhere(principal: string, verb: AclVerb): boolean {
    return this.s.acl.holdsAnywhere(principal, verb);
  }

  // ---- Quotas (quotas.ts). ----

  /** The quotas in force for `principal` (SHARED_PRINCIPAL: every caller without --acl). */
  quotaOf(principal: string): Quotas {
    return this.s.quotas.of(principal);
  }

  /** The quotas admins set, by principal (sorted); every other principal has the defaults. */
  quotaOverrides(): Array<[string, QuotaOverrides]> {
    return this.s.quotas.entries();
  }

  /** What `principal` uses of each quota (SHARED_PRINCIPAL: everyone's leases and locks together). Leases past their deadline count until their cleanup. */
  quotaUsage(principal: string): Quotas {
    const owner = principal === SHARED_PRINCIPAL ? undefined : principal;
    return {
      leases: this.s.usage.leases(owner),
      locks: this.s.usage.locks(owner),
      dedupIds: this.s.dedup.countOf(principal),
      electionBytes: this.s.usage.electionBytes(owner),
      fenceKeys: this.s.fenceCharges.countOf(principal),
    };
  }

  /** Every principal that uses some quota or has quotas set, and SHARED_PRINCIPAL (unsorted; O(principals)). */
  quotaPrincipals(): string[] {
    const all = new Set<string>([SHARED_PRINCIPAL]);
    for (const p of this.s.usage.owners().keys()) all.add(p);
    for (const p of this.s.dedup.principals()) all.add(p);
    for (const p of this.s.fenceCharges.principals()) all.add(p);
    for (const [p] of this.s.quotas.entries()) all.add(p);
    return [...all];
  }

  /** The leader proposes Ticks only while this is true: also while leases past their deadline await cleanup. */
  hasLiveLeases(): boolean {
    return this.s.leases.size > 0;
  }

  /** Whether leases past their deadline await cleanup (a bounded Tick left them: the next Tick should come at once). */
  cleanupPending(): boolean {
    return this.s.expiry.hasDue(this.s.now);
  }

  /** The whole state for a viewer (the study dashboard), each table cut to `limit` rows; `only`: what this viewer may see. */
  view(limit: number, only?: ViewFilter): MachineView {
    return machineView(this.s, limit, only);
  }

  /** Lock `name`'s mode as the view shows it (undefined: no such lock), read as applied so far. */
  lockMode(name: string): LockMode | undefined {
    const l = this.s.locks.get(name);
    return l ? lockMode(l) : undefined;
  }

  /** A fenced key's value and token, the value a copy the caller may keep or change. */
  fenceRead(key: string): FenceView {
    const v = this.fenceReadView(key);
    return { ...v, value: v.value.slice() };
  }

  /**
   * fenceRead without the copy: `value` is the stored bytes themselves, for an answer that is only
   * serialized (Fence.Read: copying a 64 KiB value per read cost a leader ~1 s and hundreds of MiB
   * when 8,192 reads were answered in one turn). Never write to it. A later write stores a new
   * array (the store copies on put), so a view handed out earlier keeps the bytes it was read with.
   */
  fenceReadView(key: string): FenceView {
    const e = this.s.fence.get(key);
    return e ? { found: true, value: e.value, token: e.token } : { found: false, value: new Uint8Array(0), token: 0 };
  }

  // ---- Snapshots and replica comparison. ----

  /** Everything replicated, as deterministic bytes (equal states give equal bytes). */
  snapshot(): Uint8Array {
    return encodeState(this.s);
  }

  /** Replace the whole state. Throws SnapshotDecodeError / InvariantError; on throw the state is unchanged. */
  restore(bytes: Uint8Array): void {
    const s = decodeState(bytes);
    checkInvariants(s);
    if (this.maxLeases !== undefined) s.maxLeases = this.maxLeases;
    this.s = s;
  }

  /** 16 hex chars over the snapshot bytes: equal digests on two replicas at the same appliedIndex = same state. */
  stateDigest(): string {
    return digest64(this.snapshot());
  }

  /** Full invariant sweep; throws InvariantError. */
  checkInvariants(): void {
    checkInvariants(this.s);
  }
}

/** Exact comparison of two replicas' states (byte-equal snapshots). */
export function statesEqual(a: LockStateMachine, b: LockStateMachine): boolean {
  return bytesEqual(a.snapshot(), b.snapshot());
}
