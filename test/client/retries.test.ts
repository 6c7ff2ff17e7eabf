// Client retry behaviour against scripted gRPC servers: leader hints, hung endpoints, deadlines,
// and the request id that makes a retried Grant/Acquire apply once.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { LockClient, LockdError, LockLostError } from '../../src/client/index.js';
import { notLeader, startFake, type FakeServer } from './fake-server.js';

/**
 * What the deadline tests pin is order: the signal never fires before the deadline (and, on a real
 * cluster, before the cluster expires the lease). Lateness is timer slack, bounded loosely: 2 loaded
 * cores can run a timer hundreds of ms late.
 */
const TIMER_SLACK_MS = 1000;

describe('client retries (scripted servers)', function () {
  this.timeout(10_000);
  const servers: FakeServer[] = [];
  const clients: LockClient[] = [];
  const client = (endpoints: string[], extra: Record<string, number> = {}): LockClient => {
    const c = new LockClient({ endpoints, backoffInitialMs: 10, backoffMaxMs: 50, ...extra });
    clients.push(c);
    return c;
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const s of servers.splice(0)) await s.stop();
  });

  it('follows the lockd-leader trailer of an UNAVAILABLE and resends the Grant with the same request id', async () => {
    const seen: Array<{ at: string; requestId: string }> = [];
    const leader = await startFake({
      lease: {
        Grant: (call, cb) => {
          seen.push({ at: 'leader', requestId: call.request.requestId });
          cb(null, { leaseId: 42, ttlMs: call.request.ttlMs });
        },
      },
    });
    const follower = await startFake({
      lease: {
        Grant: (call, cb) => {
          seen.push({ at: 'follower', requestId: call.request.requestId });
          cb(notLeader(leader.address));
        },
      },
    });
    servers.push(leader, follower);
    const c = client([follower.address]);
    const lease = await c.grantLease(5000);
    lease.close();
    expect(lease.id).to.equal(42);
    expect(seen.map((s) => s.at)).to.deep.equal(['follower', 'leader']);
    expect(seen[0].requestId).to.match(/^[0-9a-f-]{36}$/);
    expect(seen[1].requestId).to.equal(seen[0].requestId);
    expect(c.leaderAddress()).to.equal(leader.address);
  });

  it('gives up on a hung endpoint after the attempt timeout and retries the Acquire elsewhere with the same request id', async () => {
    const seen: string[] = [];
    const hung = await startFake({ lock: { Acquire: (call) => void seen.push(`hung:${call.request.requestId}`) } });
    const ok = await startFake({
      lock: {
        Acquire: (call, cb) => {
          seen.push(`ok:${call.request.requestId}`);
          cb(null, { acquired: true, fencingToken: 7, holderLeaseId: call.request.leaseId });
        },
      },
    });
    servers.push(hung, ok);
    const c = client([hung.address, ok.address], { attemptTimeoutMs: 200 });
    const r = await c.acquireRaw('x', 5, { requestId: 'req-1' });
    expect(r).to.deep.equal({
      acquired: true,
      fencingToken: 7,
      holderLeaseId: 5,
      grantEnded: false,
      endedFencingToken: 0,
      lockDelayRemainingMs: 0,
      shared: false,
    });
    expect(seen).to.deep.equal(['hung:req-1', 'ok:req-1']);
  });

  it('a retried Acquire told its grant has ended is not handed a lock: LockLostError, no CancelWait', async () => {
    const seen: string[] = [];
    let attempts = 0;
    const s = await startFake({
      lease: {
        Grant: (call, cb) => cb(null, { leaseId: 9, ttlMs: call.request.ttlMs }),
        KeepAlive: (call) => call.on('data', (req: { leaseId: number }) => call.write({ leaseId: req.leaseId, ttlMs: 5000 })),
        Revoke: (_call, cb) => {
          seen.push('Revoke');
          cb(null, {});
        },
      },
      lock: {
        // The first attempt is granted token 7 but its answer is lost; the grant is released before the retry.
        Acquire: (call, cb) => {
          seen.push(`Acquire:${call.request.requestId}`);
          if (attempts++ === 0) return cb({ code: grpc.status.UNAVAILABLE, details: 'Acquire: outcome unknown; retry (with the same request_id)' });
          cb(null, { acquired: false, fencingToken: 0, holderLeaseId: 12, grantEnded: true, endedFencingToken: 7 });
        },
        CancelWait: (_call, cb) => {
          seen.push('CancelWait');
          cb(null, { removed: false, fencingToken: 0, released: false });
        },
      },
    });
    servers.push(s);
    const c = client([s.address]);
    // With the caller's lease: a failed waiting acquire would leave the queue (CancelWait) — not here.
    const lease = await c.grantLease(5000);
    const err = await c.acquire('x', { lease, requestId: 'r-ended', timeoutMs: 3000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(LockLostError);
    expect(err).to.include({ lockName: 'x', token: 7, why: 'released' });
    // Its own lease: revoked as on any failure.
    const own = await c.acquire('y', { requestId: 'r-ended-2', timeoutMs: 3000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(own).to.be.instanceOf(LockLostError);
    expect(seen).to.deep.equal(['Acquire:r-ended', 'Acquire:r-ended', 'Acquire:r-ended-2', 'Revoke']);
    lease.close();
  });

  it('stops retrying at the deadline and reports the last UNAVAILABLE', async () => {
    let calls = 0;
    const down = await startFake({
      lease: {
        Revoke: (_call, cb) => {
          calls++;
          cb({ code: grpc.status.UNAVAILABLE, details: 'no leader is known, retry shortly' });
        },
      },
    });
    servers.push(down);
    const c = client([down.address]);
    const t0 = performance.now();
    const err = await c.revokeLease(1, { timeoutMs: 300 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = performance.now() - t0;
    expect(err).to.be.instanceOf(LockdError);
    expect((err as LockdError).codeName).to.equal('UNAVAILABLE');
    expect(calls).to.be.greaterThan(1);
    expect(took).to.be.within(150, 1000);
  });

  it('does not retry other codes', async () => {
    let calls = 0;
    const s = await startFake({
      lease: {
        Grant: (_call, cb) => {
          calls++;
          cb({ code: grpc.status.INVALID_ARGUMENT, details: 'ttl_ms 5 is below the minimum 100' });
        },
      },
    });
    servers.push(s);
    const err = await client([s.address])
      .grantLease(5)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(LockdError);
    expect((err as LockdError).codeName).to.equal('INVALID_ARGUMENT');
    expect((err as LockdError).message).to.equal('INVALID_ARGUMENT: ttl_ms 5 is below the minimum 100');
    expect(calls).to.equal(1);
  });

  it('a keepalive stream that goes quiet makes the lease lost at sendTime(last acknowledged) + ttl', async () => {
    const ttlMs = 600;
    let answered = 0;
    const s = await startFake({
      lease: {
        Grant: (call, cb) => cb(null, { leaseId: 9, ttlMs: call.request.ttlMs }),
        // Answers the first two keepalives at once, then never again (a node that hung).
        KeepAlive: (call) => {
          call.on('data', (req: { leaseId: number }) => {
            if (answered++ < 2) call.write({ leaseId: req.leaseId, ttlMs });
          });
          call.on('error', () => {});
        },
      },
    });
    servers.push(s);
    const c = client([s.address]);
    const before = performance.now();
    const lease = await c.grantLease(ttlMs);
    const after = performance.now();
    expect(lease.deadline).to.be.within(before + ttlMs, after + ttlMs);
    const renewals: number[] = [];
    lease.on('renewed', ({ deadline }) => renewals.push(deadline));
    const lostAt = await new Promise<number>((resolve) => lease.signal.addEventListener('abort', () => resolve(performance.now())));
    expect(renewals).to.have.length(2);
    const trusted = renewals[1];
    expect(lease.signal.reason).to.have.property('why', 'expired');
    // Fired at the deadline (timer slack only), never after it by more than that.
    expect(lostAt).to.be.at.least(trusted);
    expect(lostAt - trusted).to.be.below(TIMER_SLACK_MS);
  });

  it('a keepalive answer of ttl 0 makes the lease lost at once (gone)', async () => {
    const s = await startFake({
      lease: {
        Grant: (call, cb) => cb(null, { leaseId: 11, ttlMs: call.request.ttlMs }),
        KeepAlive: (call) => {
          call.on('data', (req: { leaseId: number }) => call.write({ leaseId: req.leaseId, ttlMs: 0 }));
          call.on('error', () => {});
        },
      },
    });
    servers.push(s);
    const lease = await client([s.address]).grantLease(3000, { keepAliveIntervalMs: 50 });
    const t0 = performance.now();
    await new Promise((resolve) => lease.signal.addEventListener('abort', resolve));
    expect(performance.now() - t0).to.be.below(1000);
    expect(lease.signal.reason).to.have.property('why', 'gone');
  });

  it('reopens a keepalive stream ended with UNAVAILABLE on the leader it names, and keeps renewing', async () => {
    const leader = await startFake({
      lease: {
        KeepAlive: (call) => {
          call.on('data', (req: { leaseId: number }) => call.write({ leaseId: req.leaseId, ttlMs: 1000 }));
          call.on('error', () => {});
        },
      },
    });
    const old = await startFake({
      lease: {
        Grant: (call, cb) => cb(null, { leaseId: 12, ttlMs: call.request.ttlMs }),
        KeepAlive: (call) => call.emit('error', notLeader(leader.address)),
      },
    });
    servers.push(leader, old);
    const lease = await client([old.address]).grantLease(1000, { keepAliveIntervalMs: 100 });
    const retried: string[] = [];
    lease.on('retrying', (e) => retried.push(e.codeName));
    await new Promise<void>((resolve, reject) => {
      lease.once('renewed', () => resolve());
      lease.signal.addEventListener('abort', () => reject(lease.signal.reason as Error));
    });
    lease.close();
    expect(retried).to.deep.equal(['UNAVAILABLE']);
  });
});
