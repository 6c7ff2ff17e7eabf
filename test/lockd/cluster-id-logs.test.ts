// The cluster id is all a stranger needs to open a peer stream, so the node never sends it to a
// caller that got it wrong, and never writes it to its logs either (logs travel further than the
// node): neither on every line nor when it refuses a stranger's peer stream.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { raftProto } from '../../src/proto/raft-package.js';
import { CLUSTER_ID_HEADER, NODE_ID_HEADER } from '../../src/lockd/transport/metadata.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';

describe('cluster id kept out of the logs (real processes)', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster | undefined;
  after(async () => {
    await cluster?.stop();
  });

  it('a node logs its work and a refused stranger, and no line carries the cluster id', async () => {
    const clusterId = `secret-${randomBytes(8).toString('hex')}`;
    cluster = await ProcessCluster.start({ size: 3, clusterId });
    const leader = await cluster.waitForLeader();
    const raft = new raftProto.raft.v1.Raft(cluster.node(leader).peerAddress, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set(CLUSTER_ID_HEADER, 'a-guess');
      md.set(NODE_ID_HEADER, cluster.nodes.find((n) => n.id !== leader)!.id);
      const err = await new Promise<grpc.ServiceError | null>((resolve) => raft.Stream(md, (e) => resolve(e)));
      expect(err?.code).to.equal(grpc.status.FAILED_PRECONDITION);
      expect(err?.details).to.not.include(clusterId);
    } finally {
      raft.close();
    }
    await waitFor('the refusal in the leader log', () => (cluster!.log(leader).includes('refused peer stream') ? true : undefined), 10_000, 50);
    for (const n of cluster.nodes) {
      const log = cluster.log(n.id);
      expect(log, `${n.id} logged its election or start`).to.include('node started');
      expect(log.includes(clusterId), `${n.id}'s log carries the cluster id`).to.equal(false);
    }
  });
});
