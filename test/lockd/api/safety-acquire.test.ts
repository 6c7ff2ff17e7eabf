// The retried-Acquire and forged-CancelWait holes, on a real 3-node cluster through the public gRPC API:
//  1. a retried Acquire (same request_id) never reports a grant that has ended — unary (leader and
//     forwarded by a follower) and on a Session stream alike;
//  4. a CancelWait cannot free a lock its holder was handed by naming an abandoned_at_index that is
//     not exactly the waiting Acquire the grant answers (10^12, or any other index).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import type { CancelWaitResponse__Output } from '../../../src/proto/gen/lockd/v1/CancelWaitResponse.js';
import { SessionClient } from '../../../src/client/session-client.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';
import type { LockdError } from '../../../src/client/errors.js';
import { statusOf, type LockApi } from '../../support/lock-api-client.js';
import { ApiFixture, waitFor } from './api-fixture.js';

const TTL_MS = 60_000;

/** Lock.CancelWait with abandoned_at_index (the test client's helper sends none). */
function cancelWait(api: LockApi, name: string, leaseId: number, abandonedAtIndex: number): Promise<CancelWaitResponse__Output> {
  return new Promise((resolve, reject) =>
    api.lock.CancelWait({ name, leaseId, abandonedAtIndex }, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!))),
  );
}

