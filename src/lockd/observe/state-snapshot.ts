// What a viewer needs to be right without history: the node's Raft position and the applied state,
// read at one instant, stamped with the bus's last sequence number. /events sends it first (as
// `event: state`), in the same turn as it subscribes, so that the events that follow are exactly
// those after it — the viewer applies them to this snapshot, and nothing is kept twice on the node.
// Also served as /state (JSON) for curl.
import type { NodeId, Role } from '../../raft/types.js';
import type { ObservedNode } from './node-view.js';
import type { MachineView, ViewFilter } from '../state-machine/index.js';
import type { EventBus } from './bus.js';

/** Rows per table in a snapshot (leases, locks, fenced keys): a viewer's page, not a dump. */
export const STATE_ROWS = 200;

export interface StateSnapshot {
  readonly type: 'state';
  readonly node: NodeId;
  /** Events up to this seq are reflected in the snapshot; the stream continues at seq + 1. */
  readonly seq: number;
  readonly at: number;
  readonly term: number;
  readonly role: Role;
  /** '' = none known. */
  readonly leader: NodeId;
  readonly lastIndex: number;
  readonly commit: number;
  readonly applied: number;
  readonly machine: MachineView;
  /**
   * This node's Raft timing in ms: heartbeats every heartbeatMs as leader; as follower it stands
   * for election after hearing no leader for a timeout drawn in [electionMs, 2 × electionMs).
   */
  readonly timing?: { readonly tickMs: number; readonly heartbeatMs: number; readonly electionMs: number };
}

/** `only`: the reader's view (state-machine ViewFilter); undefined: everything. */
export function takeSnapshot(ctx: ObservedNode, bus: EventBus, only?: ViewFilter): StateSnapshot {
  const st = ctx.driver.status();
  return {
    type: 'state',
    node: ctx.config.id,
    seq: bus.lastSeq,
    at: Date.now(),
    term: st.term,
    role: st.role,
    leader: st.leader,
    lastIndex: st.lastIndex,
    commit: st.commit,
    applied: ctx.driver.appliedIndex(),
    machine: ctx.stateMachine.view(STATE_ROWS, only),
    timing: { tickMs: ctx.config.tickMs, heartbeatMs: ctx.config.tickMs * ctx.config.heartbeatTicks, electionMs: ctx.config.tickMs * ctx.config.electionTicks },
  };
}

/** /cluster: the members and where their HTTP endpoints are ('' = not heard from yet, or none). */
export interface ClusterView {
  readonly self: NodeId;
  readonly members: ReadonlyArray<{ readonly id: NodeId; readonly http: string }>;
}

export function clusterView(ctx: ObservedNode): ClusterView {
  return { self: ctx.config.id, members: ctx.peers.members().map((id) => ({ id, http: ctx.peers.httpAddress(id) })) };
}
