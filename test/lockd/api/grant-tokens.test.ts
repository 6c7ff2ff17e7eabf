// One grant, one token, on a real 3-node cluster through the public gRPC API: two waiters of a
// semaphore granted by one entry get distinct tokens, so once one's lease has expired its token can
// neither write through the lock over the other's acknowledged value nor release the other's grant
// (Release with lease_id 0, the default of the clients' low-level release and of lockctl).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { tokenIndex } from '../../../src/lockd/state-machine/index.js';
import { ApiFixture, useApiFixture } from './api-fixture.js';
import { waitFor } from '../../support/process-cluster.js';
import { statusOf } from '../../support/lock-api-client.js';

const TTL_MS = 10_000;
const SHORT_TTL_MS = 1_500;

describe('safety: every grant has a fencing token of its own', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  it("a stale waiter's token, granted by the same entry as a live one's, is refused by Fence.Write(lock) and releases nothing", async () => {
    const [h1, h2, w2] = [await f.keptLease(TTL_MS), await f.keptLease(TTL_MS), await f.keptLease(TTL_MS)];
    const w1 = await f.keptLease(SHORT_TTL_MS);
    for (const h of [h1, h2]) expect((await f.leader.acquire('sem', h.leaseId, { permits: 2 })).acquired).to.equal(true);
    const waits = [w1, w2].map((w) => f.follower.acquire('sem', w.leaseId, { permits: 2, wait: true, timeoutMs: 30_000 }));
    await waitFor('w1 and w2 queued', async () => ((await f.leader.inspect('sem')).waitingLeaseIds.length === 2 ? true : undefined), 10_000);
    // One entry grants both waiters.
    expect(await f.leader.setPermits('sem', 4)).to.deep.include({ previous: 2, granted: 2 });
    const [g1, g2] = await Promise.all(waits);
    expect([g1.acquired, g2.acquired]).to.deep.equal([true, true]);
    expect(g1.fencingToken).to.not.equal(g2.fencingToken);
    expect(tokenIndex(g1.fencingToken)).to.equal(tokenIndex(g2.fencingToken));
    expect(await f.follower.fenceWrite('sem/out', 'from-w2', g2.fencingToken, { lock: 'sem' })).to.deep.equal({ highestToken: g2.fencingToken });

    // w1 pauses past its lease: the cluster expires it; w2 holds on.
    w1.stop();
    await waitFor('w1 expired', async () => ((await statusOf(f.leader.timeToLive(w1.leaseId))).code === grpc.status.NOT_FOUND ? true : undefined), 15_000);

    const err = await statusOf(f.follower.fenceWrite('sem/out', 'late-w1', g1.fencingToken, { lock: 'sem' }));
    expect(err.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(err.details).to.contain(`fencing token ${g1.fencingToken} is not the current grant of lock sem`);
    const read = await f.leader.fenceRead('sem/out');
    expect([read.value.toString(), read.fencingToken]).to.deep.equal(['from-w2', g2.fencingToken]);

    expect(await f.follower.release('sem', g1.fencingToken)).to.deep.equal({ released: false });
    const holders = (await f.leader.inspect('sem')).holders.map((h) => [h.leaseId, h.fencingToken]);
    expect(holders).to.deep.include([w2.leaseId, g2.fencingToken]);
    expect(holders.map(([l]) => l)).to.not.include(w1.leaseId);
  });
});
