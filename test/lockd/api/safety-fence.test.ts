// Late duplicates, lock-bound fences and quotas, on a real 3-node cluster through the public gRPC API: a late duplicate
// Fence.Write (held by a paused forwarding follower) does not overwrite a later write; Fence.Write
// with `lock` refuses a grant that has ended before the next holder writes; Fence.Delete; the
// fenced store's per-lease quota.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { MAX_FENCE_KEYS_PER_LEASE } from '../../../src/lockd/state-machine/index.js';
import { ApiFixture, useApiFixture } from './api-fixture.js';
import { statusOf } from '../../support/lock-api-client.js';
import { SessionClient } from '../../../src/client/session-client.js';
import type { LockdError } from '../../../src/client/errors.js';

const TTL_MS = 10_000;

describe('safety: the fenced store (request ids, lock-bound writes, delete, quotas)', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  it('a Fence.Write naming its lock is refused once the grant ended, before the next holder has written', async () => {
    const a = await f.keptLease(TTL_MS);
    const b = await f.keptLease(TTL_MS);
    const t1 = (await f.leader.acquire('seq', a.leaseId)).fencingToken;
    expect(await f.follower.fenceWrite('seq/out', 'from-a', t1, { lock: 'seq' })).to.deep.equal({ highestToken: t1 });
    // A is paused past its lease: the cluster ends it and B takes the lock, but has not written yet.
    a.stop();
    await f.leader.revoke(a.leaseId);
    const t2 = (await f.leader.acquire('seq', b.leaseId)).fencingToken;
    const err = await statusOf(f.follower.fenceWrite('seq/out', 'late-a', t1, { lock: 'seq' }));
    expect(err.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(err.details).to.equal(`fencing token ${t1} is not the current grant of lock seq: it is held under token ${t2}`);
    expect((await f.leader.fenceRead('seq/out')).value.toString()).to.equal('from-a');
    await f.leader.release('seq', t2);
    const free = await statusOf(f.leader.fenceWrite('seq/out', 'late-b', t2, { lock: 'seq' }));
    expect(free.details).to.equal(`fencing token ${t2} is not the current grant of lock seq: it is not held`);
    // An invalid lock name is refused by the node called, before anything is proposed.
    expect((await statusOf(f.follower.fenceWrite('seq/out', 'x', t2, { lock: 'bad\u0001name' }))).code).to.equal(grpc.status.INVALID_ARGUMENT);
  });

  it('Fence.Delete is fenced like a write, and its tombstone keeps a stale writer from bringing the key back', async () => {
    const a = await f.keptLease(TTL_MS);
    const t1 = (await f.leader.acquire('del', a.leaseId)).fencingToken;
    await f.leader.fenceWrite('del/k', 'v1', t1);
    await f.leader.release('del', t1);
    const t2 = (await f.leader.acquire('del', a.leaseId)).fencingToken;
    const stale = await statusOf(f.follower.fenceDelete('del/k', t1 - 1));
    expect(stale.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(stale.metadata.get('lockd-highest-token')).to.deep.equal([String(t1)]);
    expect((await statusOf(f.follower.fenceDelete('del/k', t1, { lock: 'del' }))).details).to.contain('is not the current grant of lock del');
    expect(await f.follower.fenceDelete('del/k', t2, { lock: 'del', requestId: 'del-1' })).to.deep.equal({ deleted: true, highestToken: t2 });
    // Its retry answers what it did, not "nothing to delete".
    expect(await f.leader.fenceDelete('del/k', t2, { lock: 'del', requestId: 'del-1' })).to.deep.equal({ deleted: true, highestToken: t2 });
    expect(await f.leader.fenceRead('del/k')).to.deep.include({ fencingToken: 0 });
    const zombie = await statusOf(f.leader.fenceWrite('del/k', 'zombie', t1));
    expect(zombie.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(zombie.details).to.contain(`a delete with token ${t2} was already accepted`);
    await f.leader.release('del', t2);
  });

  it(`one lease cannot spend the fenced store: it creates at most ${MAX_FENCE_KEYS_PER_LEASE} keys, others still can, a delete gives one back`, async () => {
    const greedy = await f.keptLease(TTL_MS);
    const other = await f.keptLease(TTL_MS);
    const tg = (await f.leader.acquire('quota-g', greedy.leaseId)).fencingToken;
    await Promise.all(Array.from({ length: MAX_FENCE_KEYS_PER_LEASE }, (_, i) => f.leader.fenceWrite(`quota/g${i}`, 'x', tg)));
    const full = await statusOf(f.follower.fenceWrite('quota/g-more', 'x', tg));
    expect(full.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(full.details).to.equal(`lease ${greedy.leaseId} already created ${MAX_FENCE_KEYS_PER_LEASE} fenced keys (the limit per lease); delete some first`);
    const to = (await f.leader.acquire('quota-o', other.leaseId)).fencingToken;
    expect(await f.leader.fenceWrite('quota/o0', 'y', to, { lock: 'quota-o' })).to.deep.equal({ highestToken: to });
    expect(await f.leader.fenceDelete('quota/g0', tg)).to.deep.equal({ deleted: true, highestToken: tg });
    expect(await f.leader.fenceWrite('quota/g-more', 'x', tg)).to.deep.equal({ highestToken: tg });
  });

  it('the Session stream serves Fence.Delete and the lock-bound write with the unary semantics, request ids included', async () => {
    const c = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address), timeoutMs: 10_000 });
    try {
      const { leaseId } = await c.grant(TTL_MS);
      const { fencingToken: t } = await c.acquire('sess-fence', leaseId);
      expect(await c.fenceWrite('sess-fence/k', 'v', t, { lock: 'sess-fence', requestId: 'sw-1' })).to.equal(t);
      expect(await c.fenceDelete('sess-fence/k', t, { lock: 'sess-fence', requestId: 'sd-1' })).to.deep.equal({ deleted: true, highestToken: t });
      expect(await c.fenceDelete('sess-fence/k', t, { lock: 'sess-fence', requestId: 'sd-1' })).to.deep.equal({ deleted: true, highestToken: t });
      expect(await c.release('sess-fence', t, { requestId: 'sr-1' })).to.equal(true);
      expect(await c.release('sess-fence', t, { requestId: 'sr-1' })).to.equal(true);
      const e = (await c.fenceWrite('sess-fence/k', 'late', t, { lock: 'sess-fence' }).then(
        () => undefined,
        (x: unknown) => x,
      )) as LockdError;
      expect(e?.codeName).to.equal('FAILED_PRECONDITION');
      expect(e.details).to.equal(`fencing token ${t} is not the current grant of lock sess-fence: it is not held`);
      await c.revoke(leaseId, { requestId: 'sv-1' });
      await c.revoke(leaseId, { requestId: 'sv-1' });
    } finally {
      c.close();
    }
  });

  // Last: it pauses a follower.
  it('a late duplicate Fence.Write (held by a paused forwarding follower) does not overwrite a later write', async () => {
    const a = await f.keptLease(TTL_MS);
    const token = (await f.leader.acquire('late', a.leaseId)).fencingToken;
    const paused = f.cluster.nodes.find((n) => n.id !== f.leaderId)!.id;
    const via = f.api(paused);
    await via.fenceRead('late/out'); // the connection is up, so the request's bytes wait in its socket
    f.cluster.signal(paused, 'SIGSTOP');
    let first: Promise<{ highestToken: number }>;
    try {
      // The client's first attempt goes to the paused follower; it times out on the client's side
      // (we do not wait for it) and the client retries through the leader with the same request id.
      first = via.fenceWrite('late/out', 'v1', token, { requestId: 'late-w1', timeoutMs: 30_000 });
      expect(await f.leader.fenceWrite('late/out', 'v1', token, { requestId: 'late-w1' })).to.deep.equal({ highestToken: token });
      // Acknowledged; the holder moves on and writes the next value.
      expect(await f.leader.fenceWrite('late/out', 'v2', token, { requestId: 'late-w2' })).to.deep.equal({ highestToken: token });
    } finally {
      f.cluster.signal(paused, 'SIGCONT');
    }
    // The follower wakes up and forwards the first attempt: it lands after v2, and is a duplicate.
    expect(await first).to.deep.equal({ highestToken: token });
    expect((await f.leader.fenceRead('late/out')).value.toString()).to.equal('v2');
    expect((await f.api(paused).fenceRead('late/out')).value.toString()).to.equal('v2');
  });
});
