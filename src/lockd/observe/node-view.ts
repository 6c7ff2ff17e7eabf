// What the observation layer reads of a running node (probes, metrics, /state, /cluster). Declared
// here, by its reader, so that observe sits below the node (src/README.md): the node's NodeContext
// (node/node-context.ts) has this shape, and the composition (src/lockd/observability.ts) hands it over.
import type { NodeId, Status } from '../../raft/types.js';
import type { LockStateMachine } from '../state-machine/index.js';
import type { NodeSource } from './node-source.js';
import type { StallWatch } from './stall-watch.js';

export interface ObservedNode {
  /** Its id, and the Raft timing the dashboard explains elections with (--tick-ms, --election-ticks, --heartbeat-ticks). */
  readonly config: { readonly id: NodeId; readonly tickMs: number; readonly electionTicks: number; readonly heartbeatTicks: number };
  readonly driver: {
    status(): Status;
    appliedIndex(): number;
    isLeader(): boolean;
    /** '' = none known. */
    leaderId(): NodeId;
  };
  readonly stateMachine: Pick<LockStateMachine, 'listLeases' | 'leaseCounts' | 'view' | 'quotaPrincipals' | 'quotaOf' | 'quotaUsage'>;
  readonly observe: { readonly source: NodeSource; readonly stalls: StallWatch };
  /** The members and their advertised HTTP addresses ('' = none known). */
  readonly peers: { members(): NodeId[]; httpAddress(id: NodeId): string };
}
