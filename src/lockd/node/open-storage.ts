// A node's first steps on its data dir, before anything else runs on it: made private, migrated from
// the previous storage format, rewritten by --force-new-cluster, then opened (LevelStorage).
import type { Logger } from 'pino';
import { LevelStorage, makeDataDirPrivate, migrateDataDir } from '../storage/index.js';
import type { NodeConfig } from './config.js';
import { forceAtStart } from './force-start.js';
import { buildLine } from './versions.js';

export async function openStorage(config: NodeConfig, logger: Logger): Promise<LevelStorage> {
  const wasOpen = makeDataDirPrivate(config.dataDir);
  if (wasOpen !== undefined)
    logger.warn(
      { event: 'data dir made private', dir: config.dataDir, mode: wasOpen.toString(8) },
      `data dir ${config.dataDir} was mode ${wasOpen.toString(8)} (others could read it): made it 0700`,
    );
  // A data dir of the previous storage format is copied, then migrated (storage/migrate.ts); a
  // newer one is refused (DataDirError 'format', exit 3).
  const migrated = await migrateDataDir(config.dataDir, buildLine(), { clusterId: config.clusterId, nodeId: config.id });
  if (migrated)
    logger.warn(
      { event: 'data dir migrated', dir: config.dataDir, from: migrated.from, to: migrated.to, backup: migrated.backup },
      `data dir ${config.dataDir} migrated from storage format ${migrated.from} to ${migrated.to}; the dir as it was is kept at ${migrated.backup} (delete it once the upgrade is done)`,
    );
  // Recovery from a lost quorum: the data dir becomes a one-voter cluster before it is opened.
  if (config.forceNewCluster) await forceAtStart(config, logger);
  const storage = await LevelStorage.open({
    dir: config.dataDir,
    clusterId: config.clusterId,
    nodeId: config.id,
    // --join: a fresh data dir starts with no configuration and learns it from the cluster.
    voters: config.join ? [] : [...config.peers.keys()],
    writer: buildLine(),
    ...(config.unsafeNoFsync ? { unsafeNoSync: true } : {}),
  });
  if (config.unsafeNoFsync)
    logger.warn(
      { event: 'unsafe no fsync' },
      'UNSAFE: --unsafe-no-fsync: no LevelDB write is synced, a power cut loses acknowledged state; a test control build only, never run a real cluster like this',
    );
  logger.info({ event: 'data dir opened', dir: config.dataDir, created: storage.created, lastIndex: storage.memory.lastIndex() }, 'data dir opened');
  return storage;
}
