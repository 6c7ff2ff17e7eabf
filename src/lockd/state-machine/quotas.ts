// Per-principal quotas in the replicated state (limits.ts has the defaults). Who is charged: with
// rules enforced (the command's `acl`) the command's principal — for leases and locks the lease's
// owner, which authorize.ts makes the caller or an admin acting for it —, without them one shared
// principal, SHARED_PRINCIPAL, for every caller. Quotas apply only to entries the leader marked
// `quota` (commands.ts Authority): it marks them once every member applies them alike
// (node/cluster-version.ts FEATURES.quotas), so a mixed-version cluster never splits on a refusal.
// Pure: the overrides are replicated (QuotaSet entries, snapshots), the usage counts are derived.

import type { Authority } from './commands.js';
import type { LeaseRecord, LockRecord, MachineState } from './state.js';
import { utf8ByteLength } from './bytes.js';
import type { CommandType } from './commands.js';
import { ANONYMOUS } from './acl-table.js';
import { failure, type Failure } from './results.js';
import {
  DEFAULT_QUOTA_DEDUP_IDS,
  DEFAULT_QUOTA_ELECTION_BYTES,
  DEFAULT_QUOTA_FENCE_KEYS,
  DEFAULT_QUOTA_LEASES,
  DEFAULT_QUOTA_LOCKS,
  SHARED_QUOTA_DEDUP_IDS,
  SHARED_QUOTA_ELECTION_BYTES,
  SHARED_QUOTA_FENCE_KEYS,
  SHARED_QUOTA_LEASES,
  SHARED_QUOTA_LOCKS,
} from './limits.js';

/** Every caller, charged together, when rules are not enforced (no --acl). */
export const SHARED_PRINCIPAL = '*';

export type QuotaKey = 'leases' | 'locks' | 'dedupIds' | 'electionBytes' | 'fenceKeys';
/** In snapshot and display order. */
export const QUOTA_KEYS: readonly QuotaKey[] = ['leases', 'locks', 'dedupIds', 'electionBytes', 'fenceKeys'];
/** The names operators use (lockctl, the API's messages). */
export const QUOTA_NAMES: Readonly<Record<QuotaKey, string>> = {
  leases: 'leases',
  locks: 'locks',
  dedupIds: 'dedup_ids',
  electionBytes: 'election_bytes',
  fenceKeys: 'fence_keys',
};
const WHAT: Readonly<Record<QuotaKey, string>> = {
  leases: 'live leases',
  locks: 'locks held or waited for',
  dedupIds: 'remembered request ids',
  electionBytes: 'bytes of election values',
  fenceKeys: 'fenced keys created',
};

export type Quotas = Readonly<Record<QuotaKey, number>>;
export type QuotaOverrides = Readonly<Partial<Record<QuotaKey, number>>>;

const NAMED: Quotas = {
  leases: DEFAULT_QUOTA_LEASES,
  locks: DEFAULT_QUOTA_LOCKS,
  dedupIds: DEFAULT_QUOTA_DEDUP_IDS,
  electionBytes: DEFAULT_QUOTA_ELECTION_BYTES,
  fenceKeys: DEFAULT_QUOTA_FENCE_KEYS,
};
const SHARED: Quotas = {
  leases: SHARED_QUOTA_LEASES,
  locks: SHARED_QUOTA_LOCKS,
  dedupIds: SHARED_QUOTA_DEDUP_IDS,
  electionBytes: SHARED_QUOTA_ELECTION_BYTES,
  fenceKeys: SHARED_QUOTA_FENCE_KEYS,
};

export function defaultQuotas(principal: string): Quotas {
  return principal === SHARED_PRINCIPAL ? SHARED : NAMED;
}

/** The principal a command is charged as (see the top). */
export function chargedPrincipal(cmd: Authority): string {
  return cmd.acl === true ? (cmd.principal ?? ANONYMOUS) : SHARED_PRINCIPAL;
}

/** Whether the entry is under quotas at all (the leader's mark). */
export function quotasApply(cmd: Authority): boolean {
  return cmd.quota === true;
}

/** How a new request id of `cmd` is charged (undefined: an entry before quotas). */
export function dedupCharge(state: MachineState, cmd: Authority): { principal: string; window: number } | undefined {
  if (!quotasApply(cmd)) return undefined;
  const principal = chargedPrincipal(cmd);
  return { principal, window: state.quotas.of(principal).dedupIds };
}

/**
 * A new lease for `cmd`'s principal over its `leases` quota (undefined: within it, or no quotas).
 * Without rules enforced everyone is one principal: the count is every lease's.
 */
