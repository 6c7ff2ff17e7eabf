// The public lock API (lockd.v1 Lease, Lock, Fence, Auth) on a node's server. Every node serves every
// RPC: the leader does the work (writes are proposals, reads pass a ReadIndex barrier), followers
// forward unary calls and proxy KeepAlive streams to it; Observe is served from local applies.
// Session streams (the same operations multiplexed on one stream) are served by the leader only.
// Keepalives join the Ticks of the node's lease clock (../node/lease-clock.ts), which the node runs.
import type * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { NodeContext, ServiceRegistrar } from '../node/node-context.js';
import { Acquirer } from './acquire.js';
import { AppliedEvents } from './applied-events.js';
import { unavailable } from './api-error.js';
import { electionHandlers, electionOps } from './election-service.js';
import { fenceHandlers, fenceOps } from './fence-service.js';
import { authHandlers } from './auth-service.js';
import { Forwarder, type ForwardPort } from './forwarder.js';
import { KeepAliveStreams } from './keepalive-streams.js';
import { WaitCleanup } from './wait-cleanup.js';
import { LeaderRouter } from './leader-router.js';
import { leaseHandlers, leaseOps } from './lease-service.js';
import { lockHandlers, lockOps } from './lock-service.js';
import { LockWaits } from './lock-waits.js';
import { membershipHandlers } from './membership-service.js';
import { limitRequests } from './public-limits.js';
import { ObserveStreams } from './observe-streams.js';
import { OutboundBudget } from './admission/outbound-budget.js';
import { InboundBudget } from './admission/inbound-budget.js';
import { Proposer } from './proposer.js';
import { SessionStreams } from './session-service.js';
import { scanSessionRequests } from './session-batch-scan.js';
import { apiTiming } from './timing.js';
import { checkRequestStrings } from './utf8-requests.js';

/** What the composition chooses for the lock API: how it reaches the leader (default: gRPC to its peer port). */
export interface LockApiPorts {
  readonly forwarder?: (ctx: NodeContext) => ForwardPort;
  /**
   * The node's outbound byte budget (admission/outbound-budget.ts), shared with its admission
   * control and /metrics; default: one of this registrar's own, from the node's --max-*-outbound-bytes.
   */
  readonly outbound?: OutboundBudget;
  /** The node's inbound byte budget (admission/inbound-budget.ts), which its streams' requests are charged to; default: one of this registrar's own. */
  readonly inbound?: InboundBudget;
}

/** The lock API's registrar on the given ports (the simulator passes its network's forwarder). */
export function lockApiRegistrar(ports: LockApiPorts = {}): ServiceRegistrar {
  return (registry, ctx) =>
    registerOn(
      registry,
      ctx,
      (ports.forwarder ?? ((c) => new Forwarder(c)))(ctx),
      ports.outbound ?? new OutboundBudget(ctx.config.admission),
      ports.inbound ?? new InboundBudget(ctx.config.admission),
    );
}

export const registerLockApi: ServiceRegistrar = lockApiRegistrar();

function registerOn(
  registry: Parameters<ServiceRegistrar>[0],
  ctx: NodeContext,
  forwarder: ForwardPort,
  outbound: OutboundBudget,
  inbound: InboundBudget,
): ReturnType<ServiceRegistrar> {
  const timing = apiTiming(ctx.config);
  const events = new AppliedEvents(ctx.driver, ctx.logger);
  const router = new LeaderRouter(ctx, timing);
  const proposer = new Proposer(ctx, timing, router);
  const keepAlive = new KeepAliveStreams(ctx, ctx.leaseClock, events, router, forwarder, proposer, outbound);
  const cleanup = new WaitCleanup(ctx, timing, router, proposer, forwarder);
  const waits = new LockWaits(events, cleanup, timing, ctx.logger, ctx.stateMachine, ctx.clock);
  const observe = new ObserveStreams(events, ctx.access, ctx.stateMachine, outbound);
  const acquirer = new Acquirer(proposer, waits, ctx.logger, ctx.access);
  const deps = { router, forwarder, timing, clock: ctx.clock, refusals: ctx.refusals };
  const sessions = new SessionStreams(
    ctx,
    router,
    timing,
    {
      lock: lockOps(ctx, proposer, acquirer),
      lease: leaseOps(ctx, timing, proposer),
      fence: fenceOps(ctx, proposer),
      election: electionOps(ctx, proposer, acquirer),
    },
    outbound,
    inbound,
  );

  // Lease, Lock and Fence calls may reach a follower and be forwarded to the leader's peer port;
  // Session streams are served by the leader only (a follower answers UNAVAILABLE naming it).
  // Every request's strings are checked on their bytes (utf8-requests.ts) and its size bounded (public-limits.ts).
  const forwardable = (service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation) => {
    const checked = checkRequestStrings(service, impl);
    registry.addForwardable(limitRequests(checked.service), checked.impl);
  };
  forwardable(lockdProto.lockd.v1.Lease.service, leaseHandlers(ctx, deps, proposer, keepAlive));
  forwardable(lockdProto.lockd.v1.Lock.service, lockHandlers(ctx, deps, proposer, acquirer, observe));
  forwardable(lockdProto.lockd.v1.Fence.service, fenceHandlers(ctx, deps, proposer));
  const election = electionHandlers(ctx, deps, proposer, acquirer, events, outbound);
  forwardable(lockdProto.lockd.v1.Election.service, election.handlers);
  forwardable(lockdProto.lockd.v1.Auth.service, authHandlers(ctx, deps, proposer));
  // Session checks each operation's strings itself (session-service.ts), so a batch answers only its bad element.
  const session = checkRequestStrings(lockdProto.lockd.v1.Session.service, sessions.handlers, ['Open']);
  registry.addPublic(limitRequests(scanSessionRequests(session.service)), session.impl);
  // Membership changes are writes too: forwarded to the leader (admin-only: membership-service.ts requireAdmin).
  forwardable(lockdProto.lockd.v1.Membership.service, membershipHandlers(ctx, deps, proposer));
  ctx.logger.info({ event: 'lock api ready', ...timing }, 'lock API registered');

  return {
    close() {
      // Ends every stream and waiting call, so the server's shutdown does not wait on them.
      const err = unavailable(`${ctx.config.id} is shutting down`);
      cleanup.close();
      waits.close();
      keepAlive.close();
      sessions.close();
      observe.close(err);
      election.close(err);
      router.close();
      forwarder.close();
    },
  };
}
