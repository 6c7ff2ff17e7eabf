// The gRPC health protocol (grpc.health.v1.Health, via the grpc-health-check package) on the
// node's client port: "" (the whole server) and each public service answer SERVING while the node
// is ready (health.ts), NOT_SERVING otherwise. Readiness moves only with the events that change
// its inputs (role, leader, commit, applied), so it is re-judged when the stream wakes.
import type * as grpc from '@grpc/grpc-js';
import type { ServiceRegistry } from '../node/listeners.js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import { limitRequests } from './public-limits.js';
import type { EventBus } from '../observe/bus.js';
import type { NodeHealth } from '../observe/health.js';

export const HEALTH_SERVICES = ['', 'lockd.v1.Lease', 'lockd.v1.Lock', 'lockd.v1.Fence', 'lockd.v1.Session', 'lockd.v1.Cluster', 'lockd.v1.Election'] as const;

/** A health request is a service name: 1 KiB is plenty, and anything larger is refused before parsing. */
const MAX_HEALTH_REQUEST_BYTES = 1024;

export function addGrpcHealth(registry: ServiceRegistry, health: NodeHealth, bus: EventBus): { close(): void } {
  let current: ServingStatus = health.ready().ok ? 'SERVING' : 'NOT_SERVING';
  const impl = new HealthImplementation(Object.fromEntries(HEALTH_SERVICES.map((s) => [s, current])));
  impl.addToServer({
    // The public (client) port only: a prober asks the port clients use.
    addService: (def, handlers) =>
      registry.addPublic(limitRequests(def as grpc.ServiceDefinition, MAX_HEALTH_REQUEST_BYTES), handlers as grpc.UntypedServiceImplementation),
  });
  const judge = () => {
    const next: ServingStatus = health.ready().ok ? 'SERVING' : 'NOT_SERVING';
    if (next === current) return;
    current = next;
    for (const s of HEALTH_SERVICES) impl.setStatus(s, next);
  };
  // Events wake the judge; a small queue is enough, as only the latest state matters.
  const sub = bus.subscribe(64, () => {
    sub.take();
    judge();
  });
  // Losing the leader without a message (its silence) shows up as our own role change, an event;
  // this timer only catches a lag that closes without one, and costs one comparison a second.
  const timer = setInterval(judge, 1000);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      sub.close();
    },
  };
}
