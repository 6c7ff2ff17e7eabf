// The lock API when things break: a holder killed or paused, the leader killed, the quorum lost.
// Holders that must be killed or paused run as child processes (test/support/lock-holder.ts).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from './api-fixture.js';
import { statusOf } from '../../support/lock-api-client.js';
import { ScriptProcess } from '../../support/script-process.js';

const TTL_MS = 800;

describe('lock API under failures', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const scripts: ScriptProcess[] = [];

  const holder = (name: string, key: string) => {
    const endpoints = f.cluster.nodes.map((n) => n.address).join(',');
    const s = new ScriptProcess('lock-holder.ts', ['--endpoints', endpoints, '--name', name, '--ttl-ms', String(TTL_MS), '--key', key]);
    scripts.push(s);
    return s;
  };

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(async () => {
    f.stopKeepers();
    await Promise.all(scripts.splice(0).map((s) => s.stop()));
  });
  after(async () => {
    await f?.stop();
  });

  it('expires the lease of a holder killed with -9 after about its TTL and grants the next waiter a higher token', async () => {
    const h = holder('kill9', 'kill9-key');
    const got = await h.waitFor((r) => r.event === 'acquired', 15_000, 'the holder to acquire');
    const token = got.token as number;
    const waiter = await f.keptLease(3000);
    const waiting = f.follower.acquire('kill9', waiter.leaseId, { wait: true, timeoutMs: 15_000 });
    await waitFor('queued', async () => ((await f.leader.inspect('kill9')).waitingLeaseIds.length === 1 ? true : undefined));
    // The holder's keepalives work: it keeps the lock well past its TTL.
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    expect(await f.leader.inspect('kill9')).to.include({ held: true, fencingToken: token, holderLeaseId: got.leaseId });

    const killedAt = Date.now();
    h.signal('SIGKILL');
    const r = await waiting;
    const after = Date.now() - killedAt;
    expect(r).to.include({ acquired: true, holderLeaseId: waiter.leaseId });
    expect(r.fencingToken).to.be.greaterThan(token);
    // Its last keepalive went out at most TTL/3 before the kill: expiry is no sooner than ~2/3 TTL
    // after it, and no later than TTL + the clock margin + a tick or two.
    expect(after).to.be.within((2 * TTL_MS) / 3 - 50, TTL_MS + 1500);
  });

  it('refuses the fenced write of a holder paused past its TTL once it resumes, and tells it the lease is gone', async () => {
    const h = holder('paused', 'paused-key');
    const got = await h.waitFor((r) => r.event === 'acquired', 15_000, 'the holder to acquire');
    const token = got.token as number;
    h.send('write before-pause');
    expect(await h.waitFor((r) => r.event === 'write', 5000, 'the first write')).to.include({ ok: true });

    h.signal('SIGSTOP');
    const other = await f.keptLease(3000);
    const r = await f.follower.acquire('paused', other.leaseId, { wait: true, timeoutMs: 15_000 });
    expect(r.fencingToken).to.be.greaterThan(token);
    await f.follower.fenceWrite('paused-key', 'from the new holder', r.fencingToken);

    h.signal('SIGCONT');
    h.send('write stale');
    const stale = await h.waitFor((x) => x.event === 'write' && x !== h.reports.find((y) => y.event === 'write'), 5000, 'the stale write');
    expect(stale).to.include({ ok: false, code: grpc.status.FAILED_PRECONDITION });
    expect(stale.details).to.contain(String(r.fencingToken));
    await h.waitFor((x) => x.event === 'lost', 5000, 'the holder to hear its lease is gone');
    const read = await f.leader.fenceRead('paused-key');
    expect(read.value.toString()).to.equal('from the new holder');
    expect(read.fencingToken).to.equal(r.fencingToken);
  });

  it('keeps a lock held by the same token when the leader is killed (the lease is not expired early)', async () => {
    const lease = await f.keptLease(TTL_MS);
    const r = await f.leader.acquire('failover', lease.leaseId);
    const oldLeader = f.leaderId;
    const watcherId = f.cluster.nodes.find((n) => n.id !== oldLeader)!.id;
    // Watch from a node that will survive, once it has applied the grant (followers lag a little).
    await f.cluster.waitForApplied(r.fencingToken, [watcherId]);
    const obs = await f.api(watcherId).observe('failover');

    await f.cluster.kill(oldLeader);
    const newLeader = await f.refreshLeader();
    expect(newLeader).to.not.equal(oldLeader);
    // Several TTLs under the new leader, the client keeping its lease alive through the survivors.
    await new Promise((res) => setTimeout(res, 3 * TTL_MS));
    expect(lease.lost).to.equal(false);
    expect(await f.leader.inspect('failover')).to.include({ held: true, fencingToken: r.fencingToken, holderLeaseId: lease.leaseId });
    expect((await f.leader.timeToLive(lease.leaseId)).remainingMs).to.be.greaterThan(0);
    expect(obs.events.map((e) => e.type)).to.deep.equal([]);
    obs.cancel();
  });

  it('fails calls UNAVAILABLE within their deadline once the quorum is lost', async () => {
    const [survivor, victim] = f.cluster.nodes.filter((n) => f.cluster.isRunning(n.id)).map((n) => n.id);
    await f.cluster.kill(victim);
    const api = f.api(survivor);
    for (const [what, call] of [
      ['Grant', () => api.grant(1000, { timeoutMs: 2000 })],
      ['Acquire (waiting)', () => api.acquire('q', 1, { wait: true, timeoutMs: 2000 })],
      ['Inspect', () => api.inspect('failover', { timeoutMs: 2000 })],
      ['Fence.Write', () => api.fenceWrite('q', 'v', 1, { timeoutMs: 2000 })],
    ] as const) {
      const t0 = Date.now();
      const err = await statusOf(call());
      expect(err.code, `${what}: ${err.details}`).to.equal(grpc.status.UNAVAILABLE);
      expect(Date.now() - t0, what).to.be.lessThan(2000);
    }
  });
});
