// The voter set is the data dir's, not the flags': a node restarted with a --peers list of other
// ids is refused (exit 3, naming both sets) instead of counting majorities of a cluster that does
// not exist. Real processes, real LevelDB.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { LeaseClient } from '../../src/proto/gen/lockd/v1/Lease.js';
import { ProcessCluster, freePort } from '../support/process-cluster.js';

function grant(client: LeaseClient): Promise<number> {
  return new Promise((resolve, reject) =>
    client.Grant({ ttlMs: 3_600_000 }, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!.leaseId))),
  );
}

describe('lockd start: the stored voter set (real processes)', function () {
  this.timeout(90_000);
  let cluster: ProcessCluster | undefined;
  let lease: LeaseClient | undefined;

  afterEach(async function () {
    lease?.close();
    lease = undefined;
    await cluster?.stop(this.currentTest?.state === 'failed');
    cluster = undefined;
  });

  it('refuses to reopen a 3-voter data dir with 5 voters, or with one id changed: exit 3, naming both sets', async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const leader = await cluster.waitForLeader();
    lease = new lockdProto.lockd.v1.Lease(cluster.node(leader).address, grpc.credentials.createInsecure());
    await cluster.waitForApplied(await grant(lease));
    const victim = cluster.nodes.find((n) => n.id !== leader)!.id;
    const others = cluster.nodes.filter((n) => n.id !== victim);
    await cluster.kill(victim);

    const five = `${cluster.peersFlag()},n4=127.0.0.1:${await freePort()},n5=127.0.0.1:${await freePort()}`;
    const grown = await cluster.runToExit(cluster.argsFor(victim, { '--peers': five }));
    expect(grown.code).to.equal(3);
    expect(grown.output).to.match(/refusing data dir .* \(voters\)/);
    expect(grown.output).to.include('{n1, n2, n3}').and.include('{n1, n2, n3, n4, n5}');

    // Three voters still, but one of them another node (n9 where others[1] was).
    const renamed = [`${victim}=${cluster.node(victim).peerAddress}`, `${others[0].id}=${others[0].peerAddress}`, `n9=${others[1].peerAddress}`].join(',');
    const swapped = await cluster.runToExit(cluster.argsFor(victim, { '--peers': renamed }));
    expect(swapped.code).to.equal(3);
    expect(swapped.output).to.match(/refusing data dir .* \(voters\)/);
    expect(swapped.output)
      .to.include('{n1, n2, n3}')
      .and.include(`{${[victim, others[0].id, 'n9'].sort().join(', ')}}`);

    // The same ids in another order: it starts, rejoins and applies what comes next.
    const reordered = [...cluster.nodes]
      .reverse()
      .map((n) => `${n.id}=${n.peerAddress}`)
      .join(',');
    cluster.startNode(victim, { '--peers': reordered });
    await cluster.waitForLeader();
    await cluster.waitForApplied(await grant(lease));
    expect(cluster.isRunning(victim)).to.equal(true);
  });
});
