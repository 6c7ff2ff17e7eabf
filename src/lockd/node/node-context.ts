// What a service registered on a node may use of it. The node knows nothing of the API layer: the
// composition root (main.ts) hands it registrars, and each registrar gets this context.
import type { Logger } from 'pino';
import type { EventBus } from '../observe/bus.js';
import type { NodeSource } from '../observe/node-source.js';
import type { StallWatch } from '../observe/stall-watch.js';
import type { RefusalLog } from '../observe/log-limiter.js';
import type { ApplyOutput, LockStateMachine } from '../state-machine/index.js';
import type { NodeSecurity } from '../security/node-security.js';
import type { AccessControl } from '../security/access-control.js';
import type { Clock } from './clock.js';
import type { NodeConfig } from './config.js';
import type { ServiceRegistry } from './listeners.js';
import type { LeaseRenewals } from './lease-clock.js';
import type { Membership } from './peer-membership.js';
import type { PeerDirectory } from './peer-directory.js';
import type { RaftDriver } from './raft-driver.js';
import type { TestFaults } from './test-faults.js';

export interface NodeContext {
  readonly config: NodeConfig;
  readonly driver: RaftDriver<ApplyOutput>;
  readonly stateMachine: LockStateMachine;
  readonly logger: Logger;
  /** The node's time and timers: every deadline, wait and retry of a service runs on it (node/clock.ts). */
  readonly clock: Clock;
  /** Members' peer addresses (to dial) and client addresses (to tell clients). */
  readonly peers: PeerDirectory;
  /** Membership changes as the node sees them (request ids of committed changes). */
  readonly membership: Membership;
  /** TLS credentials for dialing members (forwarding) and peer-caller checks. */
  readonly security: NodeSecurity;
  /** Who may do what (principals, --acl, --admin, the replicated rules): security/access-control.ts. */
  readonly access: AccessControl;
  /** The node's lease clock (it runs while this node leads, whatever services are registered): keepalives join its Ticks. */
  readonly leaseClock: LeaseRenewals;
  /** Refusals and protocol errors to log: a count per interval, not a line each (observe/log-limiter.ts). */
  readonly refusals: RefusalLog;
  /** The node's observation stream (src/lockd/observe) and the source that feeds it. */
  readonly observe: { readonly bus: EventBus; readonly source: NodeSource; readonly stalls: StallWatch };
  /** Test-only faults (--unsafe-test-faults); undefined on every node started without it. */
  readonly testFaults?: TestFaults;
}

/** Registers public services on the node's listeners; what it returns is closed when the node stops. */
export type ServiceRegistrar = (registry: ServiceRegistry, ctx: NodeContext) => { close(): void } | void;
