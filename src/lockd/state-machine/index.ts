// The lockd state machine's public surface: what the node driver, the gRPC service and the simulator use.

export * from './commands.js';
export * from './results.js';
export * from './state-events.js';
export * from './limits.js';
export { grantToken, tokenIndex, firstTokenOf, TOKEN_ORDINAL_BITS, MAX_TOKEN_INDEX } from './token.js';
export { encodeCommand, decodeCommand, CommandDecodeError, COMMAND_FORMAT_VERSION } from './command-codec.js';
export { SnapshotDecodeError, SNAPSHOT_FORMAT_VERSION, SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS, READABLE_SNAPSHOT_FORMATS } from './snapshot-codec.js';
export { SHARED_PRINCIPAL, QUOTA_KEYS, QUOTA_NAMES, defaultQuotas, type QuotaKey, type Quotas, type QuotaOverrides } from './quotas.js';
export { InvariantError, STATE_MACHINE } from './invariant-error.js';
export { DRIFT_BOUND_PPM, driftAllowanceMs, leaseDeadline, leaderMargins } from './deadline-margin.js';
export type { Problem } from './validate.js';
export {
  validateCommand,
  validateLockName,
  validateFenceKey,
  validateLeaseId,
  validateToken,
  validateTtlMs,
  validateMarginMs,
  validateElapsedMs,
  validateDriftPpm,
  validateFenceValue,
  validateRequestId,
  validateAbandonedAtIndex,
  validateCleanupRequestId,
  validateFenceLock,
  validatePermits,
  validateLockDelayMs,
  validateAcquireRecipe,
  validateElectionValue,
  validatePrincipal,
  validateAclRule,
  validateQuotaValue,
} from './validate.js';
export { ANONYMOUS, ACL_VERBS, type AclVerb, type AclRule } from './acl-table.js';
export type { ApplyOutput, EntryLike, HolderView, LockView, LeaseView, FenceView, LockStateMachineOptions } from './lock-state-machine.js';
export { LockStateMachine, statesEqual } from './lock-state-machine.js';
export type { MachineView, LeaseRow, LockRow, LockHolderRow, LockMode, FenceRow, ViewFilter } from './machine-view.js';
export { summarizeState, rebaseState, type StateSummary } from './snapshot-backup.js';
export { DEFAULT_BUMP, replayAndRebase } from './rebase.js';