export function leaseQuotaFailure(state: MachineState, cmd: Authority & { readonly type: CommandType }): Failure | undefined {
  if (!quotasApply(cmd)) return undefined;
  const principal = chargedPrincipal(cmd);
  const limit = state.quotas.of(principal).leases;
  const used = state.usage.leases(cmd.acl === true ? principal : undefined);
  return used >= limit ? quotaFailure(cmd.type, 'leases', principal, limit) : undefined;
}

/**
 * One more lock held or waited for by `lease`, carrying `valueBytes` of election value, over its
 * owner's `locks` or `electionBytes` quota (the shared principal's without rules).
 */
export function lockQuotaFailure(
  state: MachineState,
  cmd: Authority & { readonly type: CommandType },
  lease: LeaseRecord,
  valueBytes: number,
): Failure | undefined {
  if (!quotasApply(cmd)) return undefined;
  const principal = cmd.acl === true ? lease.owner : SHARED_PRINCIPAL;
  const owner = cmd.acl === true ? lease.owner : undefined;
  const q = state.quotas.of(principal);
  if (state.usage.locks(owner) >= q.locks) return quotaFailure(cmd.type, 'locks', principal, q.locks);
  return electionBytesFailure(state, cmd, lease, valueBytes);
}

/** `addBytes` more election value bytes on `lease` over its owner's `electionBytes` quota (a Proclaim passes the growth). */
export function electionBytesFailure(
  state: MachineState,
  cmd: Authority & { readonly type: CommandType },
  lease: LeaseRecord,
  addBytes: number,
): Failure | undefined {
  if (!quotasApply(cmd) || addBytes <= 0) return undefined;
  const principal = cmd.acl === true ? lease.owner : SHARED_PRINCIPAL;
  const limit = state.quotas.of(principal).electionBytes;
  return state.usage.electionBytes(cmd.acl === true ? lease.owner : undefined) + addBytes > limit
    ? quotaFailure(cmd.type, 'electionBytes', principal, limit)
    : undefined;
}

/** A FenceWrite creating a key over its caller's `fenceKeys` quota (undefined: within it, or no quotas). */
export function fenceKeyQuotaFailure(state: MachineState, cmd: Authority & { readonly type: CommandType }): Failure | undefined {
  if (!quotasApply(cmd)) return undefined;
  const principal = chargedPrincipal(cmd);
  const limit = state.quotas.of(principal).fenceKeys;
  return state.fenceCharges.countOf(principal) >= limit ? quotaFailure(cmd.type, 'fenceKeys', principal, limit) : undefined;
}

/** The refusal: names the quota, its value and the principal. Changes nothing. */
export function quotaFailure(type: CommandType, key: QuotaKey, principal: string, value: number): Failure {
  const who = principal === SHARED_PRINCIPAL ? 'the shared principal * (every caller: rules are not enforced)' : principal;
  return failure(
    type,
    'RESOURCE_EXHAUSTED',
    `quota ${QUOTA_NAMES[key]}=${value} of ${who} reached: at most ${value} ${WHAT[key]} (an admin changes it: lockctl acl quota ${principal} ${QUOTA_NAMES[key]}=N)`,
  );
}

/** Overrides set by admins (QuotaSet), per principal; everything else is the defaults. */
export class QuotaTable {
  private readonly rows = new Map<string, QuotaOverrides>();

  get size(): number {
    return this.rows.size;
  }

  has(principal: string): boolean {
    return this.rows.has(principal);
  }

  /** The quotas in force for `principal`. */
  of(principal: string): Quotas {
    const o = this.rows.get(principal);
    const d = defaultQuotas(principal);
    return o
      ? {
          leases: o.leases ?? d.leases,
          locks: o.locks ?? d.locks,
          dedupIds: o.dedupIds ?? d.dedupIds,
          electionBytes: o.electionBytes ?? d.electionBytes,
          fenceKeys: o.fenceKeys ?? d.fenceKeys,
        }
      : d;
  }

  overridesOf(principal: string): QuotaOverrides {
    return this.rows.get(principal) ?? {};
  }

  /** Replace a principal's overrides (none: back to the defaults). */
  set(principal: string, o: QuotaOverrides): void {
    const clean: Partial<Record<QuotaKey, number>> = {};
    for (const k of QUOTA_KEYS) if (o[k] !== undefined) clean[k] = o[k];
    if (Object.keys(clean).length === 0) this.rows.delete(principal);
    else this.rows.set(principal, clean);
  }

