// The two ways a test that is not about failover holds on a slow machine (test/support):
// LockApi's retry of UNAVAILABLE with one request id, and withStableLeader's named failure.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { LockApi, statusOf } from '../../support/lock-api-client.js';
import { LEADER_CHANGED, withStableLeader } from '../../support/stable-leader.js';
import { ProcessCluster } from '../../support/process-cluster.js';
import { startFake, type FakeServer } from '../../client/fake-server.js';

describe('slow-machine helpers: retried raw calls and a stable leader', function () {
  this.timeout(60_000);

  describe('LockApi with retryUnavailable (scripted server)', () => {
    let server: FakeServer;
    const grants: string[] = [];
    let failFirst = 2;

    before(async () => {
      server = await startFake({
        lease: {
          Grant: ((call: { request: { requestId: string; ttlMs: number } }, cb: (e: Partial<grpc.StatusObject> | null, r?: unknown) => void) => {
            grants.push(call.request.requestId);
            if (grants.length <= failFirst) return cb({ code: grpc.status.UNAVAILABLE, details: 'n2 is no longer the leader; retry shortly' });
            cb(null, { leaseId: 7, ttlMs: call.request.ttlMs });
          }) as never,
          TimeToLive: ((_c: unknown, cb: (e: Partial<grpc.StatusObject>) => void) =>
            cb({ code: grpc.status.UNAVAILABLE, details: 'no leader is known' })) as never,
          Revoke: ((_c: unknown, cb: (e: Partial<grpc.StatusObject>) => void) => cb({ code: grpc.status.NOT_FOUND, details: 'no such lease' })) as never,
        },
      });
    });
    after(() => server.stop());
    beforeEach(() => {
      grants.length = 0;
    });

    it('resends a Grant answered UNAVAILABLE with the same request id, its own when the caller gave none', async () => {
      const api = new LockApi(server.address, { retryUnavailable: true });
      failFirst = 2;
      expect(await api.grant(1000)).to.include({ leaseId: 7 });
      expect(grants).to.have.length(3);
      expect(grants[0]).to.match(/^test-/);
      expect(new Set(grants).size, 'request ids sent').to.equal(1);
      grants.length = 0;
      expect(await api.grant(1000, { requestId: 'mine' })).to.include({ leaseId: 7 });
      expect(grants).to.deep.equal(['mine', 'mine', 'mine']); // the caller's id on every attempt
      api.close();
    });

    it('answers any other status at once, and the last UNAVAILABLE at the deadline; without the option, one attempt', async () => {
      const api = new LockApi(server.address, { retryUnavailable: true });
      expect((await statusOf(api.revoke(1))).code).to.equal(grpc.status.NOT_FOUND);
      const t0 = Date.now();
      const err = await statusOf(api.timeToLive(1, { timeoutMs: 600 }));
      expect(err.code).to.equal(grpc.status.UNAVAILABLE);
      expect(err.details).to.match(/no leader is known \(after \d+ attempts/);
      expect(Date.now() - t0).to.be.within(300, 5000);
      api.close();

      const raw = new LockApi(server.address);
      failFirst = 1;
      expect((await statusOf(raw.grant(1000))).code).to.equal(grpc.status.UNAVAILABLE);
      expect(grants).to.deep.equal(['']); // no request id of its own: the raw wire as the caller wrote it
      raw.close();
    });
  });

  describe('withStableLeader (real cluster)', () => {
    let cluster: ProcessCluster;
    before(async () => {
      cluster = await ProcessCluster.start({ size: 3 });
    });
    after(async () => {
      await cluster?.stop();
    });

    it('runs the test on the agreed leader and returns what it returns', async () => {
      const leader = await cluster.waitForLeader();
      expect(await withStableLeader(cluster, async (id) => id)).to.equal(leader);
    });

    it(`fails with "${LEADER_CHANGED}" when leadership moves, even if the test passed, and keeps the test's own failure`, async () => {
      const passed = await withStableLeader(cluster, async () => {
        await cluster.transferLeader(await cluster.waitForLeader());
        return 'passed';
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(passed?.message).to.match(new RegExp(`^${LEADER_CHANGED}: n\\d in term \\d+, then n\\d in term \\d+ \\(the test passed regardless\\)`));

      const failed = await withStableLeader(cluster, async () => {
        await cluster.transferLeader(await cluster.waitForLeader());
        throw new Error('expected 8 to equal 14');
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(failed?.message).to.include(LEADER_CHANGED).and.include("the test's own failure: expected 8 to equal 14");
      expect((failed?.cause as Error | undefined)?.message).to.equal('expected 8 to equal 14');
    });

    it("passes the test's own failure through unchanged when the leader held", async () => {
      const e = await withStableLeader(cluster, async () => {
        throw new Error('a real failure');
      }).then(
        () => undefined,
        (x: Error) => x,
      );
      expect(e?.message).to.equal('a real failure');
    });
  });
});
