// The public lock API (lockd.v1 Lease, Lock, Fence) on a node's server.
import type { ServiceRegistrar } from '../node/lockd-node.js';

/** Placeholder until the lock service lands: registers nothing yet. */
export const registerLockApi: ServiceRegistrar = () => {};
