// Public surface of the consensus core.
export { RaftNode } from './raft-node.js';
export { MemoryStorage } from './memory-storage.js';
export * from './types.js';
