// Cluster.Status's answer: what this node knows of the cluster, answered locally.
import type { StatusResponse } from '../../proto/gen/lockd/v1/StatusResponse.js';
import type { PeerDirectory } from '../node/peer-directory.js';
import type { RaftDriver } from '../node/raft-driver.js';

export type StatusSource = Pick<RaftDriver<unknown>, 'status' | 'appliedIndex'>;

export function statusReply(driver: StatusSource, peers: Pick<PeerDirectory, 'members' | 'clientAddress'>): StatusResponse {
  const st = driver.status();
  return {
    nodeId: st.id,
    role: st.role,
    term: st.term,
    leaderId: st.leader,
    commitIndex: st.commit,
    appliedIndex: driver.appliedIndex(),
    leaderAddress: st.leader ? peers.clientAddress(st.leader) : '',
    members: peers.members().map((id) => ({ id, address: peers.clientAddress(id), matchIndex: st.progress.get(id)?.match ?? 0 })),
  };
}
