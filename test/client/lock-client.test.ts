// LockClient against a real 3-node cluster (separate processes, LevelDB, gRPC).
import { expect } from 'chai';
import { LockClient, LockdError, LockLostError, type LockEvent } from '../../src/client/index.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { START_TIMEOUT_MS } from '../lockd/api/api-fixture.js';

/**
 * What the deadline tests pin is order: the signal never fires before the deadline (and, on a real
 * cluster, before the cluster expires the lease). Lateness is timer slack, bounded loosely: 2 loaded
 * cores can run a timer hundreds of ms late.
 */
const TIMER_SLACK_MS = 1000;

/** Resolves with performance.now() when `signal` aborts. */
function abortedAt(signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(performance.now());
    signal.addEventListener('abort', () => resolve(performance.now()), { once: true });
  });
}

/** Rejects if `p` takes longer than ms. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

describe('LockClient on a 3-node cluster', function () {
  this.timeout(30_000);
  let cluster: ProcessCluster;
  let endpoints: string[];
  const clients: LockClient[] = [];
  const client = (eps = endpoints): LockClient => {
    const c = new LockClient({ endpoints: eps });
    clients.push(c);
    return c;
  };

  before(async function () {
    // Start-up is bounded by its own parts (the build, the election wait), not by a test's timeout.
    this.timeout(Math.max(this.timeout(), START_TIMEOUT_MS));
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader(undefined, 60_000); // a loaded machine starts nodes slowly
    endpoints = cluster.nodes.map((n) => n.address);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('acquires, reports the holder, and releases; a try on a held lock answers at once', async () => {
    const a = client();
    const b = client();
    const lock = await a.acquire('client/basic', { ttlMs: 3000 });
    expect(lock.token).to.be.greaterThan(0);
    expect(lock.held).to.equal(true);
    const info = await b.inspect('client/basic');
    expect(info).to.deep.include({ held: true, fencingToken: lock.token, holderLeaseId: lock.lease.id });
    expect(await b.tryAcquire('client/basic', { ttlMs: 3000 })).to.equal(undefined);

    expect(await lock.release()).to.equal(true);
    expect(lock.signal.aborted).to.equal(true);
    expect((lock.signal.reason as LockLostError).why).to.equal('released-here');
    expect((await b.inspect('client/basic')).held).to.equal(false);
    // The lease it made for itself is gone with it.
    const err = await b.timeToLive(lock.lease.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as LockdError).codeName).to.equal('NOT_FOUND');

    const again = await b.tryAcquire('client/basic', { ttlMs: 3000 });
    expect(again?.token).to.be.greaterThan(lock.token);
    await again!.release();
  });

  it('withLock runs fn with the lock and its signal, and releases also when fn throws', async () => {
    const c = client();
    const token = await c.withLock(
      'client/with',
      async (lock, signal) => {
        expect(signal.aborted).to.equal(false);
        await c.fenceWrite('client/with-key', 'v1', lock.token);
        return lock.token;
      },
      { ttlMs: 3000 },
    );
    expect((await c.fenceRead('client/with-key')).fencingToken).to.equal(token);
    expect((await c.inspect('client/with')).held).to.equal(false);

    const err = await c
      .withLock(
        'client/with',
        () => {
          throw new Error('boom');
        },
        { ttlMs: 3000 },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).message).to.equal('boom');
    expect((await c.inspect('client/with')).held).to.equal(false);

    // Lost while fn ran (its lease revoked by someone else): fn sees the signal, withLock rejects.
    const other = client();
    let sawAbort = false;
    const lost = await c
      .withLock(
        'client/with',
        async (lock, signal) => {
          await other.revokeLease(lock.lease.id);
          await within(abortedAt(signal), 3000, 'loss notice');
          sawAbort = true;
          return 'finished anyway';
        },
        { ttlMs: 3000 },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(sawAbort).to.equal(true);
    expect(lost).to.be.instanceOf(LockLostError);
  });

  it('a stale token is refused by the fenced store and its release changes nothing', async () => {
    const c = client();
    const first = await c.acquire('client/fence', { ttlMs: 3000 });
    await first.release();
    const second = await c.acquire('client/fence', { ttlMs: 3000 });
    await c.fenceWrite('client/fence-key', 'new', second.token);
    const err = await c.fenceWrite('client/fence-key', 'old', first.token).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(LockdError);
    expect((err as LockdError).codeName).to.equal('FAILED_PRECONDITION');
    expect((await c.fenceRead('client/fence-key')).value.toString()).to.equal('new');
    expect(await c.release('client/fence', first.token)).to.equal(false);
    expect((await c.inspect('client/fence')).fencingToken).to.equal(second.token);
    await second.release();
  });

  it('finds the leader from a follower endpoint (and past an endpoint that is down)', async () => {
    const leaderId = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n.id !== leaderId)!;
    const c = client(['127.0.0.1:1', follower.address]);
    const lease = await c.grantLease(2000);
    expect(c.leaderAddress()).to.equal(cluster.node(leaderId).address);
    const lock = await c.acquire('client/discovery', { lease });
    expect(lock.token).to.be.greaterThan(0);
    // Keepalives flow: the lease is renewed past its TTL (renewals observed, not slept through).
    const since = performance.now();
    await waitFor(
      'renewals past one TTL',
      () => (lease.lost ? false : performance.now() - since > 2500 && lease.deadline > since + 2000 ? true : undefined),
      10_000,
    );
    expect(lease.lost).to.equal(false);
    expect((await c.timeToLive(lease.id)).locks).to.deep.equal(['client/discovery']);
    await lock.release();
    await lease.revoke();
  });

  it('a retried Grant or Acquire with the same request id applies once', async () => {
    const c = client();
    const l1 = await c.grantLease(3000, { requestId: 'client-test-grant-1' });
    const l2 = await c.grantLease(3000, { requestId: 'client-test-grant-1' });
    expect(l2.id).to.equal(l1.id);
    const a1 = await c.acquireRaw('client/dedup', l1.id, { requestId: 'client-test-acq-1' });
    const a2 = await c.acquireRaw('client/dedup', l1.id, { requestId: 'client-test-acq-1' });
    expect(a1.acquired).to.equal(true);
    expect(a2).to.deep.equal(a1);
    expect((await c.inspect('client/dedup')).fencingToken).to.equal(a1.fencingToken);
    await l1.revoke();
    l2.close();
  });

  it('revoking the lease elsewhere fires the lease and lock signals promptly', async () => {
    const holder = client();
    const other = client();
    const lease = await holder.grantLease(5000);
    const lock = await holder.acquire('client/revoked', { lease });
    const lockLost = abortedAt(lock.signal);
    const leaseLost = abortedAt(lease.signal);
    const t0 = performance.now();
    await other.revokeLease(lease.id);
    const [lockAt, leaseAt] = await within(Promise.all([lockLost, leaseLost]), 3000, 'loss notice');
    // Promptly — far inside the TTL: Observe sees RELEASED, the keepalive stream hears ttl 0.
    expect(lockAt - t0).to.be.below(1000);
    expect(leaseAt - t0).to.be.below(1000);
    expect(lock.signal.reason).to.be.instanceOf(LockLostError);
    expect(['released', 'lease']).to.include((lock.signal.reason as LockLostError).why);
    expect(lease.signal.reason).to.have.property('why', 'gone');
  });

  it('without keepalives the signal fires at sendTime + ttl, before the cluster expires the lease', async () => {
    const holder = client();
    const watcher = client();
    const events: Array<{ ev: LockEvent; at: number }> = [];
    const stop = new AbortController();
    let subscribed = false;
    const watching = (async () => {
      for await (const ev of watcher.observe('client/expiry', { signal: stop.signal, onOpen: () => (subscribed = true) }))
        events.push({ ev, at: performance.now() });
    })();
    await waitFor('observe subscription', () => (subscribed ? true : undefined), 5000);

    const ttlMs = 1000;
    const before = performance.now();
    // A keepalive period far beyond the TTL: the lease is never renewed (a holder that stalled).
    const lease = await holder.grantLease(ttlMs, { keepAliveIntervalMs: 60_000, renewNow: false });
    const after = performance.now();
    const lock = await holder.acquire('client/expiry', { lease });
    expect(lease.deadline).to.be.within(before + ttlMs, after + ttlMs);

    const lostAt = await within(abortedAt(lock.signal), 3000, 'lock loss');
    expect(lease.signal.reason).to.have.property('why', 'expired');
    expect(lostAt).to.be.at.least(lease.deadline);
    expect(lostAt - lease.deadline).to.be.below(TIMER_SLACK_MS);

    const expired = await waitFor('EXPIRED event', () => events.find((e) => e.ev.type === 'EXPIRED' && e.ev.fencingToken === lock.token), 5000);
    expect(expired.at).to.be.greaterThan(lostAt);
    stop.abort();
    await watching;
  });

  it('right after the event loop was blocked past the deadline, Lock.held and Lease.lost say so synchronously', async () => {
    const c = client();
    const ttlMs = 1000; // room for the Acquire on a loaded machine
    // Never renewed: trusted until the Grant's send time + ttl.
    const lease = await c.grantLease(ttlMs, { keepAliveIntervalMs: 60_000, renewNow: false });
    const lock = await c.acquire('client/blocked', { lease });
    expect(lock.held).to.equal(true);
    const lostEvents: unknown[] = [];
    lease.on('lost', (e) => lostEvents.push(e));
    // Block the event loop (a long computation, a GC pause) until past the deadline: no timer runs.
    while (performance.now() < lease.deadline + 20) {
      // busy
    }
    expect(lock.held, 'Lock.held after the pause').to.equal(false);
    expect(lease.lost, 'Lease.lost after the pause').to.equal(true);
    expect(lease.remainingMs).to.equal(0);
    // The loss is complete there and then: signals aborted, 'lost' emitted, with the reason.
    expect(lease.signal.aborted).to.equal(true);
    expect(lease.signal.reason).to.have.property('why', 'expired');
    expect(lock.signal.aborted).to.equal(true);
    expect((lock.signal.reason as LockLostError).why).to.equal('lease');
    expect(lostEvents).to.have.length(1);
  });

  it('withLock rejects when fn blocked the event loop past the deadline and returned', async () => {
    const c = client();
    const lease = await c.grantLease(1000, { keepAliveIntervalMs: 60_000, renewNow: false });
    const err = await c
      .withLock(
        'client/blocked-with',
        () => {
          while (performance.now() < lease.deadline + 20) {
            // busy
          }
          return 'done, but not exclusively';
        },
        { lease },
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(LockLostError);
  });

  it('when the cluster stops answering keepalives the signal fires at sendTime(last acknowledged) + ttl', async () => {
    const c = client();
    const ttlMs = 900;
    const lease = await c.grantLease(ttlMs);
    let trusted = 0;
    lease.on('renewed', ({ deadline }) => (trusted = deadline));
    await waitFor('two renewals', () => (trusted > 0 && lease.deadline > trusted - 1 ? true : undefined), 5000);
    await new Promise((r) => lease.once('renewed', r));
    const ids = cluster.nodes.map((n) => n.id);
    for (const id of ids) cluster.signal(id, 'SIGSTOP');
    let lostAt: number;
    try {
      lostAt = await within(abortedAt(lease.signal), 3000, 'lease loss');
    } finally {
      for (const id of ids) cluster.signal(id, 'SIGCONT');
    }
    expect(lease.signal.reason).to.have.property('why', 'expired');
    expect(lostAt).to.be.at.least(trusted);
    expect(lostAt - trusted).to.be.below(TIMER_SLACK_MS);
    await cluster.waitForLeader();
  });

  it('keeps a lease and its lock through the leader being killed (keepalives reconnect)', async () => {
    const c = client();
    const lease = await c.grantLease(2000);
    const lock = await c.acquire('client/failover', { lease });
    const retrying: string[] = [];
    lease.on('retrying', (e) => retrying.push(e.codeName));
    const old = await cluster.waitForLeader();
    await cluster.kill(old);
    try {
      const survivors = cluster.nodes.map((n) => n.id).filter((id) => id !== old);
      const next = await cluster.waitForLeader(survivors);
      expect(next).to.not.equal(old);
      // Renewed through the new leader, well past one TTL after the kill.
      const since = performance.now();
      await waitFor(
        'renewals through the new leader past one TTL',
        () => (performance.now() - since > 2500 && lease.deadline > since + 2000 ? true : undefined),
        10_000,
      );
      expect(lease.lost).to.equal(false);
      expect(lock.held).to.equal(true);
      expect(retrying.length).to.be.greaterThan(0);
      expect(await c.inspect('client/failover')).to.deep.include({ held: true, fencingToken: lock.token, holderLeaseId: lease.id });
      expect(await lock.release()).to.equal(true);
      await lease.revoke();
    } finally {
      cluster.startNode(old);
      await cluster.waitForLeader();
    }
  });
});
