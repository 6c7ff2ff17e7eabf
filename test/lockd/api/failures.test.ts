// The lock API when things break: a holder killed or paused, the leader killed, the quorum lost.
// Holders that must be killed or paused run as child processes (test/support/lock-holder.ts).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from './api-fixture.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';
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
    f = await ApiFixture.start({ rawCalls: true }); // failures: the tests check what calls answer during them
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
    // The holder's keepalives work: it keeps the lock well past its TTL (watched all along).
    const since = Date.now();
    await waitFor(
      'the lock held by the holder for 2 TTLs',
      async () => {
        expect(await f.leader.inspect('kill9')).to.include({ held: true, fencingToken: token, holderLeaseId: got.leaseId });
        return Date.now() - since > 2 * TTL_MS ? true : undefined;
      },
      10_000,
    );

    h.signal('SIGKILL');
    const killedAt = Date.now();
    // The last renewal it reported: the lease was renewed from a send at least this late.
    const renewals = h.reports.filter((x) => x.event === 'renewed').map((x) => x.sentAt as number);
    expect(renewals.length).to.be.greaterThan(0);
    const lastRenewalSent = Math.max(...renewals);
    const r = await waiting;
    const grantedAt = Date.now();
    expect(r).to.include({ acquired: true, holderLeaseId: waiter.leaseId });
    expect(r.fencingToken).to.be.greaterThan(token);
    // Never before a full TTL after the last renewal it was given (the cluster counts from when it
    // got the request, which is later); no later than TTL + the clock margin + a tick or two after the kill.
    expect(grantedAt - lastRenewalSent).to.be.at.least(TTL_MS);
    expect(grantedAt - killedAt).to.be.at.most(TTL_MS + 1500);
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
    await f.cluster.waitForApplied(tokenIndex(r.fencingToken), [watcherId]);
    const obs = await f.api(watcherId).observe('failover');

    await f.cluster.kill(oldLeader);
    try {
      const newLeader = await f.refreshLeader();
      expect(newLeader).to.not.equal(oldLeader);
      // Several TTLs of renewals under the new leader, the client keeping its lease alive through the survivors.
      const since = Date.now();
      const acks = lease.acks;
      await waitFor(
        '3 TTLs of renewals under the new leader',
        () => {
          expect(lease.lost).to.equal(false);
          return Date.now() - since > 3 * TTL_MS && lease.acks >= acks + 6 ? true : undefined;
        },
        15_000,
      );
      expect(await f.leader.inspect('failover')).to.include({ held: true, fencingToken: r.fencingToken, holderLeaseId: lease.leaseId });
      expect((await f.leader.timeToLive(lease.leaseId)).remainingMs).to.be.greaterThan(0);
      // Nothing happened to the lock meanwhile — and the stream is alive: the release is the first event it brings.
      await f.leader.release('failover', r.fencingToken);
      await waitFor('RELEASED observed', () => (obs.events.length > 0 ? true : undefined), 5000);
      expect(obs.error).to.equal(undefined);
      expect(obs.events.map((e) => [e.type, e.fencingToken])).to.deep.equal([['RELEASED', r.fencingToken]]);
      obs.cancel();
    } finally {
      // Leave the world as found: three nodes, one leader.
      f.cluster.startNode(oldLeader);
      await f.refreshLeader();
      await f.cluster.waitForApplied(tokenIndex(r.fencingToken));
    }
  });

  it('fails calls UNAVAILABLE within their deadline once the quorum is lost', async () => {
    // A world of its own: two of its three nodes are killed.
    const own = await ApiFixture.start({ rawCalls: true });
    try {
      const [survivor, ...victims] = [own.leaderId, ...own.cluster.nodes.map((n) => n.id).filter((id) => id !== own.leaderId)];
      for (const v of victims) await own.cluster.kill(v);
      const api = own.api(survivor);
      for (const [what, call] of [
        ['Grant', () => api.grant(1000, { timeoutMs: 2000 })],
        ['Acquire (waiting)', () => api.acquire('q', 1, { wait: true, timeoutMs: 2000 })],
        ['Inspect', () => api.inspect('q', { timeoutMs: 2000 })],
        ['Fence.Write', () => api.fenceWrite('q', 'v', 1, { timeoutMs: 2000 })],
      ] as const) {
        const t0 = Date.now();
        const err = await statusOf(call());
        expect(err.code, `${what}: ${err.details}`).to.equal(grpc.status.UNAVAILABLE);
        expect(Date.now() - t0, what).to.be.lessThan(2000);
      }
    } finally {
      await own.stop();
    }
  });
});
