// Public surface of the consensus core.
export { RaftNode } from './raft-node.js';
export { MemoryStorage } from './memory-storage.js';
export * from './types.js';
export { ConfChangeError, MAX_MEMBERS, MAX_REMOVED, decodeConfigEntry } from './membership.js';
export type { ConfChange, ConfChangeOp, ConfChangeRefusal, Configuration, ConfigEntryData } from './membership.js';
export { PROMOTE_MAX_LAG } from './raft.js';
