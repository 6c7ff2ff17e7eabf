// The observation layer on a real 3-node cluster: /metrics scraped across a leader kill,
// /livez and /readyz, grpc.health.v1 answers that follow readiness, /events carrying a grant
// with its fencing token after the state snapshot it opens with, /state, /cluster and the
// dashboard's files. The tests share one cluster and run in order (the last ones kill nodes).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from '../api/api-fixture.js';
import { freePort } from '../../support/process-cluster.js';
import { statusOf } from '../../support/lock-api-client.js';
import { getText, HealthCheck, metric, scrape, SseReader } from '../../support/observe-client.js';
import type { StateSnapshot } from '../../../src/lockd/observe/state-snapshot.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';

const TTL_MS = 10_000;

describe('observe: metrics, health and events on --http-listen', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const httpPort = new Map<string, number>();
  const base = (id: string) => `http://127.0.0.1:${httpPort.get(id)}`;
  const health = new Map<string, HealthCheck>();
  const healthOf = (id: string) => {
    let h = health.get(id);
    if (!h) health.set(id, (h = new HealthCheck(f.cluster.node(id).address)));
    return h;
  };
  const readers: SseReader[] = [];

  before(async () => {
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    f = await ApiFixture.start({ nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }) });
  });
  afterEach(() => f.stopKeepers());
  after(async () => {
    for (const r of readers) r.close();
    for (const h of health.values()) h.close();
    await f?.stop();
  });

  it('/livez and /readyz answer 200 on every node of a cluster with a leader; other paths and methods are refused', async () => {
    for (const id of ['n1', 'n2', 'n3']) {
      expect(await getText(`${base(id)}/livez`)).to.include({ status: 200 });
      const ready = await waitFor(`${id} ready`, async () => {
        const r = await getText(`${base(id)}/readyz`);
        return r.status === 200 ? r : undefined;
      });
      expect(ready.body).to.contain(`leader ${f.leaderId}`);
    }
    expect((await getText(`${base('n1')}/nope`)).status).to.equal(404);
    expect((await getText(`${base('n1')}/metrics`, { method: 'POST', body: 'x' })).status).to.equal(405);
  });

  it('grpc.health.v1 on the client port: "" and the lockd services SERVING, an unknown service NOT_FOUND; not on the peer port', async () => {
    for (const id of ['n1', 'n2', 'n3']) {
      await waitFor(`${id} SERVING`, async () => ((await healthOf(id).check('')) === 'SERVING' ? true : undefined));
      expect(await healthOf(id).check('lockd.v1.Lock')).to.equal('SERVING');
      expect(await healthOf(id).check('lockd.v1.Lease')).to.equal('SERVING');
      expect(await healthOf(id).check('lockd.v1.Election')).to.equal('SERVING');
    }
    expect((await statusOf(healthOf('n1').check('no.such.Service'))).code).to.equal(grpc.status.NOT_FOUND);
    // The peer port serves peers only.
    const peer = new HealthCheck(f.cluster.node('n1').peerAddress);
    try {
      expect((await statusOf(peer.check(''))).code).to.equal(grpc.status.UNIMPLEMENTED);
    } finally {
      peer.close();
    }
  });

  it("/events streams a follower's decisions: the grant with its token, the lease, the stale release", async () => {
    const follower = f.cluster.nodes.find((n) => n.id !== f.leaderId)!.id;
    const sse = new SseReader(`${base(follower)}/events`);
    readers.push(sse);
    await sse.opened;
    expect(sse.status).to.equal(200);
    const a = await f.keptLease(TTL_MS);
    const { fencingToken } = await f.leader.acquire('ev-lock', a.leaseId);
    expect((await f.leader.release('ev-lock', fencingToken - 1)).released).to.equal(false);
    const grant = await waitFor('a lock-granted event', () => {
      const e = sse.events.find((x) => x.event === 'lock-granted');
      return e ? (JSON.parse(e.data) as Record<string, unknown>) : undefined;
    });
    expect(grant).to.include({
      type: 'lock-granted',
      node: follower,
      name: 'ev-lock',
      leaseId: a.leaseId,
      token: fencingToken,
      index: tokenIndex(fencingToken),
      handoff: false,
    });
    expect(Number(sse.events.find((x) => x.event === 'lock-granted')!.id)).to.equal(grant.seq);
    const lease = JSON.parse(sse.events.find((x) => x.event === 'lease-granted')!.data) as Record<string, unknown>;
    expect(lease).to.include({ leaseId: a.leaseId, ttlMs: TTL_MS });
    const release = await waitFor('a release event', () => {
      const e = sse.events.find((x) => x.event === 'release');
      return e ? (JSON.parse(e.data) as Record<string, unknown>) : undefined;
    });
    expect(release).to.include({ name: 'ev-lock', token: fencingToken - 1, ok: false });
    // Every event carries its node's term; seq has no gap (nothing was lost).
    const seqs = sse.events.filter((e) => e.id).map((e) => Number(e.id));
    expect(seqs).to.deep.equal(seqs.map((_, k) => seqs[0] + k));
    expect(sse.events.some((e) => e.event === 'lost')).to.equal(false);
    await f.leader.release('ev-lock', fencingToken);
  });

  it('/events opens with a state snapshot the events continue (seq), with deadlines, token, queue and highest fenced token; /state, /cluster, CORS for members only, the dashboard files and nothing else', async () => {
    const a = await f.keptLease(TTL_MS);
    const b = await f.keptLease(TTL_MS);
    const { fencingToken } = await f.leader.acquire('snap-lock', a.leaseId);
    const waiting = f.leader.acquireCancellable('snap-lock', b.leaseId);
    waiting.result.catch(() => undefined);
    await f.leader.fenceWrite('snap/key', 'v', fencingToken);
    const follower = f.cluster.nodes.find((n) => n.id !== f.leaderId)!.id;
    // The follower learns the fenced write's commit a heartbeat after the wait's: wait for both.
    await waitFor(`${follower} to apply the queued wait and the fenced write`, async () => {
      const st = JSON.parse((await getText(`${base(follower)}/state`)).body) as StateSnapshot;
      const queued = st.machine.locks.rows.find((l) => l.name === 'snap-lock')?.queue.length === 1;
      return queued && st.machine.fence.rows.some((k) => k.key === 'snap/key') ? true : undefined;
    });
    const sse = new SseReader(`${base(follower)}/events`);
    readers.push(sse);
    const first = await waitFor('the state event', () => sse.events[0]);
    expect(first.event).to.equal('state');
    expect(first.id).to.equal(undefined);
    const snap = JSON.parse(first.data) as StateSnapshot;
    expect(snap).to.include({ type: 'state', node: follower, role: 'follower', leader: f.leaderId });
    expect(snap.applied).to.be.at.least(tokenIndex(fencingToken) + 2); // the acquire's entry, then the wait and the fenced write
    const lease = snap.machine.leases.rows.find((l) => l.leaseId === a.leaseId)!;
    expect(lease.ttlMs).to.equal(TTL_MS);
    expect(lease.deadline).to.be.greaterThan(snap.machine.now);
    expect(snap.machine.locks.rows.find((l) => l.name === 'snap-lock')).to.deep.equal({
      name: 'snap-lock',
      permits: 1,
      election: false,
      delayUntil: 0,
      holders: [{ leaseId: a.leaseId, token: fencingToken, shared: false, value: '' }],
      queue: [b.leaseId],
      queueLength: 1,
    });
    expect(snap.machine.fence.rows.find((k) => k.key === 'snap/key')).to.deep.equal({ key: 'snap/key', token: fencingToken, deleted: false });
    // The next event is seq + 1: nothing falls between the snapshot and the stream.
    await f.leader.release('snap-lock', fencingToken); // hands it to b
    const next = await waitFor('an event after the snapshot', () => sse.events.find((e) => e.id));
    expect(Number(next.id)).to.equal(snap.seq + 1);
    waiting.cancel();
    // /cluster: every member and its advertised HTTP address (learned from the peer streams).
    const cluster = await waitFor('every HTTP address known', async () => {
      const c = JSON.parse((await getText(`${base(follower)}/cluster`)).body) as { self: string; members: Array<{ id: string; http: string }> };
      return c.members.every((m) => m.http !== '') ? c : undefined;
    });
    expect(cluster.self).to.equal(follower);
    expect(cluster.members).to.deep.equal(['n1', 'n2', 'n3'].map((id) => ({ id, http: `127.0.0.1:${httpPort.get(id)}` })));
    // CORS: a page from another member may read; any other origin gets no CORS grant.
    const member = await fetch(`${base(follower)}/cluster`, { headers: { origin: base(f.leaderId) } });
    expect(member.headers.get('access-control-allow-origin')).to.equal(base(f.leaderId));
    const stranger = await fetch(`${base(follower)}/cluster`, { headers: { origin: 'http://evil.example:80' } });
    expect(stranger.headers.get('access-control-allow-origin')).to.equal(null);
    // The dashboard: its files with a strict CSP, nothing outside them.
    const page = await fetch(`${base(follower)}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.contain("script-src 'self'");
    expect(await page.text()).to.contain('<script type="module" src="main.js"></script>');
    expect((await getText(`${base(follower)}/main.js`)).type).to.equal('text/javascript; charset=utf-8');
    for (const path of ['/package.json', '/..%2Fpackage.json', '/%2e%2e/src/lockd/main.ts', '/index.html/', '/.hidden.js'])
      expect((await getText(`${base(follower)}${path}`)).status, path).to.equal(404);
  });

  it('/metrics counts grants and stale fenced writes, and carries the Raft, disk and process metrics', async () => {
    const leader = f.leaderId;
    const before = await scrape(base(leader));
    const grants0 = metric(before, 'lockd_lock_grants_total', { kind: 'acquire' })!;
    const stale0 = metric(before, 'lockd_fence_rejected_total', { reason: 'stale' })!;
    expect(grants0).to.be.a('number');
    expect(stale0).to.be.a('number');
    const a = await f.keptLease(TTL_MS);
    const t1 = (await f.leader.acquire('m-lock', a.leaseId)).fencingToken;
    await f.leader.fenceWrite('m/key', 'one', t1);
    await f.leader.release('m-lock', t1);
    const t2 = (await f.leader.acquire('m-lock', a.leaseId)).fencingToken;
    await f.leader.fenceWrite('m/key', 'two', t2);
    const refused = await statusOf(f.leader.fenceWrite('m/key', 'late', t1));
    expect(refused.code).to.equal(grpc.status.FAILED_PRECONDITION);
    // Every node applies the same entries, so every node counts them.
    for (const id of ['n1', 'n2', 'n3']) {
      const text = await waitFor(`${id} counted the grants and the stale write`, async () => {
        const t = await scrape(base(id));
        return metric(t, 'lockd_fence_rejected_total', { reason: 'stale' }) === stale0 + 1 ? t : undefined;
      });
      expect(metric(text, 'lockd_lock_grants_total', { kind: 'acquire' })).to.equal(grants0 + 2);
      expect(metric(text, 'lockd_raft_applied_index')).to.be.at.least(tokenIndex(t2) + 1); // t2's entry, then the fenced writes
      expect(metric(text, 'lockd_raft_commit_index')).to.be.at.least(tokenIndex(t2) + 1);
      expect(metric(text, 'lockd_raft_proposals_committed_total')).to.be.greaterThan(0);
      expect(metric(text, 'lockd_lease_active')).to.be.at.least(1);
      expect(metric(text, 'lockd_lock_waiters')).to.equal(0);
      expect(metric(text, 'lockd_disk_sync_duration_seconds_count')).to.be.greaterThan(0);
      expect(metric(text, 'lockd_raft_is_leader', { node: id })).to.equal(id === leader ? 1 : 0);
      expect(metric(text, 'process_cpu_user_seconds_total')).to.be.a('number');
      expect(metric(text, 'nodejs_eventloop_lag_seconds')).to.be.a('number');
    }
    expect((await getText(`${base(leader)}/metrics`)).type).to.contain('text/plain; version=0.0.4');
    // The leader's log line of the refusal is read from the same stream, with the numbers.
    await waitFor("the refusal in the leader's log", () => (f.cluster.log(leader).includes(`fenced write of m/key refused: ${t1} < ${t2}`) ? true : undefined));
    await f.leader.release('m-lock', t2);
  });

  it('replication counters: an acquire moves App/AppResp sent and received, Ready batches and synced LevelDB writes with entries on every node', async () => {
    const leader = f.leaderId;
    const ids = ['n1', 'n2', 'n3'];
    const followers = ids.filter((id) => id !== leader);
    const names = [
      'lockd_raft_app_entries_sent_total',
      'lockd_raft_ready_batches_total',
      'lockd_raft_ready_entries_total',
      'lockd_disk_synced_writes_total',
      'lockd_disk_synced_entries_total',
    ];
    const read = (text: string): Record<string, number> => ({
      appSent: metric(text, 'lockd_raft_messages_sent_total', { type: 'App' })!,
      appReceived: metric(text, 'lockd_raft_messages_received_total', { type: 'App' })!,
      respSent: metric(text, 'lockd_raft_messages_sent_total', { type: 'AppResp' })!,
      respReceived: metric(text, 'lockd_raft_messages_received_total', { type: 'AppResp' })!,
      ...Object.fromEntries(names.map((n) => [n, metric(text, n)!])),
    });
    const before = new Map(await Promise.all(ids.map(async (id) => [id, read(await scrape(base(id)))] as const)));
    for (const v of before.values()) for (const x of Object.values(v)) expect(x).to.be.a('number');
    const a = await f.keptLease(TTL_MS);
    const t = (await f.leader.acquire('c-lock', a.leaseId)).fencingToken;
    await f.leader.release('c-lock', t);
    // The grant, acquire and release are three entries: each is appended (synced) on every node.
    for (const id of ids) {
      await waitFor(`${id} counted the replication of the acquire`, async () => {
        const now = read(await scrape(base(id)));
        const was = before.get(id)!;
        const d = (k: string) => now[k] - was[k];
        const moved =
          d('lockd_raft_ready_batches_total') >= 1 &&
          d('lockd_raft_ready_entries_total') >= 3 &&
          d('lockd_disk_synced_writes_total') >= 1 &&
          d('lockd_disk_synced_entries_total') >= 3 &&
          (id === leader
            ? d('appSent') >= followers.length && d('lockd_raft_app_entries_sent_total') >= 3 * followers.length && d('respReceived') >= followers.length
            : d('appReceived') >= 1 && d('respSent') >= 1);
        return moved ? true : undefined;
      });
    }
  });

  it('across a leader kill: the term grows, is_leader moves, leader_changes_total counts the new leader', async () => {
    const old = f.leaderId;
    const survivors = ['n1', 'n2', 'n3'].filter((id) => id !== old);
    const before = new Map<string, string>();
    for (const id of survivors) before.set(id, await scrape(base(id)));
    const term0 = metric(before.get(survivors[0])!, 'lockd_raft_term')!;
    await f.cluster.kill(old);
    const leader = await f.cluster.waitForLeader(survivors);
    for (const id of survivors) {
      const was = before.get(id)!;
      const text = await waitFor(`${id}'s metrics show leader ${leader}`, async () => {
        const t = await scrape(base(id));
        return metric(t, 'lockd_raft_leader_changes_total')! > metric(was, 'lockd_raft_leader_changes_total')! ? t : undefined;
      });
      expect(metric(text, 'lockd_raft_term')).to.be.greaterThan(term0);
      expect(metric(text, 'lockd_raft_is_leader')).to.equal(id === leader ? 1 : 0);
    }
    f.leaderId = leader;
  });

  it('a node that knows no leader answers /readyz 503 and NOT_SERVING (still live), and turns ready again when one is elected', async () => {
    const alone = ['n1', 'n2', 'n3'].find((id) => f.cluster.isRunning(id) && id !== f.leaderId)!;
    const killed = f.leaderId;
    await waitFor(`${alone} SERVING first`, async () => ((await healthOf(alone).check('')) === 'SERVING' ? true : undefined));
    await f.cluster.kill(killed); // the majority is gone: no leader can be elected
    const unready = await waitFor(`${alone} /readyz 503`, async () => {
      const r = await getText(`${base(alone)}/readyz`);
      return r.status === 503 ? r : undefined;
    });
    expect(unready.body).to.contain('no leader known');
    expect((await getText(`${base(alone)}/livez`)).status).to.equal(200);
    await waitFor(`${alone} NOT_SERVING`, async () => ((await healthOf(alone).check('lockd.v1.Lock')) === 'NOT_SERVING' ? true : undefined));
    f.cluster.startNode(killed);
    f.leaderId = await f.cluster.waitForLeader([alone, killed]);
    await waitFor(`${alone} /readyz 200 again`, async () => ((await getText(`${base(alone)}/readyz`)).status === 200 ? true : undefined));
    await waitFor(`${alone} SERVING again`, async () => ((await healthOf(alone).check('')) === 'SERVING' ? true : undefined));
  });
});
