// Leader transfer and graceful shutdown on real processes (3 nodes, 127.0.0.1, real LevelDB and
// gRPC): Cluster.TransferLeader to a named voter and to the server's pick, its refusals, a lock held
// across transfers (same token, the lease never lapses — by the client's own keepalives and by
// TimeToLive), lockctl leader transfer, and SIGTERM on the leader (hands over first) and on a
// follower (just stops).
//
// Timing of the test cluster (process-cluster.ts): tick 20 ms, heartbeat 2 ticks (40 ms), election
// timeout 20 ticks (400 ms, randomized up to 800 ms). A new leader "without waiting for an election
// timeout" is one known in less than the 400 ms a follower waits before it even pre-votes.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { LockClient } from '../../src/client/index.js';
import { LOCKCTL_MAIN } from '../support/build.js';
import { LeaderGapMonitor } from '../support/leader-gap.js';
import { statusOf } from '../support/lock-api-client.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { killNow, reapOnExit } from '../support/reaper.js';

const ELECTION_TIMEOUT_MS = 20 * 20;
const TRANSFER_BOUND_MS = 2 * ELECTION_TIMEOUT_MS; // node/leader-transfer.ts transferBoundMs

function codeOf(e: unknown): string {
  return grpc.status[(e as grpc.ServiceError).code] ?? String(e);
}

