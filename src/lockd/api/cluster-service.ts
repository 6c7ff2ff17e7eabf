// lockd.v1.Cluster: what this node knows of the cluster (answered locally, never forwarded).
import type * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd.js';
import type { ClusterHandlers } from '../../proto/gen/lockd/v1/Cluster.js';
import type { NodeContext } from '../node/node-context.js';
import { limitRequests } from './public-limits.js';

export function registerClusterService(server: grpc.Server, ctx: NodeContext): void {
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
        leaderAddress: st.leader ? (ctx.config.peers.get(st.leader) ?? '') : '',
        members: [...ctx.config.peers].map(([id, address]) => ({ id, address, matchIndex: st.progress.get(id)?.match ?? 0 })),
      });
    },
  };
  server.addService(limitRequests(lockdProto.lockd.v1.Cluster.service), handlers);
}
