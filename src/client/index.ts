// The lockd TypeScript client. See lock-client.ts for LockClient, lease.ts and lock.ts for the
// handles it returns.
export {
  LockClient,
  DEFAULT_LOCK_TTL_MS,
  type LockClientOptions,
  type CallOptions,
  type GrantOptions,
  type AcquireOptions,
  type WriteOptions,
  type FenceWriteOptions,
} from './lock-client.js';
export { Lease, type LeaseEvents, type LeaseOptions } from './lease.js';
export { Lock } from './lock.js';
export { SessionClient, type SessionClientOptions, type SessionCallOptions, type SessionWriteOptions } from './session-client.js';
export type { LockEvent, ObserveOptions } from './observe.js';
export type { LeaderKey, Leadership } from './election.js';
export { LockdError, LeaseLostError, LockLostError, LockHeldError } from './errors.js';
export type { ClientTlsOptions, PemSource } from './tls.js';
export { DEFAULT_ENDPOINTS, parseEndpoints, resolveEndpoints } from './endpoints.js';
export type {
  LockInfo,
  LockHolderInfo,
  LockRecipe,
  LeaseTtl,
  LeaseSummary,
  FenceValue,
  NodeStatus,
  EndpointStatus,
  AclRule,
  QuotaInfo,
  LeaderTransfer,
} from './result-types.js';
