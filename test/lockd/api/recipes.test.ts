// The recipes on a real 3-node cluster, through the TS client (unary calls) and the Session
// stream: semaphores (permits, SetPermits, agreement), read-write locks (shared/exclusive FIFO,
// downgrade, upgrade refused, lock-bound fenced writes only for the exclusive holder) and lock-delay
// (after a lease's expiry or revoke, not after a release).
import { expect } from 'chai';
import { ProcessCluster, waitFor } from '../../support/process-cluster.js';
import { LockClient } from '../../../src/client/lock-client.js';
import { SessionClient } from '../../../src/client/session-client.js';
import type { LockdError } from '../../../src/client/errors.js';

const TTL_MS = 30_000;

/** Poll until `cond` holds (bounded). */
const until = (what: string, cond: () => Promise<boolean>) => waitFor(what, async () => ((await cond()) ? true : undefined), 10_000);

async function refusal(p: Promise<unknown>): Promise<LockdError> {
  try {
    await p;
  } catch (e) {
    return e as LockdError;
  }
  throw new Error('expected the call to fail');
}

/** Whether `p` is still pending after the cluster answered a later read (no fixed sleep: a barrier). */
async function pending(p: Promise<unknown>, barrier: () => Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await barrier();
  await new Promise((r) => setImmediate(r));
  return !settled;
}

