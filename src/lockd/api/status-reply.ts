// Cluster.Status's answer: what this node knows of the cluster, answered locally. Role, term and
// leader are the ones the node acts on (the router serves a call here exactly when role is leader),
// not the Raft core's, which run ahead of the disk: a caller that waits for one agreed leader must
// not be told of a leadership the old leader is still serving, or a term not yet written.
import type { StatusResponse } from '../../proto/gen/lockd/v1/StatusResponse.js';
import type { PeerDirectory } from '../node/peer-directory.js';
import type { RaftDriver } from '../node/raft-driver.js';
import { LOCKD_VERSION, buildLine } from '../node/versions.js';

/** '' until heard from; '(none)' for a member that states no build line (a lockd before 0.2.0). */
const shownBuild = (line: string | undefined): string => (line === undefined ? '' : line === '' ? '(none)' : line);

export type StatusSource = Pick<RaftDriver<unknown>, 'status' | 'acting' | 'appliedIndex'>;

export function statusReply(driver: StatusSource, peers: Pick<PeerDirectory, 'members' | 'clientAddress' | 'build' | 'clusterVersion'>): StatusResponse {
  const st = driver.status();
  const { role, leader, term } = driver.acting();
  const cv = peers.clusterVersion();
  return {
    nodeId: st.id,
    role,
    term,
    leaderId: leader,
    commitIndex: st.commit,
    appliedIndex: driver.appliedIndex(),
    leaderAddress: leader ? peers.clientAddress(leader) : '',
    members: peers
      .members()
      .map((id) => ({ id, address: peers.clientAddress(id), matchIndex: st.progress.get(id)?.match ?? 0, build: shownBuild(peers.build(id)) })),
    version: LOCKD_VERSION,
    build: buildLine(),
    clusterVersion: cv.version,
    clusterVersionComplete: cv.complete,
  };
}
