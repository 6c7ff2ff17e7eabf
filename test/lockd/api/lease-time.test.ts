// Lease time through the public API.
// Remaining time (server half): remaining_ms right after a Grant shows the deadline margin (tick cap +
// 1,000 ppm of the TTL).
// Keepalive floods: a flood of keepalives must not freeze the lease clock. Before the fix, renewals for
// leases that were never granted were queued for the next Tick like any other; a Tick listing more than
// the state machine accepts was refused, and re-queued with everything that arrived since, forever:
// nothing expired again. The flood here arrives while the leader cannot commit (both followers paused,
// short of an election timeout), so it is all in the leader's hands at once when the quorum is back.
// Without a quorum the leader may answer "gone" only what its committed log proves gone: an id beyond
// its applied index may be a lease a newer leader granted (lease-clock.ts; lease-clock-deposed.test.ts).
import { expect } from 'chai';
import { ProcessCluster, waitFor } from '../../support/process-cluster.js';
import { LockApi, statusOf } from '../../support/lock-api-client.js';
import { RawKeepAlive } from '../../support/raw-keepalive.js';

const FLOOD = 150_000; // distinct never-granted lease ids: more than one Tick could ever carry
const UNKNOWN = 1_000_000_000;

describe('lock API: lease time (the deadline margin; the clock under a keepalive flood)', function () {
  this.timeout(90_000);
  let cluster: ProcessCluster;
  let leader: LockApi;
  let leaderId: string;
  let raw: RawKeepAlive | undefined;
  let followers: string[] = [];

  before(async () => {
    // A 6 s election timeout (300 ticks of 20 ms), so the leader keeps leading while its followers
    // are paused for a few seconds.
    cluster = await ProcessCluster.start({ size: 3, extraArgs: ['--election-ticks', '300'] });
    leaderId = await cluster.waitForLeader(undefined, 30_000);
    leader = new LockApi(cluster.node(leaderId).address);
    followers = cluster.nodes.filter((n) => n.id !== leaderId).map((n) => n.id);
  });
  after(async () => {
    for (const id of followers) if (cluster?.isRunning(id)) cluster.signal(id, 'SIGCONT');
    raw?.close();
    leader?.close();
    await cluster?.stop();
  });

  it('gives a 1 h lease a deadline of ttl + 200 ms + 1,000 ppm of the ttl (remaining_ms right after the Grant)', async () => {
    const { leaseId } = await leader.grant(3_600_000);
    const { remainingMs, grantedTtlMs } = await leader.timeToLive(leaseId);
    expect(grantedTtlMs).to.equal(3_600_000);
    // Lease-clock Ticks may have counted a little time between the Grant and the read, never more than that.
    expect(remainingMs).to.be.within(3_603_800 - 2000, 3_603_800);
    expect(remainingMs).to.be.greaterThan(3_600_000 + 200 + 1000); // the old 200 ms margin alone could not reach this
    await leader.revoke(leaseId);
  });

  it('answers never-granted leases ttl 0 without a Tick (beyond the applied log only once its leadership is confirmed), keeps renewing the live one, and still expires the lease nobody keeps alive on time', async () => {
    const kept = (await leader.grant(5000)).leaseId;
    const idle = (await leader.grant(1000)).leaseId; // never renewed: deadline 1000 + margin after its Grant
    const ended = (await leader.grant(1000)).leaseId;
    await leader.revoke(ended); // at or below the applied index: the committed log says it is gone
    raw = new RawKeepAlive(cluster.node(leaderId).address);
    raw.send([kept]);
    await waitFor('the stream to answer', () => (raw!.answers.length > 0 ? true : undefined), 10_000);

    for (const id of followers) cluster.signal(id, 'SIGSTOP');
    raw.send([ended]);
    // Without a quorum nothing commits, so this answer came from the committed log alone.
    await waitFor(
      'the ended lease answered ttl 0 without a quorum',
      () => (raw!.answers.some(([id, ttl]) => id === ended && ttl === 0) ? true : undefined),
      4000,
      20,
    );
    const ids: number[] = [];
    for (let i = 0; i < FLOOD; i++) ids.push(i % 1000 === 0 ? kept : UNKNOWN + i); // the live lease 150 times among them
    raw.send(ids);
    // Ids beyond the applied log may have been granted by a leader this node has not heard of: it must
    // not call them gone until a ReadIndex shows it still leads, which needs the quorum.
    const unknownAnswered = () => raw!.answers.filter(([id]) => id >= UNKNOWN);
    const answeredEarly = await waitFor('an unknown lease answered without a quorum', () => (unknownAnswered().length > 0 ? true : undefined), 1500, 20).catch(
      () => false,
    );
    const resumedAt = Date.now();
    for (const id of followers) cluster.signal(id, 'SIGCONT');

    // The clock goes on: the idle lease, whose logical time stood still during the pause, expires within
    // its TTL + margin of the resume (plus the slack of a loaded machine), and the kept one lives.
    const goneAfter = await waitFor(
      'the idle lease to expire',
      async () => ((await statusOf(leader.timeToLive(idle))).code === 5 ? Date.now() - resumedAt : undefined),
      10_000,
      50,
    );
    expect(goneAfter).to.be.below(1201 + 3000);
    expect((await leader.timeToLive(kept)).grantedTtlMs).to.equal(5000);
    await waitFor(
      'the live lease’s renewals answered',
      () => (raw!.answers.filter(([id, ttl]) => id === kept && ttl === 5000).length >= 2 ? true : undefined),
      10_000,
    );
    await waitFor('every unknown lease answered once the quorum is back', () => (unknownAnswered().length === FLOOD - 150 ? true : undefined), 20_000, 20);

    expect(answeredEarly, 'unknown leases answered before the quorum was back').to.equal(false);
    expect(unknownAnswered().every(([, ttl]) => ttl === 0)).to.equal(true);
    expect(raw.answers.filter(([id, ttl]) => id === kept && ttl === 0)).to.deep.equal([]);
    expect(cluster.log(leaderId)).not.to.contain('tick refused');
  });
});
