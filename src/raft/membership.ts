// Membership: what a configuration is, the single-server changes that lead from one to the next,
// why a change is refused, and how a change travels in a config entry. The rules that need the
// leader's state (first commit of its term, one change at a time, a caught-up learner) live in
// raft.ts; the history of configurations in the log lives in config-log.ts.
import { invariant, type NodeId } from './types.js';

/** Who is in the cluster. Voters and learners are disjoint; removed ids are neither, forever. */
export interface Configuration {
  readonly voters: readonly NodeId[];
  readonly learners: readonly NodeId[];
  /** Every id ever removed: remembered so that an id is never reused and its messages are refused. */
  readonly removed: readonly NodeId[];
}

/** A configuration and the index of the entry that made it (0: the bootstrap configuration). */
export interface IndexedConfiguration {
  readonly index: number;
  readonly config: Configuration;
}

export type ConfChangeOp =
  | 'addVoter' // a new id joins as a voter at once (prefer addLearner, then promote)
  | 'addLearner' // a new id joins as a learner: it receives the log, does not vote or count
  | 'promote' // a caught-up learner becomes a voter
  | 'remove'; // a voter or learner leaves, and its id is retired for good

export interface ConfChange {
  readonly op: ConfChangeOp;
  readonly node: NodeId;
  /**
   * Compare-and-swap: refuse the change unless the effective configuration was made by the entry
   * at this index (Status.configIndex; 0 for the bootstrap configuration). Absent: no check.
   */
  readonly expectConfigIndex?: number;
  /**
   * Opaque to the core: the application's data about the change (lockd: the members' addresses and
   * the request id), carried in the config entry to every node. At most MAX_CONTEXT_BYTES of UTF-8.
   */
  readonly context?: string;
}

/** Bounds on a configuration, so a config entry (a network input on followers) stays small. */
export const MAX_MEMBERS = 32;
export const MAX_REMOVED = 1024;
export const MAX_CONTEXT_BYTES = 64 * 1024;
const OPS: readonly ConfChangeOp[] = ['addVoter', 'addLearner', 'promote', 'remove'];
/** Node ids as the node's --id accepts them (src/lockd/node/config.ts). */
const ID = /^[A-Za-z0-9_.-]{1,64}$/;

export type ConfChangeRefusal =
  | 'not-leader' // only the leader proposes (the caller should retry at the leader)
  | 'transferring' // a leadership transfer is under way
  | 'no-commit-in-term' // the leader has not committed an entry of its own term yet: retry shortly
  | 'change-pending' // another change is not committed yet: retry once it is
  | 'config-index-mismatch' // expectConfigIndex is not the effective configuration's index
  | 'invalid-op' // not one of the four changes
  | 'invalid-id' // not a node id
  | 'invalid-context' // the application's context is not a string within MAX_CONTEXT_BYTES
  | 'id-removed' // the id was removed once and may never come back
  | 'already-member' // add of an id already a voter or learner
  | 'not-member' // promote/remove of an id that is not a member
  | 'not-learner' // promote of a voter
  | 'learner-behind' // promote of a learner that is not caught up yet
  | 'remove-leader' // the leader removing itself: transfer leadership first
  | 'too-many-members'; // MAX_MEMBERS or MAX_REMOVED would be exceeded

/** A refused change: nothing was appended and nothing changed. */
export class ConfChangeError extends Error {
  constructor(
    readonly reason: ConfChangeRefusal,
    detail: string,
  ) {
    super(`membership change refused (${reason}): ${detail}`);
  }
}

/**
 * The configuration after `cc`, or a refusal. Only the rules a configuration alone decides are
 * here (the leader's rules are in Raft.proposeConfChange).
 */
export function applyChange(c: Configuration, cc: ConfChange): Configuration {
  const { op, node } = cc;
  if (!OPS.includes(op)) throw new ConfChangeError('invalid-op', `unknown change ${JSON.stringify(op)}`);
  if (typeof node !== 'string' || !ID.test(node)) throw new ConfChangeError('invalid-id', `${JSON.stringify(node)} is not a node id`);
  if (cc.context !== undefined && (typeof cc.context !== 'string' || new TextEncoder().encode(cc.context).length > MAX_CONTEXT_BYTES))
    throw new ConfChangeError('invalid-context', `the change's context is not a string of at most ${MAX_CONTEXT_BYTES} bytes`);
  if (c.removed.includes(node)) throw new ConfChangeError('id-removed', `${node} was removed from the cluster and its id may not be reused`);
  const isVoter = c.voters.includes(node);
  const isLearner = c.learners.includes(node);
  switch (op) {
    case 'addVoter':
    case 'addLearner': {
      if (isVoter || isLearner) throw new ConfChangeError('already-member', `${node} is already a ${isVoter ? 'voter' : 'learner'}`);
      if (c.voters.length + c.learners.length >= MAX_MEMBERS) throw new ConfChangeError('too-many-members', `the cluster has ${MAX_MEMBERS} members`);
      return op === 'addVoter' ? { ...c, voters: [...c.voters, node] } : { ...c, learners: [...c.learners, node] };
    }
    case 'promote':
      if (isVoter) throw new ConfChangeError('not-learner', `${node} is already a voter`);
      if (!isLearner) throw new ConfChangeError('not-member', `${node} is not a learner of the cluster`);
      return { ...c, voters: [...c.voters, node], learners: c.learners.filter((id) => id !== node) };
    case 'remove':
      if (!isVoter && !isLearner) throw new ConfChangeError('not-member', `${node} is not a member of the cluster`);
      if (c.removed.length >= MAX_REMOVED) throw new ConfChangeError('too-many-members', `${MAX_REMOVED} ids were removed already`);
      return {
        voters: c.voters.filter((id) => id !== node),
        learners: c.learners.filter((id) => id !== node),
        removed: [...c.removed, node],
      };
  }
}

