// The lock app on one simulated node: the real LockStateMachine (src/lockd/state-machine) fed the node's
// committed entries, snapshotted and restored through the Raft snapshot path. This adapter is also where a
// test plants a bug into ONE replica (never into src/) to show that the lock checks catch divergence.

import {
  LockStateMachine,
  InvariantError,
  STATE_MACHINE,
  decodeCommand,
  encodeCommand,
  type ApplyOutput,
  type Command,
} from '../../src/lockd/state-machine/index.js';
import type { Entry, NodeId } from '../../src/raft/types.js';
import { Violation } from './checkers.js';

/**
 * Bugs the sim can plant into the adapter of the replica BUGGY_REPLICA (not into the state machine):
 *  - release-any-token: a Release whose token is not the holder's is applied as if it were (stale releases win);
 *  - skip-tick: the third Tick this replica applies is applied as a no-op (its clock falls behind for good);
 *  - grant-during-delay: every Acquire is applied without its lock-delay (a lost grant then hands the
 *    name on at once) — planted on EVERY replica, so they agree and only the history checks (Lock Delay)
 *    can see it.
 */
export type LockBug = 'release-any-token' | 'skip-tick' | 'grant-during-delay';
export const LOCK_BUGS: readonly LockBug[] = ['release-any-token', 'skip-tick', 'grant-during-delay'];
export const BUGGY_REPLICA: NodeId = 'n1';
const SKIPPED_TICK = 3;

export class LockReplica {
  private sm: LockStateMachine;
  /** What the last apply returned (read by the runner's applied hook). */
  last: ApplyOutput | undefined;
  private ticksApplied = 0;
  private readonly bug: LockBug | undefined;

  constructor(
    readonly node: NodeId,
    bug: LockBug | undefined,
  ) {
    this.bug = node === BUGGY_REPLICA || bug === 'grant-during-delay' ? bug : undefined;
    this.sm = this.fresh();
  }

  /** The state machine, for queries (inspect, timeToLive, hasLiveLeases...). */
  get machine(): LockStateMachine {
    return this.sm;
  }

  /** Start over (a restart): from a snapshot's lock bytes, or empty. */
  reset(snapshot: Uint8Array | undefined): void {
    this.last = undefined;
    const sm = this.fresh();
    if (snapshot) this.guard(() => sm.restore(snapshot), 'restoring a snapshot');
    this.sm = sm;
  }

  apply(e: Entry): ApplyOutput {
    const out = this.guard(() => this.sm.apply({ index: e.index, data: this.plant(e.data), ...(e.type ? { type: e.type } : {}) }), `applying entry ${e.index}`);
    this.last = out;
    return out;
  }

  snapshot(): Uint8Array {
    return this.sm.snapshot();
  }

  digest(): string {
    return this.sm.stateDigest();
  }

  private fresh(): LockStateMachine {
    // The full invariant sweep after every apply: the state is small in the sim, and a breach is reported at once.
    return new LockStateMachine({ checkEveryApply: true });
  }

  /** The state machine's own assertions become a reported violation of this node. */
  private guard<T>(f: () => T, what: string): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof InvariantError && e.where === STATE_MACHINE) throw new Violation('Lock Invariant', this.node, `${what}: ${e.message}`);
      throw e;
    }
  }

  /** The planted bug (if any) rewrites what this replica applies. */
  private plant(data: Uint8Array): Uint8Array {
    if (!this.bug || data.length === 0) return data;
    const cmd = decodeCommand(data);
    if (cmd.type === 'Tick' && this.bug === 'skip-tick') {
      return ++this.ticksApplied === SKIPPED_TICK ? new Uint8Array(0) : data;
    }
    if (cmd.type === 'Acquire' && this.bug === 'grant-during-delay' && cmd.lockDelayMs) return encodeCommand({ ...cmd, lockDelayMs: 0 });
    if (cmd.type === 'Release' && this.bug === 'release-any-token') {
      const view = this.sm.inspectLock(cmd.name);
      if (view.held && view.token !== cmd.token) return encodeCommand({ ...cmd, token: view.token });
    }
    return data;
  }
}

/** A command in a trace line or a report: short, and enough to follow a run. */
export function describeCommand(c: Command): string {
  switch (c.type) {
    case 'Grant':
      return `Grant ttl ${c.ttlMs}${c.requestId ? ` rid ${c.requestId}` : ''}`;
    case 'Revoke':
      return `Revoke ${c.leaseId}`;
    case 'Tick':
      return `Tick +${c.elapsedMs} renew ${c.renewed.join(',') || '-'}`;
    case 'Acquire':
      return `Acquire ${c.name} lease ${c.leaseId}${c.wait ? ' wait' : ' try'}${c.permits && c.permits > 1 ? ` permits ${c.permits}` : ''}${c.shared ? ' shared' : ''}${c.lockDelayMs ? ` delay ${c.lockDelayMs}` : ''}${c.requestId ? ` rid ${c.requestId}` : ''}`;
    case 'Release':
      return `Release ${c.name} token ${c.token}${c.leaseId ? ` lease ${c.leaseId}` : ''}`;
    case 'SetPermits':
      return `SetPermits ${c.name} ${c.permits}`;
    case 'Proclaim':
      return `Proclaim ${c.name} token ${c.token}`;
    case 'FenceWrite':
      return `FenceWrite ${c.key} token ${c.token}${c.lock ? ` lock ${c.lock}` : ''}`;
    case 'FenceDelete':
      return `FenceDelete ${c.key} token ${c.token}${c.lock ? ` lock ${c.lock}` : ''}`;
    case 'CancelWait':
      return `CancelWait ${c.name} lease ${c.leaseId}`;
    case 'AclGrant':
    case 'AclRevoke':
      return `${c.type} ${c.subject} ${c.verb} ${JSON.stringify(c.prefix)}`;
    case 'QuotaSet':
      return `QuotaSet ${c.subject}${c.reset ? ' reset' : ''}${c.leases !== undefined ? ` leases ${c.leases}` : ''}${c.locks !== undefined ? ` locks ${c.locks}` : ''}${c.dedupIds !== undefined ? ` dedup_ids ${c.dedupIds}` : ''}`;
  }
}
