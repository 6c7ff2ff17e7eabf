// What one node decided and why, as a typed stream. Metrics, logs, /events (and the
// study dashboard and demos built on it) all read this one stream: nothing here is kept twice.
// Every event names the entry that caused it by (term, index) where there is one, so a timeline
// can be keyed by the log and each decision explained by the numbers that made it.
import type { NodeId, Role } from '../../raft/types.js';
import type { CommandType, ErrorKind } from '../state-machine/index.js';

interface Base {
  /** Per-node sequence number, from 1; a gap seen by a subscriber is reported as `lost`. */
  readonly seq: number;
  /** Wall-clock ms (Date.now()) when published: for display only, never for a decision. */
  readonly at: number;
  readonly node: NodeId;
  /** The node's current term when published. */
  readonly term: number;
}

export type ObservedEvent = Base & ObservedBody;

export type ObservedBody =
  /** Role or known leader changed (leader '' = none known: an election is on). */
  | { readonly type: 'role'; readonly role: Role; readonly leader: NodeId }
  /** The leader this node follows changed (to '' too): counted by lockd_raft_leader_changes_total. */
  | { readonly type: 'leader-changed'; readonly leader: NodeId; readonly previous: NodeId }
  /** The term moved (on disk before any message); vote is whom this node voted for in it. */
  | { readonly type: 'term-changed'; readonly from: number; readonly vote: NodeId }
  /** A vote in an election: `voter` answered `candidate` (pre: a PreVote round, term not yet raised). */
  | { readonly type: 'vote'; readonly voter: NodeId; readonly candidate: NodeId; readonly granted: boolean; readonly pre: boolean; readonly voteTerm: number }
  /** Entries first..last appended (durably) to the local log. */
  | { readonly type: 'appended'; readonly first: number; readonly last: number; readonly lastTerm: number }
  /** The commit index moved to `index`. */
  | { readonly type: 'committed'; readonly index: number }
  /** Entry `index` (of term `entryTerm`) applied: command 'noop' for a leader's empty entry. */
  | {
      readonly type: 'applied';
      readonly index: number;
      readonly entryTerm: number;
      readonly command: CommandType | 'noop';
      readonly ok: boolean;
      readonly error?: ErrorKind;
      readonly message?: string;
    }
  /**
   * A Tick applied: logical now after it, elapsed it added, leases it renewed and expired.
   * deadlines[k]: renewed[k]'s deadline after the entry (logical ms), as the state holds it.
   * measuredMs, only from the node that proposed it (its leader then): the time its lease clock
   * measured since the previous Tick, before the cap; elapsedMs is what the Tick counted of it.
   */
  | {
      readonly type: 'tick';
      readonly index: number;
      readonly now: number;
      readonly elapsedMs: number;
      readonly measuredMs?: number;
      readonly renewed: readonly number[];
      readonly deadlines: readonly number[];
      readonly expired: readonly number[];
    }
  /** deadline: logical time the lease expires at (now + ttl + the entry's margins). */
  | { readonly type: 'lease-granted'; readonly index: number; readonly leaseId: number; readonly ttlMs: number; readonly deadline: number }
  | { readonly type: 'lease-ended'; readonly index: number; readonly leaseId: number; readonly why: 'expired' | 'revoked' }
  /** name granted to leaseId with its own token (entry index × 1024 + ordinal, token.ts), index = the granting entry; handoff: the lock passed from a releasing/expiring holder to its first waiter in this entry. */
  | {
      readonly type: 'lock-granted';
      readonly index: number;
      readonly name: string;
      readonly leaseId: number;
      readonly token: number;
      readonly handoff: boolean;
    }
  /** name freed by its holder: an explicit Release or revoke ('released'), or its lease's expiry ('expired'). */
  | {
      readonly type: 'lock-freed';
      readonly index: number;
      readonly name: string;
      readonly leaseId: number;
      readonly token: number;
      readonly why: 'released' | 'expired';
    }
  /** A waiter joined ('queued') or left ('removed': its lease ended; 'cancelled': CancelWait) a lock's FIFO. */
  | { readonly type: 'waiter'; readonly index: number; readonly name: string; readonly leaseId: number; readonly action: 'queued' | 'removed' | 'cancelled' }
  /**
   * The mode of lock `name` after an entry that touched it (granted, freed, queued, downgraded,
   * proclaimed, permits changed): permits, election, lock-delay end (logical ms, 0 = none), and per
   * holder (in grant order: holders[k] is a lease id) whether it is shared and, for an election, its
   * value (cut to 64 characters; [] when not an election). Published after the entry's other lock events.
   */
  | {
      readonly type: 'lock-mode';
      readonly index: number;
      readonly name: string;
      readonly permits: number;
      readonly election: boolean;
      readonly delayUntil: number;
      readonly holders: readonly number[];
      readonly shared: readonly boolean[];
      readonly values: readonly string[];
    }
  /** A Release command: ok false = the token was not the holder's (stale), nothing changed. */
  | { readonly type: 'release'; readonly index: number; readonly name: string; readonly token: number; readonly ok: boolean }
  /**
   * A fenced write/delete. stale: refused because token < highest, reason "33 < 34"; other refusals
   * (a lock that token no longer holds, a quota) carry the state machine's message. highest: the
   * key's highest token after the entry (0 when a non-stale refusal does not say).
   */
  | {
      readonly type: 'fence';
      readonly index: number;
      readonly op: 'write' | 'delete';
      readonly key: string;
      readonly token: number;
      readonly accepted: boolean;
      readonly stale: boolean;
      readonly highest: number;
      readonly reason?: string;
    }
  /** A snapshot taken here (log compacted) or installed from the leader. */
  | { readonly type: 'snapshot'; readonly how: 'taken' | 'installed'; readonly index: number; readonly bytes: number }
  /** One synced LevelDB write of the Raft loop (hard state, entries, snapshot). */
  | { readonly type: 'disk-sync'; readonly ms: number; readonly entries: number }
  /**
   * Once a second while leader: its replication progress per member (itself included), as Raft keeps
   * it: followers[k]'s match index (highest entry known stored there), next index (the next it sends)
   * and state (probe, replicate, snapshot), and inflight: its App messages sent and not yet acknowledged.
   */
  | {
      readonly type: 'progress';
      readonly followers: readonly NodeId[];
      readonly match: readonly number[];
      readonly next: readonly number[];
      readonly state: readonly string[];
      readonly inflight: readonly number[];
    }
  /** Once a second (stall-watch.ts): the event loop's worst delay, and the longest gap between heartbeats sent as leader (0: none), in that second. */
  | { readonly type: 'loop-lag'; readonly maxMs: number; readonly heartbeatGapMs: number };

export type ObservedType = ObservedBody['type'];
