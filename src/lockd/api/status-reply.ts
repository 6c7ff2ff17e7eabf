// Cluster.Status's answer: what this node knows of the cluster, answered locally. Role, term and
// leader are the ones the node acts on (the router serves a call here exactly when role is leader),
// not the Raft core's, which run ahead of the disk: a caller that waits for one agreed leader must
// not be told of a leadership the old leader is still serving, or a term not yet written.
import type { StatusResponse } from '../../proto/gen/lockd/v1/StatusResponse.js';
import type { PeerDirectory } from '../node/peer-directory.js';
import type { RaftDriver } from '../node/raft-driver.js';

export type StatusSource = Pick<RaftDriver<unknown>, 'status' | 'acting' | 'appliedIndex'>;

export function statusReply(driver: StatusSource, peers: Pick<PeerDirectory, 'members' | 'clientAddress'>): StatusResponse {
  const st = driver.status();
  const { role, leader, term } = driver.acting();
  return {
    nodeId: st.id,
    role,
    term,
    leaderId: leader,
    commitIndex: st.commit,
    appliedIndex: driver.appliedIndex(),
    leaderAddress: leader ? peers.clientAddress(leader) : '',
    members: peers.members().map((id) => ({ id, address: peers.clientAddress(id), matchIndex: st.progress.get(id)?.match ?? 0 })),
  };
}
