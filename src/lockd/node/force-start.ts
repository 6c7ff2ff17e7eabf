// --force-new-cluster at start (storage/force-new-cluster.ts does the data dir's part): the loud
// part. Every outcome is logged as a warning naming what changed, what may be lost and what the
// operator does next; a refusal is a DataDirError (exit 3) with the reason.
import type { Logger } from 'pino';
import { DEFAULT_BUMP, MAX_TOKEN_INDEX, firstTokenOf, replayAndRebase } from '../state-machine/index.js';
import { forceNewCluster, type ForceOutcome } from '../storage/force-new-cluster.js';
import type { NodeConfig } from './config.js';
import { encodeMemberContext } from './member-context.js';
import { buildLine } from './versions.js';

export async function forceAtStart(config: NodeConfig, logger: Logger): Promise<ForceOutcome> {
  const at = new Date().toISOString();
  const self = { peer: config.advertisePeer, client: config.advertiseClient };
  const outcome = await forceNewCluster({
    dir: config.dataDir,
    identity: { clusterId: config.clusterId, nodeId: config.id },
    again: config.forceNewClusterAgain ?? false,
    at,
    bump: config.forceBumpIndex ?? DEFAULT_BUMP,
    maxIndex: MAX_TOKEN_INDEX - 1,
    rebase: replayAndRebase,
    writer: buildLine(),
    context: () => encodeMemberContext({ addresses: { [config.id]: self }, requestId: '', forced: { by: config.id, at } }),
  });
  if (outcome.kind === 'alone') {
    logger.warn(
      { event: 'force new cluster: nothing to do', configIndex: outcome.configIndex, forcedBefore: outcome.forcedBefore },
      `--force-new-cluster: ${config.id} is already the only member (configuration of entry ${outcome.configIndex}${outcome.forcedBefore ? `, forced ${outcome.forcedBefore.at}` : ''}); nothing changed. Remove --force-new-cluster from the start command`,
    );
    return outcome;
  }
  const { previous, removed, first, last, term, storedCommit, survivorLast, snapshotIndex } = outcome;
  logger.warn(
    {
      event: 'forced new cluster',
      previousVoters: previous.voters,
      previousLearners: previous.learners,
      removed,
      entries: [first, last],
      term,
      storedCommit,
      survivorLast,
      snapshotIndex,
    },
    `FORCED NEW CLUSTER: ${config.id} is now the only voter. Its state as of its last entry ${survivorLast} (it knew ${storedCommit} committed; all of it is kept) is now a snapshot at ${snapshotIndex} ` +
      `(--bump-index ${snapshotIndex - survivorLast}): every new fencing token is at least ${firstTokenOf(first)} and every new lease id above ${snapshotIndex}, past anything the old cluster issued unless it committed ${snapshotIndex - survivorLast} entries or more after ${survivorLast}. ` +
      `Config entries ${first}..${last} (term ${term}) follow it, removing ${removed.join(', ')} for good ` +
      `(previous voters ${previous.voters.join(', ')}${previous.learners.length ? `, learners ${previous.learners.join(', ')}` : ''}). ` +
      `Whatever the lost members committed that ${config.id} never received is gone; leases keep their deadlines on the logical clock as of entry ${survivorLast}. ` +
      `Power the lost members off for good (if they were only cut off, they are a majority of the old configuration and keep granting). ` +
      `Remove --force-new-cluster from the start command, then add members: lockctl member add ID --peer-url HOST:PORT --learner, start them with --join, lockctl member promote ID`,
  );
  return outcome;
}
