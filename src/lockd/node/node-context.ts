// What a service registered on a node may use of it. The node knows nothing of the API layer: the
// composition root (main.ts) hands it registrars, and each registrar gets this context.
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { EventBus } from '../observe/bus.js';
import type { NodeSource } from '../observe/node-source.js';
import type { ApplyOutput, LockStateMachine } from '../state-machine/index.js';
import type { NodeConfig } from './config.js';
import type { RaftDriver } from './raft-driver.js';

export interface NodeContext {
  readonly config: NodeConfig;
  readonly driver: RaftDriver<ApplyOutput>;
  readonly stateMachine: LockStateMachine;
  readonly logger: Logger;
  /** The node's observation stream (src/lockd/observe) and the source that feeds it. */
  readonly observe: { readonly bus: EventBus; readonly source: NodeSource };
}

/** Registers public services on the node's server; what it returns is closed when the node stops. */
export type ServiceRegistrar = (server: grpc.Server, ctx: NodeContext) => { close(): void } | void;