/**
 * What a config entry must satisfy against the configuration before it, on every node that
 * appends it (thesis §4.1: single-server changes, so any majority of the old voters overlaps any
 * majority of the new): at most one voter added or removed, removed ids only accumulate and never
 * come back. `prev` empty (a node that joined with no configuration) is exempt: it does not know.
 */
export function checkSuccessor(prev: Configuration, next: Configuration, node: NodeId, at: number): void {
  checkShape(next, node, at);
  const known = prev.voters.length + prev.learners.length + prev.removed.length > 0;
  if (!known) return;
  const added = next.voters.filter((id) => !prev.voters.includes(id)).length;
  const dropped = prev.voters.filter((id) => !next.voters.includes(id)).length;
  invariant(
    added + dropped <= 1,
    'a config change adds or removes at most one voter',
    node,
    () => `entry ${at}: voters ${prev.voters.join(',')} → ${next.voters.join(',')}`,
  );
  invariant(
    prev.removed.every((id) => next.removed.includes(id)),
    'removed ids stay removed',
    node,
    () => `entry ${at}: removed ${prev.removed.join(',')} → ${next.removed.join(',')}`,
  );
}

/** Voters, learners and removed ids are disjoint (a snapshot's or a config entry's configuration). */
export function checkShape(c: Configuration, node: NodeId, at: number): void {
  const all = [...c.voters, ...c.learners, ...c.removed];
  invariant(
    new Set(all).size === all.length,
    'voters, learners and removed are disjoint',
    node,
    () => `entry ${at}: voters ${c.voters.join(',')} learners ${c.learners.join(',')} removed ${c.removed.join(',')}`,
  );
}

// ---- the config entry's data ----------------------------------------------------------------

/**
 * A config entry carries the change and the whole configuration after it (as hashicorp/raft does):
 * a node that joined with no configuration, and replays the log from index 1 (the bootstrap
 * configuration is not in the log), learns the full membership from the first config entry it
 * appends, instead of building {itself} from a delta and electing itself alone.
 * Encoding: UTF-8 JSON {"op","node","voters","learners","removed"} plus "context" when the change has
 * one (proto/raft.proto ENTRY_TYPE_CONFIG).
 */
export interface ConfigEntryData {
  readonly change: ConfChange;
  readonly config: Configuration;
}

export function encodeConfigEntry(d: ConfigEntryData): Uint8Array {
  const { voters, learners, removed } = d.config;
  const context = d.change.context === undefined ? {} : { context: d.change.context };
  return new TextEncoder().encode(JSON.stringify({ op: d.change.op, node: d.change.node, voters, learners, removed, ...context }));
}

/**
 * Max bytes of a config entry's data: MAX_MEMBERS + MAX_REMOVED ids of 64 bytes, with JSON's
 * quoting, and the context (JSON escaping at most sextuples a character: \u0000).
 */
const MAX_CONFIG_ENTRY_BYTES = (MAX_MEMBERS + MAX_REMOVED + 1) * 70 + 256 + 6 * MAX_CONTEXT_BYTES;

/**
 * Decode a config entry's data; a malformed one is an InvariantError (it came from a leader, and
 * was checked when it proposed it: corrupt data means a bug or a corrupt disk, never a refusal).
 */
export function decodeConfigEntry(data: Uint8Array, node: NodeId, at: number): ConfigEntryData {
  const bad = (why: string) => invariant(false, 'config entry is well formed', node, () => `entry ${at}: ${why}`);
  if (data.length > MAX_CONFIG_ENTRY_BYTES) bad(`${data.length} bytes`);
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch {
    bad('not JSON');
  }
  const o = v as Record<string, unknown>;
  const ids = (x: unknown, max: number) => Array.isArray(x) && x.length <= max && x.every((id) => typeof id === 'string' && ID.test(id));
  if (typeof o !== 'object' || o === null) bad('not an object');
  if (!OPS.includes(o.op as ConfChangeOp) || typeof o.node !== 'string' || !ID.test(o.node)) bad('bad change');
  if (!ids(o.voters, MAX_MEMBERS) || !ids(o.learners, MAX_MEMBERS) || !ids(o.removed, MAX_REMOVED)) bad('bad member lists');
  if ((o.voters as NodeId[]).length + (o.learners as NodeId[]).length > MAX_MEMBERS) bad(`more than ${MAX_MEMBERS} members`);
  if (o.context !== undefined && typeof o.context !== 'string') bad('context is not a string');
  const config: Configuration = { voters: o.voters as NodeId[], learners: o.learners as NodeId[], removed: o.removed as NodeId[] };
  checkShape(config, node, at);
  const context = typeof o.context === 'string' ? { context: o.context } : {};
  return { change: { op: o.op as ConfChangeOp, node: o.node as NodeId, ...context }, config };
}
