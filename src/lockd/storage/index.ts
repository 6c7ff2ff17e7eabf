// The node's durable storage: open a data dir, persist Ready batches, compact after snapshots.
export { LevelStorage, type LevelStorageOptions, type Persistable } from './level-storage.js';
export { DataDirError, type DataDirProblem } from './data-dir-errors.js';
export type { Identity } from './records.js';
export { DataDirReader } from './inspect.js';
export { makeDataDirPrivate } from './private-dir.js';
export { RESTORING_MARK, clearRestoring, markRestoring } from './restoring-mark.js';
export { migrateDataDir, type Migrated } from './migrate.js';
