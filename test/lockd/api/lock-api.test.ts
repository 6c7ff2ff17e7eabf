// The public lock API on a real 3-node cluster: locks, waiters, leases, retries, forwarding,
// Observe and the fenced store.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, useApiFixture, waitFor } from './api-fixture.js';
import { statusOf } from '../../support/lock-api-client.js';
import { withStableLeader } from '../../support/stable-leader.js';
import { tokenIndex } from '../../../src/lockd/state-machine/index.js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { LeaseKeepAliveResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';

describe('lock API on a 3-node cluster', function () {
  this.timeout(30_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  /** The nodes' log entries of `event` about (name, leaseId) (the leader's, wherever it is now). */
  const logged = (event: string, name: string, leaseId: number) =>
    f.cluster.nodes
      .flatMap((n) => f.cluster.log(n.id).split('\n'))
      .filter((l) => l.includes(`"event":"${event}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.name === name && e.leaseId === leaseId);

  /** Cancel a waiting call and wait until the leader has seen it go (its grace period has begun). */
  const abandon = async (call: { result: Promise<unknown>; cancel(): void }, name: string, leaseId: number) => {
    call.cancel();
    expect((await statusOf(call.result)).code).to.equal(grpc.status.CANCELLED);
    await waitFor(`the leader to see the waiting call for ${name} go`, () => logged('waiter gone', name, leaseId)[0], 5000, 10);
  };

  it('acquires, inspects and releases a lock; a stale release changes nothing', async () => {
    const a = await f.keptLease(2000);
    const r = await f.leader.acquire('acq-rel', a.leaseId);
    expect(r).to.include({ acquired: true, holderLeaseId: a.leaseId });
    expect(r.fencingToken).to.be.greaterThan(0);
    expect(await f.leader.inspect('acq-rel')).to.deep.include({ held: true, fencingToken: r.fencingToken, holderLeaseId: a.leaseId, waitingLeaseIds: [] });
    expect((await f.leader.timeToLive(a.leaseId)).locks).to.deep.equal(['acq-rel']);

    expect(await f.leader.release('acq-rel', r.fencingToken)).to.deep.equal({ released: true });
    expect(await f.leader.inspect('acq-rel')).to.include({ held: false, fencingToken: 0, holderLeaseId: 0 });
    // Released again: the lock is not held at all.
    expect((await statusOf(f.leader.release('acq-rel', r.fencingToken))).code).to.equal(grpc.status.NOT_FOUND);

    const again = await f.leader.acquire('acq-rel', a.leaseId);
    expect(again.fencingToken).to.be.greaterThan(r.fencingToken);
    // The first grant's token is stale now: released = false, and the lock stays held.
    expect(await f.leader.release('acq-rel', r.fencingToken)).to.deep.equal({ released: false });
    expect(await f.leader.inspect('acq-rel')).to.include({ held: true, fencingToken: again.fencingToken });
  });

  it('answers a try-lock on a held lock at once with the holder', async () => {
    const a = await f.keptLease(2000);
    const b = await f.keptLease(2000);
    const held = await f.leader.acquire('try', a.leaseId);
    // A try-lock that waited would end DEADLINE_EXCEEDED (the holder is kept alive): the answer itself says it did not.
    const r = await f.leader.acquire('try', b.leaseId, { wait: false, timeoutMs: 20_000 });
    expect(r).to.deep.equal({
      acquired: false,
      fencingToken: 0,
      holderLeaseId: a.leaseId,
      grantEnded: false,
      endedFencingToken: 0,
      lockDelayRemainingMs: 0,
      shared: false,
    });
    expect(await f.leader.inspect('try')).to.include({ fencingToken: held.fencingToken, holderLeaseId: a.leaseId });
  });

  it('grants five waiters in FIFO order, each with a higher token', async () => {
    const name = 'fifo';
    const holder = await f.keptLease(3000);
    const first = await f.leader.acquire(name, holder.leaseId);
    const waiters = [];
    const results = [];
    for (let k = 0; k < 5; k++) {
      const w = await f.keptLease(3000);
      waiters.push(w.leaseId);
      results.push(f.leader.acquire(name, w.leaseId, { wait: true, timeoutMs: 20_000 }));
      await waitFor(`waiter ${k + 1} queued`, async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === k + 1 ? true : undefined));
    }
    expect((await f.leader.inspect(name)).waitingLeaseIds).to.deep.equal(waiters);
    const settled = results.map(() => false);
    results.forEach(
      (p, k) =>
        void p.then(
          () => (settled[k] = true),
          () => {},
        ),
    );

    let token = first.fencingToken;
    for (let k = 0; k < 5; k++) {
      await f.leader.release(name, token);
      const r = await results[k];
      expect(r).to.include({ acquired: true, holderLeaseId: waiters[k] });
      expect(r.fencingToken).to.be.greaterThan(token);
      token = r.fencingToken;
      // Nobody behind it was granted.
      expect(settled.slice(k + 1).some(Boolean)).to.equal(false);
      expect((await f.leader.inspect(name)).waitingLeaseIds).to.deep.equal(waiters.slice(k + 1));
    }
    await f.leader.release(name, token);
  });

  it('applies a retried Grant or Acquire with the same request id once', async () => {
    const g1 = await f.leader.grant(2000, { requestId: 'grant-retry' });
    const g2 = await f.follower.grant(2000, { requestId: 'grant-retry' });
    expect(g2.leaseId).to.equal(g1.leaseId);
    await f.leader.revoke(g1.leaseId);

    const a = await f.keptLease(2000);
    const obs = await f.leader.observe('retry');
    const r1 = await f.leader.acquire('retry', a.leaseId, { requestId: 'acq-retry' });
    const r2 = await f.follower.acquire('retry', a.leaseId, { requestId: 'acq-retry' });
    expect(r2).to.deep.equal(r1);
    // The lock changed hands once.
    await f.leader.release('retry', r1.fencingToken);
    await waitFor('RELEASED observed', () => (obs.events.some((e) => e.type === 'RELEASED') ? true : undefined), 5000);
    expect(obs.events.filter((e) => e.type === 'ACQUIRED')).to.have.length(1);
    obs.cancel();
  });

  it('keeps a retried waiting Acquire in its place instead of queueing it twice', async () => {
    const name = 'retry-wait';
    const control = 'retry-wait-control';
    const holder = await f.keptLease(3000);
    const w = await f.keptLease(3000);
    const behind = await f.keptLease(3000);
    const y = await f.keptLease(3000);
    const held = await f.leader.acquire(name, holder.leaseId);
    await f.leader.acquire(control, holder.leaseId);
    const obs = await f.leader.observe(name);
    const obsControl = await f.leader.observe(control);
    const first = f.leader.acquireCancellable(name, w.leaseId, { requestId: 'wait-retry', timeoutMs: 20_000 });
    await waitFor('w queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 1 ? true : undefined));
    // A second waiter behind it: a cancelled and re-queued w would come back behind this one.
    const second = f.leader.acquire(name, behind.leaseId, { wait: true, timeoutMs: 20_000 });
    await waitFor('second queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 2 ? true : undefined));
    const controlCall = f.leader.acquireCancellable(control, y.leaseId, { timeoutMs: 20_000 });
    await waitFor('control queued', async () => ((await f.leader.inspect(control)).waitingLeaseIds.length === 1 ? true : undefined));

    // The client "loses" its first call and retries on another node with the same request id.
    await abandon(first, name, w.leaseId);
    const retry = f.follower.acquire(name, w.leaseId, { wait: true, requestId: 'wait-retry', timeoutMs: 20_000 });
    // The control: a wait abandoned on the same node after w's, never retried. Its grace period
    // began after w's, so once its cancel is applied, w's grace period is over too.
    await abandon(controlCall, control, y.leaseId);
    await waitFor(
      'the control wait cancelled after its grace period',
      () => (obsControl.events.some((e) => e.type === 'WAIT_CANCELLED' && e.leaseId === y.leaseId) ? true : undefined),
      10_000,
    );

    // w was never taken out of the queue, and kept its place ahead of the second waiter.
    expect(
      obs.events.filter((e) => e.type === 'WAIT_CANCELLED'),
      'WAIT_CANCELLED events',
    ).to.deep.equal([]);
    expect((await f.leader.inspect(name)).waitingLeaseIds).to.deep.equal([w.leaseId, behind.leaseId]);
    await f.leader.release(name, held.fencingToken);
    const r = await retry;
    expect(r).to.include({ acquired: true, holderLeaseId: w.leaseId });
    expect(r.fencingToken).to.be.greaterThan(held.fencingToken);
    await f.leader.release(name, r.fencingToken);
    expect(await second).to.include({ acquired: true, holderLeaseId: behind.leaseId });
    obs.cancel();
    obsControl.cancel();
  });

  it('serves every call on a follower by forwarding it to the leader', async () => {
    const api = f.follower;
    const { leaseId, ttlMs } = await api.grant(1500);
    expect(ttlMs).to.equal(1500);
    const r = await api.acquire('fwd', leaseId);
    expect(r.acquired).to.equal(true);
    expect(await api.inspect('fwd')).to.include({ held: true, fencingToken: r.fencingToken });
    expect(await api.fenceWrite('fwd-key', 'v1', r.fencingToken)).to.deep.equal({ highestToken: r.fencingToken });
    const read = await api.fenceRead('fwd-key');
    expect(read.value.toString()).to.equal('v1');
    expect(read.fencingToken).to.equal(r.fencingToken);
    const ttl = await api.timeToLive(leaseId);
    expect(ttl.grantedTtlMs).to.equal(1500);
    expect(ttl.remainingMs).to.be.greaterThan(0);
    expect((await api.list()).leases.map((l) => l.leaseId)).to.include(leaseId);
    expect(await api.cancelWait('fwd', leaseId)).to.deep.equal({ removed: false, fencingToken: r.fencingToken, released: false });
    expect(await api.release('fwd', r.fencingToken)).to.deep.equal({ released: true });

    // KeepAlive through the follower is proxied to the leader.
    const stream = api.keepAliveStream();
    const replies: LeaseKeepAliveResponse__Output[] = [];
    stream.on('data', (x: LeaseKeepAliveResponse__Output) => replies.push(x));
    stream.on('error', () => {});
    stream.write({ leaseId });
    await waitFor('keepalive answered via follower', () => (replies.length > 0 ? true : undefined), 5000);
    expect(replies[0]).to.deep.equal({ leaseId, ttlMs: 1500 });
    stream.cancel();
    await api.revoke(leaseId);
  });

  it('never forwards a call twice: a forwarded call on a follower is UNAVAILABLE naming the leader', async () => {
    // Forwarded calls arrive on the peer port, as lockd.forwarded.v1, from another member.
    const follower = f.cluster.nodes.find((n) => n.id !== f.leaderId)!;
    const forwarder = f.cluster.nodes.find((n) => n.id !== f.leaderId && n.id !== follower.id)!;
    const peer = new grpc.Client(follower.peerAddress, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set('lockd-forwarded', forwarder.id);
    md.set('lockd-cluster-id', f.cluster.clusterId);
    const method = lockdProto.lockd.v1.Lock.service.Inspect;
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      peer.makeUnaryRequest(
        '/lockd.forwarded.v1.Lock/Inspect',
        method.requestSerialize,
        method.responseDeserialize,
        { name: 'x' },
        md,
        { deadline: Date.now() + 5000 },
        (e) => resolve(e!),
      ),
    );
    peer.close();
    const leaderAddress = f.cluster.node(f.leaderId).address; // the CLIENT address, never the peer one
    expect(err.code).to.equal(grpc.status.UNAVAILABLE);
    expect(err.details).to.contain(leaderAddress);
    expect(err.metadata.get('lockd-leader')).to.deep.equal([leaderAddress]);
  });

  it('refuses lockd-forwarded from a client on the public port (only members forward, on the peer port)', async () => {
    const md = new grpc.Metadata();
    md.set('lockd-forwarded', 'n1');
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      f.follower.lock.Inspect({ name: 'x' }, md, { deadline: Date.now() + 5000 }, (e) => resolve(e!)),
    );
    expect(err.code).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(err.details).to.contain('lockd-forwarded');
  });

  it('keeps leases alive over KeepAlive and tells the stream when a lease is gone', () =>
    withStableLeader(f.cluster, async (leaderId) => {
      const TTL = 1000;
      const leader = f.api(leaderId);
      const { leaseId } = await leader.grant(TTL);
      const stream = leader.keepAliveStream();
      const replies: LeaseKeepAliveResponse__Output[] = [];
      stream.on('data', (x: LeaseKeepAliveResponse__Output) => replies.push(x));
      stream.on('error', () => {});
      // Renew for 3 TTLs, one renewal at a time: each is answered (counted against the requests
      // sent, never against the clock), and the lease outlives its TTL.
      const t0 = Date.now();
      for (let sent = 1; sent <= 6 || Date.now() - t0 < 3 * TTL; sent++) {
        stream.write({ leaseId });
        await waitFor(`keepalive ${sent} answered`, () => (replies.length >= sent ? true : undefined), 10_000, 10);
        await new Promise((r) => setTimeout(r, 150)); // the renewal interval, well inside the TTL
      }
      expect(
        replies.every((x) => x.leaseId === leaseId && x.ttlMs === TTL),
        JSON.stringify(replies),
      ).to.equal(true);
      expect((await leader.timeToLive(leaseId)).remainingMs).to.be.greaterThan(0);
      // Unknown lease: answered with ttl 0.
      stream.write({ leaseId: 999_999 });
      await waitFor('unknown lease answered', () => (replies.some((x) => x.leaseId === 999_999) ? true : undefined), 5000);
      expect(replies.find((x) => x.leaseId === 999_999)!.ttlMs).to.equal(0);
      // Revoked elsewhere: the stream that kept it alive hears ttl 0 without asking.
      const before = replies.length;
      await f.api(f.cluster.nodes.find((n) => n.id !== leaderId)!.id).revoke(leaseId);
      await waitFor('loss notice', () => (replies.slice(before).some((x) => x.leaseId === leaseId && x.ttlMs === 0) ? true : undefined), 5000);
      stream.cancel();
    }));

  it('tells a keepalive stream when its lease expires', () =>
    withStableLeader(f.cluster, async (leaderId) => {
      const { leaseId } = await f.api(leaderId).grant(300);
      const stream = f.api(f.cluster.nodes.find((n) => n.id !== leaderId)!.id).keepAliveStream();
      const replies: LeaseKeepAliveResponse__Output[] = [];
      stream.on('data', (x: LeaseKeepAliveResponse__Output) => replies.push(x));
      stream.on('error', () => {});
      stream.write({ leaseId });
      await waitFor('renewed', () => (replies.length > 0 ? true : undefined), 5000);
      expect(replies[0].ttlMs).to.equal(300);
      // No more keepalives: it expires and the (proxied) stream is told.
      await waitFor('expiry notice', () => (replies.some((x) => x.ttlMs === 0) ? true : undefined), 5000);
      expect((await statusOf(f.api(leaderId).timeToLive(leaseId))).code).to.equal(grpc.status.NOT_FOUND);
      stream.cancel();
    }));

  it('ends a waiting Acquire with DEADLINE_EXCEEDED at its deadline and leaves the queue', () =>
    withStableLeader(f.cluster, async (leaderId) => {
      const name = 'deadline';
      const leader = f.api(leaderId);
      const holder = await f.keptLease(3000, leader);
      const w = await f.keptLease(3000, leader);
      const held = await leader.acquire(name, holder.leaseId);
      const t0 = Date.now();
      const err = await statusOf(f.api(f.cluster.nodes.find((n) => n.id !== leaderId)!.id).acquire(name, w.leaseId, { wait: true, timeoutMs: 600 }));
      expect(err.code).to.equal(grpc.status.DEADLINE_EXCEEDED);
      expect(Date.now() - t0, 'answered before its deadline').to.be.at.least(550);
      // Cancelled at once, as a wait whose deadline passed (not after the grace period a vanished
      // client gets): the leader says which, rather than the clock.
      await waitFor('queue emptied', async () => ((await leader.inspect(name)).waitingLeaseIds.length === 0 ? true : undefined), 10_000);
      const cancelled = await waitFor('the leader to log the cancel', () => logged('wait cancelled', name, w.leaseId)[0], 5000, 10);
      expect(cancelled.why, JSON.stringify(cancelled)).to.equal('deadline');
      await leader.release(name, held.fencingToken);
      expect(await leader.inspect(name)).to.include({ held: false });
    }));

  it('ends a waiting Acquire with NOT_FOUND when its own lease ends', async () => {
    const name = 'waiter-dies';
    const holder = await f.keptLease(3000);
    await f.leader.acquire(name, holder.leaseId);
    const { leaseId } = await f.leader.grant(3000);
    const waiting = statusOf(f.follower.acquire(name, leaseId, { wait: true, timeoutMs: 10_000 }));
    await waitFor('queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 1 ? true : undefined));
    await f.leader.revoke(leaseId);
    const err = await waiting;
    expect(err.code).to.equal(grpc.status.NOT_FOUND);
    expect((await f.leader.inspect(name)).waitingLeaseIds).to.deep.equal([]);
  });

  it('takes a cancelled waiting Acquire out of the queue after the grace period', async () => {
    const name = 'cancelled-wait';
    const holder = await f.keptLease(3000);
    const w = await f.keptLease(3000);
    const held = await f.leader.acquire(name, holder.leaseId);
    const call = f.leader.acquireCancellable(name, w.leaseId, { timeoutMs: 20_000 });
    await waitFor('queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 1 ? true : undefined));
    call.cancel();
    expect((await statusOf(call.result)).code).to.equal(grpc.status.CANCELLED);
    await waitFor('queue emptied', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 0 ? true : undefined), 5000);
    await f.leader.release(name, held.fencingToken);
    expect(await f.leader.inspect(name)).to.include({ held: false });
  });

  it('streams a lock’s events to Observe on a follower, in log order', async () => {
    const name = 'observed';
    const obs = await f.follower.observe(name);
    const a = await f.keptLease(3000);
    const b = await f.keptLease(3000);
    const ra = await f.leader.acquire(name, a.leaseId);
    const waiting = f.leader.acquire(name, b.leaseId, { wait: true, timeoutMs: 10_000 });
    await waitFor('queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.length === 1 ? true : undefined));
    await f.leader.release(name, ra.fencingToken);
    const rb = await waiting;
    await waitFor('4 events', () => (obs.events.length >= 4 ? true : undefined), 5000);
    expect(obs.events.map((e) => [e.type, e.leaseId, e.fencingToken])).to.deep.equal([
      ['ACQUIRED', a.leaseId, ra.fencingToken],
      ['QUEUED', b.leaseId, 0],
      ['RELEASED', a.leaseId, ra.fencingToken],
      ['ACQUIRED', b.leaseId, rb.fencingToken],
    ]);
    expect(obs.events.every((e) => e.name === name)).to.equal(true);
    // The release and the next grant are one entry; indexes never go back.
    expect(obs.events[2].index).to.equal(obs.events[3].index);
    expect(obs.events[3].index).to.equal(tokenIndex(rb.fencingToken));
    for (let k = 1; k < obs.events.length; k++) expect(obs.events[k].index).to.be.at.least(obs.events[k - 1].index);
    obs.cancel();
  });

  it('fences writes: a stale token is FAILED_PRECONDITION naming the highest token; unknown keys read empty', async () => {
    const empty = await f.follower.fenceRead('never-written');
    expect(empty.value.length).to.equal(0);
    expect(empty.fencingToken).to.equal(0);

    const a = await f.keptLease(3000);
    const b = await f.keptLease(3000);
    const ta = await f.leader.acquire('fenced', a.leaseId);
    await f.leader.fenceWrite('fenced-key', 'from a', ta.fencingToken);
    await f.leader.release('fenced', ta.fencingToken);
    const tb = await f.leader.acquire('fenced', b.leaseId);
    await f.leader.fenceWrite('fenced-key', 'from b', tb.fencingToken);
    const err = await statusOf(f.follower.fenceWrite('fenced-key', 'stale a', ta.fencingToken));
    expect(err.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(err.details).to.contain(String(tb.fencingToken));
    expect(err.metadata.get('lockd-highest-token')).to.deep.equal([String(tb.fencingToken)]);
    const read = await f.leader.fenceRead('fenced-key');
    expect(read.value.toString()).to.equal('from b');
    expect(read.fencingToken).to.equal(tb.fencingToken);
  });
});
