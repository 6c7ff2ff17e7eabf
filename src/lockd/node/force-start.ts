// --force-new-cluster at start (storage/force-new-cluster.ts does the data dir's part): the loud
// part. Every outcome is logged as a warning naming what changed, what may be lost and what the
// operator does next; a refusal is a DataDirError (exit 3) with the reason.
import type { Logger } from 'pino';
import { forceNewCluster, type ForceOutcome } from '../storage/force-new-cluster.js';
import type { NodeConfig } from './config.js';
import { encodeMemberContext } from './member-context.js';

export async function forceAtStart(config: NodeConfig, logger: Logger): Promise<ForceOutcome> {
  const at = new Date().toISOString();
  const self = { peer: config.advertisePeer, client: config.advertiseClient };
  const outcome = await forceNewCluster({
    dir: config.dataDir,
    identity: { clusterId: config.clusterId, nodeId: config.id },
    again: config.forceNewClusterAgain ?? false,
    at,
    context: () => encodeMemberContext({ addresses: { [config.id]: self }, requestId: '', forced: { by: config.id, at } }),
  });
  if (outcome.kind === 'alone') {
    logger.warn(
      { event: 'force new cluster: nothing to do', configIndex: outcome.configIndex, forcedBefore: outcome.forcedBefore },
      `--force-new-cluster: ${config.id} is already the only member (configuration of entry ${outcome.configIndex}${outcome.forcedBefore ? `, forced ${outcome.forcedBefore.at}` : ''}); nothing changed. Remove --force-new-cluster from the start command`,
    );
    return outcome;
  }
  const { previous, removed, first, last, term, storedCommit } = outcome;
  logger.warn(
    { event: 'forced new cluster', previousVoters: previous.voters, previousLearners: previous.learners, removed, entries: [first, last], term, storedCommit },
    `FORCED NEW CLUSTER: ${config.id} is now the only voter. Its log got config entries ${first}..${last} (term ${term}) removing ${removed.join(', ')} for good ` +
      `(previous voters ${previous.voters.join(', ')}${previous.learners.length ? `, learners ${previous.learners.join(', ')}` : ''}). ` +
      `Every entry in this node's log is kept and commits now (it knew ${storedCommit} committed); whatever the lost members committed that ${config.id} never received is gone. ` +
      `Remove --force-new-cluster from the start command, then add members: lockctl member add ID --peer-url HOST:PORT --learner, start them with --join, lockctl member promote ID`,
  );
  return outcome;
}