  /** Sorted by principal (the snapshot order). */
  entries(): Array<[string, QuotaOverrides]> {
    return [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

interface Counts {
  leases: number;
  locks: number;
  /** UTF-8 bytes of the election values its grants and waits carry. */
  electionBytes: number;
}

/**
 * What each lease owner uses (live leases, locks held + waited for), and the totals (the shared
 * principal's). Derived from the lease table: lease-commands.ts and lock-transitions.ts keep it in
 * step as leases and their held/waiting sets change; a restore rebuilds it; the invariant sweep
 * recounts it.
 */
export class PrincipalUsage {
  private readonly byOwner = new Map<string, Counts>();
  private readonly total: Counts = { leases: 0, locks: 0, electionBytes: 0 };

  /** `owner` undefined: everyone (the shared principal). */
  leases(owner: string | undefined): number {
    return owner === undefined ? this.total.leases : (this.byOwner.get(owner)?.leases ?? 0);
  }

  locks(owner: string | undefined): number {
    return owner === undefined ? this.total.locks : (this.byOwner.get(owner)?.locks ?? 0);
  }

  electionBytes(owner: string | undefined): number {
    return owner === undefined ? this.total.electionBytes : (this.byOwner.get(owner)?.electionBytes ?? 0);
  }

  /** A grant or wait of `owner`'s with election value `value` came (+1) or went (-1). */
  value(owner: string, value: string, by: 1 | -1): void {
    if (value !== '') this.bump(owner, 'electionBytes', by * utf8ByteLength(value));
  }

  lease(owner: string, by: 1 | -1): void {
    this.bump(owner, 'leases', by);
  }

  lock(owner: string, by: 1 | -1): void {
    this.bump(owner, 'locks', by);
  }

  /** From the lease table and the locks (election values are on holders and waiters). */
  rebuild(leases: Iterable<LeaseRecord>, locks: Iterable<LockRecord> = [], ownerOf: (leaseId: number) => string | undefined = () => undefined): void {
    this.byOwner.clear();
    this.total.leases = 0;
    this.total.locks = 0;
    this.total.electionBytes = 0;
    for (const l of leases) {
      this.bump(l.owner, 'leases', 1);
      this.bump(l.owner, 'locks', l.held.size + l.waiting.size);
    }
    for (const lock of locks)
      for (const x of [...lock.holders, ...lock.waiters]) {
        const owner = ownerOf(x.leaseId);
        if (owner !== undefined) this.value(owner, x.value, 1);
      }
  }

  /** Every owner's counts (the invariant sweep compares them with a recount). */
  owners(): ReadonlyMap<string, Readonly<Counts>> {
    return this.byOwner;
  }

  totals(): Readonly<Counts> {
    return this.total;
  }

  private bump(owner: string, key: keyof Counts, by: number): void {
    let c = this.byOwner.get(owner);
    if (!c) this.byOwner.set(owner, (c = { leases: 0, locks: 0, electionBytes: 0 }));
    c[key] += by;
    this.total[key] += by;
    if (c.leases === 0 && c.locks === 0 && c.electionBytes === 0) this.byOwner.delete(owner);
  }
}

/** A QuotaSet's request in one canonical string (its dedup record): `reset;leases=5;locks=-;dedup_ids=-`. */
export function quotaSpec(cmd: { readonly reset?: boolean } & QuotaOverrides): string {
  return [cmd.reset === true ? 'reset' : 'keep', ...QUOTA_KEYS.map((k) => `${QUOTA_NAMES[k]}=${cmd[k] ?? '-'}`)].join(';');
}

/**
 * Which principal each live fenced key was charged to when a marked FenceWrite created it (keys
 * created before quotas are charged to nobody). Replicated (snapshot format 9): the creating
 * lease may be long gone, so it cannot be derived.
 */
export class FenceCharges {
  private readonly byKey = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.byKey.size;
  }

  countOf(principal: string): number {
    return this.counts.get(principal) ?? 0;
  }

  /** The principals charged at least one key. */
  principals(): IterableIterator<string> {
    return this.counts.keys();
  }

  principalOf(key: string): string | undefined {
    return this.byKey.get(key);
  }

  charge(key: string, principal: string): void {
    this.release(key);
    this.byKey.set(key, principal);
    this.counts.set(principal, this.countOf(principal) + 1);
  }

  /** The key is gone (deleted): give its charge back. */
  release(key: string): void {
    const p = this.byKey.get(key);
    if (p === undefined) return;
    this.byKey.delete(key);
    const n = this.countOf(p) - 1;
    if (n === 0) this.counts.delete(p);
    else this.counts.set(p, n);
  }

  /** Sorted by key (the snapshot order). */
  entries(): Array<[string, string]> {
    return [...this.byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
