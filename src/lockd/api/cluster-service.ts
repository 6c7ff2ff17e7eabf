// lockd.v1.Cluster: what this node knows of the cluster (answered locally, never forwarded).
// Addresses are CLIENT addresses (learned from each member; '' until heard from), never peer ones.
import { lockdProto } from '../../proto/lockd.js';
import type { ClusterHandlers } from '../../proto/gen/lockd/v1/Cluster.js';
import type { ServiceRegistry } from '../node/listeners.js';
import type { NodeContext } from '../node/node-context.js';
import { limitRequests } from './public-limits.js';

export function registerClusterService(registry: ServiceRegistry, ctx: NodeContext): void {
  const handlers: ClusterHandlers = {
    Status: (_call, callback) => {
      const st = ctx.driver.status();
      callback(null, {
        nodeId: st.id,
        role: st.role,
        term: st.term,
        leaderId: st.leader,
        commitIndex: st.commit,
        appliedIndex: ctx.driver.appliedIndex(),
        leaderAddress: st.leader ? ctx.peers.clientAddress(st.leader) : '',
        members: ctx.peers.members().map((id) => ({ id, address: ctx.peers.clientAddress(id), matchIndex: st.progress.get(id)?.match ?? 0 })),
      });
    },
  };
  registry.addPublic(limitRequests(lockdProto.lockd.v1.Cluster.service), handlers);
}
