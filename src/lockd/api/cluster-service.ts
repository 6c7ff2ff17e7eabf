// lockd.v1.Cluster. Status: what this node knows of the cluster (answered locally, never
// forwarded). TransferLeader: served by the leader, forwarded to it by a follower
// (transfer-service.ts). Addresses are CLIENT addresses (learned from each member; '' until heard
// from), never peer ones.
import type * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { ClusterHandlers } from '../../proto/gen/lockd/v1/Cluster.js';
import type { ServiceRegistry } from '../node/listeners.js';
import type { NodeContext } from '../node/node-context.js';
import { Forwarder } from './forwarder.js';
import { LeaderRouter } from './leader-router.js';
import { limitRequests } from './public-limits.js';
import { statusReply } from './status-reply.js';
import { apiTiming } from './timing.js';
import { transferLeaderHandler } from './transfer-service.js';
import { checkRequestStrings } from './utf8-requests.js';

export function registerClusterService(registry: ServiceRegistry, ctx: NodeContext): { close(): void } {
  const router = new LeaderRouter(ctx, apiTiming(ctx.config));
  const forwarder = new Forwarder(ctx);
  const handlers: ClusterHandlers = {
    Status: (_call, callback) => callback(null, statusReply(ctx.driver, ctx.peers)),
    TransferLeader: transferLeaderHandler(ctx, router, forwarder),
  };
  // Status on the public port only; TransferLeader also on the peer port, for forwarding.
  // Request strings checked on their bytes (utf8-requests.ts).
  const checked = checkRequestStrings(lockdProto.lockd.v1.Cluster.service, handlers as unknown as grpc.UntypedServiceImplementation);
  const { Status, TransferLeader } = limitRequests(checked.service);
  registry.addPublic({ Status }, { Status: checked.impl.Status });
  registry.addForwardable({ TransferLeader }, { TransferLeader: checked.impl.TransferLeader });
  return {
    close() {
      router.close();
      forwarder.close();
    },
  };
}
