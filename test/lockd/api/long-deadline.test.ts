// Long deadlines: Node's setTimeout fires a delay above 2^31-1 ms (~24.8 days) after 1 ms, so a
// 30-day wait used to fail at once. The timer helpers of both sides, and one real waiting Acquire
// with a 30-day deadline through each public path: the TS client's unary call and a Session op.
import { expect } from 'chai';
import { LockClient, SessionClient } from '../../../src/client/index.js';
import { grpcDeadline, longTimeout, MAX_TIMER_MS, MAX_WIRE_DEADLINE_MS, monoNow } from '../../../src/client/deadlines.js';
import { timerAt } from '../../../src/lockd/api/timer-at.js';
import { ProcessCluster, waitFor } from '../../support/process-cluster.js';

const DAYS_30 = 30 * 24 * 3600 * 1000;

/** Resolves with how long after the call `start(fire)` ran fire, or 'not fired' once `ms` have passed. */
function firesAfter(start: (fire: () => void) => () => void, ms: number): Promise<number | 'not fired'> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const stop = start(() => resolve(performance.now() - t0));
    setTimeout(() => {
      stop();
      resolve('not fired');
    }, ms);
  });
}

describe('long deadlines: timers beyond 2^31-1 ms', function () {
  this.timeout(60_000);

  it('server timerAt: a deadline 30 days (or 2^31 ms) ahead does not fire at once; steps add up to the deadline', async () => {
    expect(DAYS_30).to.be.greaterThan(MAX_TIMER_MS);
    for (const ahead of [DAYS_30, MAX_TIMER_MS + 1]) {
      expect(
        await firesAfter((fire) => {
          const t = timerAt(Date.now() + ahead, fire);
          return () => t.clear();
        }, 300),
      ).to.equal('not fired');
    }
    // In 25 ms steps, a 150 ms deadline fires once, at 150 ms, not at the first step.
    const at = await firesAfter((fire) => {
      const t = timerAt(Date.now() + 150, fire, 25);
      return () => t.clear();
    }, 2000);
    expect(at).to.be.a('number').and.at.least(145);
    expect(
      await firesAfter((fire) => {
        const t = timerAt(Infinity, fire);
        return () => t.clear();
      }, 100),
    ).to.equal('not fired');
    expect(
      await firesAfter((fire) => {
        const t = timerAt(Date.now() + 50, fire);
        t.clear();
        return () => {};
      }, 200),
    ).to.equal('not fired');
  });

  it('client longTimeout: the same on the monotonic clock', async () => {
    expect(await firesAfter((fire) => longTimeout(fire, DAYS_30), 300)).to.equal('not fired');
    expect(await firesAfter((fire) => longTimeout(fire, Infinity), 100)).to.equal('not fired');
    const at = await firesAfter((fire) => longTimeout(fire, 150, 25), 2000);
    expect(at).to.be.a('number').and.at.least(145);
    expect(await firesAfter((fire) => longTimeout(fire, 10), 1000)).to.be.a('number');
  });

  it('client: a deadline beyond what a grpc-js server can read is not sent on the wire (the client keeps it)', () => {
    expect(grpcDeadline(monoNow() + DAYS_30)).to.equal(Infinity);
    expect(grpcDeadline(monoNow() + MAX_WIRE_DEADLINE_MS + 1000)).to.equal(Infinity);
    const near = grpcDeadline(monoNow() + 60_000);
    expect(near).to.be.instanceOf(Date);
    expect((near as Date).getTime() - Date.now()).to.be.within(59_000, 60_000);
  });

  describe('on a 3-node cluster', () => {
    let cluster: ProcessCluster;
    let endpoints: string[];
    let client: LockClient;
    let session: SessionClient;

    before(async () => {
      cluster = await ProcessCluster.start({ size: 3 });
      await cluster.waitForLeader();
      endpoints = cluster.nodes.map((n) => n.address);
      client = new LockClient({ endpoints });
      session = new SessionClient({ endpoints });
    });
    after(async () => {
      session?.close();
      client?.close();
      await cluster?.stop();
    });

    const queued = (name: string, leaseId: number) =>
      waitFor(`lease ${leaseId} queued on ${name}`, async () => ((await client.inspect(name)).waitingLeaseIds.includes(leaseId) ? true : undefined), 10_000);

    it('a waiting Acquire with a 30-day deadline queues and is granted when the lock frees (unary, TS client)', async () => {
      const holder = await client.acquire('long/unary', { ttlMs: 5000 });
      const lease = await client.grantLease(5000);
      let settled = false;
      const waiting = client.acquireRaw('long/unary', lease.id, { wait: true, timeoutMs: DAYS_30 }).finally(() => (settled = true));
      await queued('long/unary', lease.id);
      expect(settled).to.equal(false);
      await holder.release();
      expect(await waiting).to.include({ acquired: true, holderLeaseId: lease.id });
      await lease.revoke();
    });

    it('the same wait over a Session (timeout_ms of 30 days), and one cancelled by its caller', async () => {
      const holder = await client.acquire('long/session', { ttlMs: 5000 });
      const lease = await client.grantLease(5000);
      const waiting = session.acquire('long/session', lease.id, { wait: true, timeoutMs: DAYS_30 });
      await queued('long/session', lease.id);
      const other = await client.grantLease(5000);
      const abort = new AbortController();
      const cancelled = session.acquire('long/session', other.id, { wait: true, timeoutMs: DAYS_30, signal: abort.signal }).then(
        () => 'answered',
        (e: unknown) => e,
      );
      await queued('long/session', other.id);
      abort.abort(new Error('gave up'));
      expect(((await cancelled) as Error).message).to.equal('gave up');
      await holder.release();
      expect(await waiting).to.include({ acquired: true, holderLeaseId: lease.id });
      await lease.revoke();
      await other.revoke();
    });
  });
});