describe('lock API safety: retried Acquires and forged CancelWaits', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const leases: number[] = [];

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(async () => {
    f.stopKeepers();
    for (const id of leases.splice(0)) await f.leader.revoke(id).catch(() => {});
  });
  after(async () => {
    await f?.stop();
  });

  const lease = async (ttlMs = TTL_MS) => {
    const { leaseId } = await f.leader.grant(ttlMs);
    leases.push(leaseId);
    return leaseId;
  };

  describe('a retried Acquire answers what is true now', () => {
    for (const via of ['leader', 'follower'] as const) {
      it(`the repro (via the ${via}): released, then taken by B — the retry is told the grant ended, with B as holder`, async () => {
        const name = `rp-${via}`;
        const api = via === 'leader' ? f.leader : f.follower;
        const [A, B] = [await lease(), await lease()];
        const first = await api.acquire(name, A, { requestId: `R1-${via}` });
        expect(first).to.include({ acquired: true, holderLeaseId: A });
        expect(await api.release(name, first.fencingToken)).to.deep.equal({ released: true });
        const b = await api.acquire(name, B);
        expect(b).to.include({ acquired: true, holderLeaseId: B });
        const retry = await api.acquire(name, A, { requestId: `R1-${via}` });
        expect(retry).to.deep.equal({
          acquired: false,
          fencingToken: 0,
          holderLeaseId: B,
          grantEnded: true,
          endedFencingToken: first.fencingToken,
          lockDelayRemainingMs: 0,
          shared: false,
        });
        expect(await f.leader.inspect(name)).to.include({ held: true, holderLeaseId: B, fencingToken: b.fencingToken });
      });
    }

    it('a retried waiting Acquire whose grant from the queue was released is told so, and does not queue again', async () => {
      const name = 'rp-wait';
      const [H, A] = [await lease(), await lease()];
      const h = await f.leader.acquire(name, H);
      const waiting = f.leader.acquire(name, A, { wait: true, requestId: 'W1', timeoutMs: 20_000 });
      await waitFor('A queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(A) ? true : undefined));
      await f.leader.release(name, h.fencingToken);
      const got = await waiting;
      expect(got).to.include({ acquired: true, holderLeaseId: A });
      await f.leader.release(name, got.fencingToken);
      const retry = await f.leader.acquire(name, A, { wait: true, requestId: 'W1', timeoutMs: 20_000 });
      expect(retry).to.include({ acquired: false, grantEnded: true, endedFencingToken: got.fencingToken, holderLeaseId: 0 });
      expect(await f.leader.inspect(name)).to.deep.include({ held: false, fencingToken: 0, holderLeaseId: 0, waitingLeaseIds: [] });
    });

    it('after the lease expired: NOT_FOUND naming the lease and the ended grant, and B keeps the lock', async () => {
      const name = 'rp-expired';
      const A = await lease(500); // no keepalives: it expires on its own
      const B = (await f.keptLease(TTL_MS)).leaseId;
      const first = await f.leader.acquire(name, A, { requestId: 'R1-expired' });
      expect(first.acquired).to.equal(true);
      await waitFor(
        'A to expire',
        async () => ((await statusOf(f.leader.timeToLive(A)).catch(() => undefined))?.code === grpc.status.NOT_FOUND ? true : undefined),
        15_000,
      );
      expect(await f.leader.acquire(name, B)).to.include({ acquired: true, holderLeaseId: B });
      const err = await statusOf(f.leader.acquire(name, A, { requestId: 'R1-expired' }));
      expect(err.code).to.equal(grpc.status.NOT_FOUND);
      expect(err.details).to.contain(`lease ${A} not found`).and.to.contain(`token ${first.fencingToken}`);
      expect(await f.leader.inspect(name)).to.include({ holderLeaseId: B });
    });

    it('a retried try-lock that found the lock held does not take it once it is free (no orphan)', async () => {
      const name = 'rp-try';
      const [H, A] = [await lease(), await lease()];
      const h = await f.leader.acquire(name, H);
      expect(await f.leader.acquire(name, A, { requestId: 'T1' })).to.include({ acquired: false, holderLeaseId: H });
      await f.leader.release(name, h.fencingToken);
      expect(await f.leader.acquire(name, A, { requestId: 'T1' })).to.deep.equal({
        acquired: false,
        fencingToken: 0,
        holderLeaseId: 0,
        grantEnded: false,
        endedFencingToken: 0,
        lockDelayRemainingMs: 0,
        shared: false,
      });
      expect((await f.leader.inspect(name)).held).to.equal(false);
    });

    it('a Session stream answers the same as the unary call', async () => {
      const name = 'rp-session';
      const s = new SessionClient({ endpoints: [f.cluster.node(f.leaderId).address] });
      try {
        const [A, B] = [await lease(), await lease()];
        const first = await s.acquire(name, A, { requestId: 'S1' });
        expect(first.acquired).to.equal(true);
        await s.release(name, first.fencingToken);
        const b = await s.acquire(name, B);
        expect(b.acquired).to.equal(true);
        expect(await s.acquire(name, A, { requestId: 'S1' })).to.deep.equal({
          acquired: false,
          fencingToken: 0,
          holderLeaseId: B,
          grantEnded: true,
          endedFencingToken: first.fencingToken,
          lockDelayRemainingMs: 0,
          shared: false,
        });
        await f.leader.revoke(A);
        const err = (await s.acquire(name, A, { requestId: 'S1' }).then(
          () => undefined,
          (e: unknown) => e,
        )) as LockdError;
        expect(err.codeName).to.equal('NOT_FOUND');
        expect(err.details).to.contain(`lease ${A} not found`);
      } finally {
        s.close();
      }
    });
  });

  describe('CancelWait cannot free a lock its holder was handed', () => {
    it('a stranger naming the holder with abandoned_at_index = 10^12: INVALID_ARGUMENT, the lock stays', async () => {
      const name = 'cw-1e12';
      const H = await lease();
      const h = await f.leader.acquire(name, H, { wait: true, timeoutMs: 5000 });
      expect(h.acquired).to.equal(true);
      const err = await statusOf(cancelWait(f.follower, name, H, 1e12));
      expect(err.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(err.details).to.match(/abandoned_at_index 1000000000000 names no earlier log entry/);
      expect(await f.leader.inspect(name)).to.include({ held: true, holderLeaseId: H, fencingToken: h.fencingToken });
    });

    it('any index but the exact waiting Acquire of the grant frees nothing (the old inclusive bound did)', async () => {
      const name = 'cw-bound';
      const [H, L] = [await lease(), await lease()];
      const h = await f.leader.acquire(name, H);
      const waiting = f.leader.acquire(name, L, { wait: true, timeoutMs: 20_000 });
      await waitFor('L queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(L) ? true : undefined));
      await f.leader.release(name, h.fencingToken);
      const got = await waiting; // L was handed the lock
      expect(got).to.include({ acquired: true, holderLeaseId: L });
      // A bound above the grant (the last applied index), and the grant's own entry (public: its token names it).
      const applied = (await f.cluster.status(f.leaderId)).appliedIndex;
      for (const bound of [applied, tokenIndex(got.fencingToken)])
        expect(await cancelWait(f.leader, name, L, bound)).to.deep.equal({ removed: false, fencingToken: 0, released: false });
      expect(await f.leader.inspect(name)).to.include({ held: true, holderLeaseId: L, fencingToken: got.fencingToken });
      expect(await f.leader.release(name, got.fencingToken)).to.deep.equal({ released: true });
    });

    it('a try-lock’s grant cannot be named at all (its token names its Acquire entry, public through Inspect)', async () => {
      const name = 'cw-try';
      const H = await lease();
      const h = await f.leader.acquire(name, H);
      expect(await cancelWait(f.leader, name, H, tokenIndex(h.fencingToken))).to.deep.equal({ removed: false, fencingToken: 0, released: false });
      expect(await f.leader.inspect(name)).to.include({ held: true, holderLeaseId: H, fencingToken: h.fencingToken });
    });
  });
});