describe('lock recipes on a 3-node cluster', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let endpoints: string[];
  const closers: Array<() => void> = [];
  const client = (): LockClient => {
    const c = new LockClient({ endpoints, watchLocks: false });
    closers.push(() => c.close());
    return c;
  };
  const session = (): SessionClient => {
    const s = new SessionClient({ endpoints });
    closers.push(() => s.close());
    return s;
  };

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader();
    endpoints = cluster.nodes.map((n) => n.address);
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  after(async () => {
    await cluster?.stop();
  });

  describe('unary (LockClient)', () => {
    it('semaphore of 2 with three clients: two hold with their own tokens, the third is granted when one releases', async () => {
      const [a, b, c] = [client(), client(), client()];
      const la = await a.acquire('u/sem', { ttlMs: TTL_MS, permits: 2 });
      const lb = await b.acquire('u/sem', { ttlMs: TTL_MS, permits: 2 });
      expect(lb.token).to.be.greaterThan(la.token);
      const lc = c.acquire('u/sem', { ttlMs: TTL_MS, permits: 2 });
      await until('c queued', async () => (await a.inspect('u/sem')).waitingLeaseIds.length === 1);
      const info = await a.inspect('u/sem');
      expect(info.permits).to.equal(2);
      expect(info.holders.map((h) => [h.leaseId, h.fencingToken])).to.deep.equal([
        [la.lease.id, la.token],
        [lb.lease.id, lb.token],
      ]);
      expect(await pending(lc, () => a.inspect('u/sem'))).to.equal(true);
      expect(await la.release()).to.equal(true);
      const granted = await lc;
      expect(granted.token).to.be.greaterThan(lb.token);
      expect((await a.inspect('u/sem')).holders.map((h) => h.leaseId)).to.deep.equal([lb.lease.id, granted.lease.id]);
    });

    it('refuses an Acquire whose permits disagree with the holders, naming both values', async () => {
      const [a, b] = [client(), client()];
      await a.acquire('u/agree', { ttlMs: TTL_MS, permits: 2 });
      const e = await refusal(b.acquire('u/agree', { ttlMs: TTL_MS, permits: 3, wait: false }));
      expect(e.codeName).to.equal('FAILED_PRECONDITION');
      expect(e.message).to.contain('permits 2').and.contain('permits 3');
      expect((await b.inspect('u/agree')).waitingLeaseIds).to.deep.equal([]);
    });

    it('SetPermits growth grants the waiter at once', async () => {
      const [a, b] = [client(), client()];
      await a.acquire('u/grow', { ttlMs: TTL_MS });
      const lb = b.acquire('u/grow', { ttlMs: TTL_MS });
      await until('b queued', async () => (await a.inspect('u/grow')).waitingLeaseIds.length === 1);
      expect(await a.setPermits('u/grow', 2)).to.deep.equal({ previous: 1, granted: 1 });
      expect((await lb).token).to.be.greaterThan(0);
      expect((await a.inspect('u/grow')).holders).to.have.length(2);
      expect((await refusal(a.setPermits('u/grow', 1))).codeName).to.equal('FAILED_PRECONDITION');
    });

    it('read-write lock: readers coexist, a waiting writer blocks later readers, downgrade admits them, upgrade is refused, only the writer fences', async () => {
      const [r1, r2, w, r3] = [client(), client(), client(), client()];
      const l1 = await r1.acquire('u/rw', { ttlMs: TTL_MS, shared: true });
      const l2 = await r2.acquire('u/rw', { ttlMs: TTL_MS, shared: true });
      const lw = w.acquire('u/rw', { ttlMs: TTL_MS });
      await until('writer queued', async () => (await r1.inspect('u/rw')).waitingLeaseIds.length === 1);
      const l3 = r3.acquire('u/rw', { ttlMs: TTL_MS, shared: true });
      await until('reader queued', async () => (await r1.inspect('u/rw')).waitingLeaseIds.length === 2);
      expect((await r1.inspect('u/rw')).waitingShared).to.deep.equal([false, true]);
      // Readers do not fence through the lock.
      const e = await refusal(r1.fenceWrite('u/rw-key', 'r1', l1.token, { lock: 'u/rw' }));
      expect(e.codeName).to.equal('FAILED_PRECONDITION');
      expect(e.message).to.contain('shared (read) grant');
      await l1.release();
      await l2.release();
      const writer = await lw;
      expect(await pending(l3, () => w.inspect('u/rw'))).to.equal(true);
      expect(await w.fenceWrite('u/rw-key', 'w', writer.token, { lock: 'u/rw' })).to.equal(writer.token);
      await writer.downgrade();
      const reader = await l3;
      expect((await w.inspect('u/rw')).holders.map((h) => [h.leaseId, h.fencingToken, h.shared])).to.deep.equal([
        [writer.lease.id, writer.token, true],
        [reader.lease.id, reader.token, true],
      ]);
      expect((await refusal(w.fenceWrite('u/rw-key', 'w2', writer.token, { lock: 'u/rw' }))).codeName).to.equal('FAILED_PRECONDITION');
      const up = await refusal(r3.acquireRaw('u/rw', reader.lease.id, { shared: false }));
      expect(up.codeName).to.equal('FAILED_PRECONDITION');
      expect(up.message).to.contain('upgrading to exclusive is refused');
    });

    it('lock-delay: after the holder lease expires the name stays ungranted for the delay, then the waiter is granted; a release has no delay', async () => {
      const [a, b] = [client(), client()];
      const doomed = await a.grantLease(500);
      await a.acquireRaw('u/delay', doomed.id, { lockDelayMs: 3000 });
      doomed.close(); // no more keepalives: it expires on the cluster's clock
      const lb = b.acquire('u/delay', { ttlMs: TTL_MS });
      await until('the lease expired and the delay began', async () => (await b.inspect('u/delay')).lockDelayUntilMs > 0);
      const during = await b.inspect('u/delay');
      expect(during.held).to.equal(false);
      expect(during.lockDelayRemainingMs).to.be.greaterThan(0).and.at.most(3000);
      expect(during.waitingLeaseIds).to.have.length(1);
      const granted = await lb;
      const after = await b.inspect('u/delay');
      expect(after).to.deep.include({ lockDelayUntilMs: 0, holderLeaseId: granted.lease.id });
      // The next holder asks for a delay too, but releases normally: the next waiter is granted at once.
      await granted.release();
      const c = client();
      const l1 = await c.acquire('u/delay2', { ttlMs: TTL_MS, lockDelayMs: 60_000 });
      const l2 = b.acquire('u/delay2', { ttlMs: TTL_MS });
      await until('queued', async () => (await c.inspect('u/delay2')).waitingLeaseIds.length === 1);
      await l1.release();
      expect((await l2).token).to.be.greaterThan(l1.token);
    });
  });

  describe('Session stream', () => {
    it('semaphore of 2, agreement, SetPermits growth: grants of one entry have tokens of their own', async () => {
      const s = session();
      const [a, b, c, d] = await Promise.all([s.grant(TTL_MS), s.grant(TTL_MS), s.grant(TTL_MS), s.grant(TTL_MS)]);
      const ra = await s.acquire('s/sem', a.leaseId, { permits: 2 });
      const rb = await s.acquire('s/sem', b.leaseId, { permits: 2 });
      expect([ra.acquired, rb.acquired]).to.deep.equal([true, true]);
      expect((await s.acquire('s/sem', c.leaseId, { permits: 2 })).acquired).to.equal(false);
      expect((await refusal(s.acquire('s/sem', c.leaseId, { permits: 5 }))).message)
        .to.contain('permits 2')
        .and.contain('permits 5');
      const wc = s.acquire('s/sem', c.leaseId, { permits: 2, wait: true });
      const wd = s.acquire('s/sem', d.leaseId, { permits: 2, wait: true });
      await until('c and d queued', async () => (await s.inspect('s/sem')).waitingLeaseIds.length === 2);
      expect(await s.setPermits('s/sem', 4)).to.deep.include({ previous: 2, granted: 2 });
      const [gc, gd] = await Promise.all([wc, wd]);
      // One entry granted both, each under a token of its own: the token alone names c's grant.
      expect(gc.fencingToken).to.not.equal(gd.fencingToken);
      expect(await s.release('s/sem', gc.fencingToken, { leaseId: d.leaseId })).to.equal(false);
      expect(await s.release('s/sem', gc.fencingToken)).to.equal(true);
      expect((await s.inspect('s/sem')).holders.map((h) => h.leaseId)).to.deep.equal([a.leaseId, b.leaseId, d.leaseId]);
    });

    it('read-write lock: FIFO, downgrade, upgrade refused', async () => {
      const s = session();
      const [r, w, r2] = await Promise.all([s.grant(TTL_MS), s.grant(TTL_MS), s.grant(TTL_MS)]);
      const held = await s.acquire('s/rw', r.leaseId, { shared: true });
      const ww = s.acquire('s/rw', w.leaseId, { wait: true });
      await until('writer queued', async () => (await s.inspect('s/rw')).waitingLeaseIds.length === 1);
      // A later reader waits behind the writer although it would fit beside the reader.
      expect((await s.acquire('s/rw', r2.leaseId, { shared: true })).acquired).to.equal(false);
      const wr2 = s.acquire('s/rw', r2.leaseId, { shared: true, wait: true });
      await until('reader queued', async () => (await s.inspect('s/rw')).waitingLeaseIds.length === 2);
      await s.release('s/rw', held.fencingToken);
      const gw = await ww;
      expect(gw.acquired).to.equal(true);
      expect((await s.acquire('s/rw', w.leaseId, { shared: true })).fencingToken).to.equal(gw.fencingToken); // downgrade
      expect((await wr2).acquired).to.equal(true);
      const e = await refusal(s.acquire('s/rw', r2.leaseId, { shared: false }));
      expect(e.codeName).to.equal('FAILED_PRECONDITION');
      expect(e.message).to.contain('upgrading');
    });

    it('lock-delay after a revoke, visible in Inspect, ended by the clock', async () => {
      const s = session();
      const [a, b] = await Promise.all([s.grant(TTL_MS), s.grant(TTL_MS)]);
      await s.acquire('s/delay', a.leaseId, { lockDelayMs: 2000 });
      const wb = s.acquire('s/delay', b.leaseId, { wait: true });
      await until('b queued', async () => (await s.inspect('s/delay')).waitingLeaseIds.length === 1);
      await s.revoke(a.leaseId);
      const during = await s.inspect('s/delay');
      expect(during.held).to.equal(false);
      expect(during.lockDelayRemainingMs).to.be.greaterThan(0).and.at.most(2000);
      expect(await pending(wb, () => s.inspect('s/delay'))).to.equal(true);
      expect((await wb).acquired).to.equal(true);
      expect((await s.inspect('s/delay')).lockDelayUntilMs).to.equal(0);
    });
  });
});
