// Liveness and readiness of one node, as etcd and Kubernetes use them:
//  - live: the process can still make progress. Not live when a synced disk write has been
//    outstanding longer than DISK_STALL_MS (the Raft loop waits on it: nothing commits). A stalled
//    event loop needs no check of its own: then nothing answers the probe at all, and the prober's
//    timeout says so. A node whose Raft loop failed exits (RaftDriver onFatal), it does not linger.
//  - ready: the node can serve: it knows a leader (itself included) and has applied to within
//    READY_APPLY_LAG entries of its commit index. A follower whose leader is gone turns unready once
//    its election timeout passes (pre-candidate: no leader known) until a new leader is known.
import type { ObservedNode } from './node-view.js';
import type { NodeSource } from './node-source.js';

export const DISK_STALL_MS = 10_000;
export const READY_APPLY_LAG = 100;

export interface Verdict {
  readonly ok: boolean;
  /** One line a person reads in the probe's body. */
  readonly reason: string;
}

export class NodeHealth {
  constructor(
    private readonly ctx: ObservedNode,
    private readonly source: NodeSource,
  ) {}

  live(): Verdict {
    const stuck = this.source.syncOutstandingMs();
    if (stuck > DISK_STALL_MS) return { ok: false, reason: `a synced disk write has been outstanding for ${Math.round(stuck)} ms (bound ${DISK_STALL_MS} ms)` };
    return { ok: true, reason: 'ok' };
  }

  ready(): Verdict {
    const leader = this.ctx.driver.leaderId();
    const st = this.ctx.driver.status();
    const applied = this.ctx.driver.appliedIndex();
    if (!leader) return { ok: false, reason: `no leader known (term ${st.term}, role ${st.role})` };
    if (st.commit - applied > READY_APPLY_LAG) return { ok: false, reason: `applied ${applied} lags commit ${st.commit} by more than ${READY_APPLY_LAG}` };
    return { ok: true, reason: `ok: leader ${leader}, term ${st.term}, applied ${applied} of commit ${st.commit}` };
  }
}