function lockctl(endpoints: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, ...args], {
      env: { ...process.env, LOCKD_ENDPOINTS: endpoints },
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapOnExit(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => killNow(proc, false), 20_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
}

describe('leader transfer and graceful shutdown (real processes)', function () {
  this.timeout(90_000);
  let cluster: ProcessCluster | undefined;
  let client: LockClient | undefined;

  afterEach(async function () {
    client?.close();
    client = undefined;
    await cluster?.stop(this.currentTest?.state === 'failed');
    cluster = undefined;
  });

  const start = async (): Promise<ProcessCluster> => {
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader();
    return cluster;
  };

  it('moves leadership to the named voter, asked of a follower, in less than an election timeout', async () => {
    const c = await start();
    for (let round = 0; round < 3; round++) {
      const leader = await c.waitForLeader();
      const others = c.nodes.map((n) => n.id).filter((id) => id !== leader);
      const [asked, target] = round % 2 === 0 ? [others[0], others[1]] : [others[1], others[0]]; // forwarded by the other follower
      const before = await c.status(leader);
      const t0 = Date.now();
      const r = await c.transferLeader(asked, target);
      const ms = Date.now() - t0;
      expect(r).to.include({ leaderId: target, previousLeaderId: leader, transferred: true });
      expect(r.leaderAddress).to.equal(c.node(target).address);
      expect(r.term).to.be.greaterThan(before.term);
      expect(ms, `transfer answered after ${ms} ms`).to.be.lessThan(ELECTION_TIMEOUT_MS);
      expect(await c.waitForLeader()).to.equal(target);
    }
  });

  it('by default picks a caught-up voter other than the leader', async () => {
    const c = await start();
    const leader = await c.waitForLeader();
    const r = await c.transferLeader(leader);
    expect(r.transferred).to.equal(true);
    expect(r.previousLeaderId).to.equal(leader);
    expect(r.leaderId).to.not.equal(leader);
    expect(c.nodes.map((n) => n.id)).to.include(r.leaderId);
    expect(await c.waitForLeader()).to.equal(r.leaderId);
  });

  it('refuses a target that is no voter or no id, answers OK for the leader itself, and UNAVAILABLE when the target is down', async () => {
    const c = await start();
    const leader = await c.waitForLeader();
    const follower = c.nodes.find((n) => n.id !== leader)!.id;
    const unknown = await statusOf(c.transferLeader(follower, 'n9'));
    expect(codeOf(unknown)).to.equal('NOT_FOUND');
    expect(unknown.details).to.contain('n9').and.contain('n1, n2, n3');
    const bad = await statusOf(c.transferLeader(follower, 'n1;rm -rf'));
    expect(codeOf(bad)).to.equal('INVALID_ARGUMENT');
    const self = await c.transferLeader(follower, leader);
    expect(self).to.include({ leaderId: leader, previousLeaderId: leader, transferred: false });
    expect(await c.waitForLeader()).to.equal(leader);

    // The target is down: the core abandons the transfer after an election timeout; the leader stays and serves.
    const down = c.nodes.find((n) => n.id !== leader && n.id !== follower)!.id;
    await c.kill(down);
    const t0 = Date.now();
    const timedOut = await statusOf(c.transferLeader(leader, down, 10_000));
    const ms = Date.now() - t0;
    expect(codeOf(timedOut)).to.equal('UNAVAILABLE');
    expect(timedOut.details).to.contain(`transfer of leadership to ${down} did not finish`).and.contain(`${leader} still leads`);
    expect(ms).to.be.lessThan(TRANSFER_BOUND_MS + 1000);
    expect(await c.waitForLeader([leader, follower])).to.equal(leader);
    client = new LockClient({ endpoints: [c.node(leader).address] });
    const lease = await client.grantLease(5000);
    expect(lease.id).to.be.greaterThan(0);
    lease.close();

    // The client's deadline running out first is DEADLINE_EXCEEDED, not UNAVAILABLE.
    const short = await statusOf(c.transferLeader(follower, down, 300));
    expect(codeOf(short)).to.equal('DEADLINE_EXCEEDED');
  });

  it('keeps a held lock across transfers: same token, and the lease never lapses', async () => {
    const c = await start();
    client = new LockClient({ endpoints: c.nodes.map((n) => n.address) });
    const ttlMs = 2000;
    const lease = await client.grantLease(ttlMs);
    const lock = await client.acquire('transfer-held', { lease });
    const token = lock.token;
    // The client's own view of its lease, sampled throughout: the time it may still trust it.
    let minRemaining = Infinity;
    const sampler = setInterval(() => (minRemaining = Math.min(minRemaining, lease.remainingMs)), 10);
    let renewals = 0;
    lease.on('renewed', () => renewals++);
    try {
      for (let k = 0; k < 4; k++) {
        const leader = await c.waitForLeader();
        const r = await c.transferLeader(leader);
        expect(r.transferred).to.equal(true);
        await c.waitForLeader();
        const renewedBefore = renewals;
        await waitFor('a keepalive acknowledged by the new leader', () => (renewals > renewedBefore ? true : undefined), ttlMs);
        const ttl = await client.timeToLive(lease.id);
        expect(ttl.locks).to.deep.equal(['transfer-held']);
        expect(ttl.remainingMs).to.be.greaterThan(ttlMs / 2); // renewed at ttl/3: well above half
        const info = await client.inspect('transfer-held');
        expect(info).to.include({ held: true, fencingToken: token, holderLeaseId: lease.id });
      }
    } finally {
      clearInterval(sampler);
    }
    expect(lease.signal.aborted, String(lease.signal.reason)).to.equal(false);
    expect(lock.signal.aborted, String(lock.signal.reason)).to.equal(false);
    expect(lock.token).to.equal(token);
    // Keepalives every ttl/3: the client never came within a third of the TTL of its deadline.
    expect(minRemaining, `least trust left: ${minRemaining} ms`).to.be.greaterThan(ttlMs / 3);
    await lock.release();
  });

  it('lockctl leader transfer [ID] moves leadership and says where it went', async () => {
    const c = await start();
    const endpoints = c.nodes.map((n) => n.address).join(',');
    const leader = await c.waitForLeader();
    const target = c.nodes.find((n) => n.id !== leader)!.id;
    const named = await lockctl(endpoints, 'leader', 'transfer', target);
    expect(named.code, named.stderr).to.equal(0);
    expect(named.stdout).to.contain(`leadership moved from ${leader} to ${target} at ${c.node(target).address}`);
    expect(await c.waitForLeader()).to.equal(target);

    const dflt = await lockctl(endpoints, 'leader', 'transfer', '--json');
    expect(dflt.code, dflt.stderr).to.equal(0);
    const j = JSON.parse(dflt.stdout) as { leaderId: string; previousLeaderId: string; transferred: boolean };
    expect(j).to.include({ previousLeaderId: target, transferred: true });
    expect(j.leaderId).to.not.equal(target);
    expect(await c.waitForLeader()).to.equal(j.leaderId);

    const missing = await lockctl(endpoints, 'leader', 'transfer', 'n9');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('NOT_FOUND');
    const usage = await lockctl(endpoints, 'leader', 'transfer', 'n1', 'n2');
    expect(usage.code).to.equal(2);
  });

  it('SIGTERM on the leader hands leadership over before it stops: no election timeout without a leader', async () => {
    const c = await start();
    const leader = await c.waitForLeader();
    const monitor = new LeaderGapMonitor(c);
    await waitFor('the gap monitor to see the leader', () => (monitor.result.leaderSamples > 3 ? true : undefined));
    const exited = new Promise<number | null>((r) => c.node(leader).proc!.once('exit', (code) => r(code)));
    const t0 = Date.now();
    c.signal(leader, 'SIGTERM');
    const code = await exited;
    const stopMs = Date.now() - t0;
    const rest = c.nodes.map((n) => n.id).filter((id) => id !== leader);
    const next = await c.waitForLeader(rest);
    const gaps = await monitor.stop();
    expect(code).to.equal(0);
    expect(stopMs).to.be.lessThan(TRANSFER_BOUND_MS + 2000);
    expect(await c.exitedLog(leader)).to.contain(`leadership handed to ${next} before stopping`);
    // Polled every 10 ms: a handed-over leadership leaves a gap of one vote round; an election would
    // leave at least the 400 ms election timeout.
    expect(gaps.longestMs, JSON.stringify(gaps)).to.be.lessThan(ELECTION_TIMEOUT_MS / 2);
  });

  it('SIGTERM on a leader whose followers cannot take over stops anyway, after the bounded wait', async () => {
    const c = await start();
    const leader = await c.waitForLeader();
    const followers = c.nodes.map((n) => n.id).filter((id) => id !== leader);
    for (const f of followers) c.signal(f, 'SIGSTOP'); // alive to the kernel, silent to Raft
    const exited = new Promise<number | null>((r) => c.node(leader).proc!.once('exit', (code) => r(code)));
    const t0 = Date.now();
    c.signal(leader, 'SIGTERM');
    const code = await exited;
    const ms = Date.now() - t0;
    for (const f of followers) c.signal(f, 'SIGCONT');
    expect(code).to.equal(0);
    expect(await c.exitedLog(leader)).to.contain('could not hand leadership over before stopping (timed-out); stopping anyway');
    expect(ms, `stopped after ${ms} ms`)
      .to.be.at.least(TRANSFER_BOUND_MS)
      .and.lessThan(TRANSFER_BOUND_MS + 2000);
  });

  it('SIGTERM on a follower stops it cleanly and leaves the leader alone', async () => {
    const c = await start();
    const leader = await c.waitForLeader();
    const before = await c.status(leader);
    const follower = c.nodes.find((n) => n.id !== leader)!.id;
    const exited = new Promise<number | null>((r) => c.node(follower).proc!.once('exit', (code) => r(code)));
    c.signal(follower, 'SIGTERM');
    expect(await exited).to.equal(0);
    expect(await c.exitedLog(follower))
      .to.contain('node stopped')
      .and.not.contain('handed');
    expect(await c.waitForLeader(c.nodes.map((n) => n.id).filter((id) => id !== follower))).to.equal(leader);
    expect((await c.status(leader)).term).to.equal(before.term);
  });
});
