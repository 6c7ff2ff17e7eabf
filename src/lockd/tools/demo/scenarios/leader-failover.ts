// The leader dies while a lock is held. Its lease's deadline is replicated (in the Grant and Tick
// entries), and a new leader continues the logical clock from its election: the time without a
// leader does not count, so a failover can lengthen a lease, never shorten it — and the same grant,
// the same token, still holds.
import { tokenIndex } from '../../../state-machine/token.js';
import { unkeptLease, type Scenario } from '../framework.js';

export const leaderFailover: Scenario = {
  name: 'leader-failover',
  title: 'the leader is killed while a lock is held; the lease is not shortened and the same token still holds',
  async run(d) {
    const lock = `demo/leader-failover/${d.runId}`;
    const c = d.client('C');
    const leaseId = await unkeptLease(c, 8_000);
    await d.entry(leaseId, `lease ${leaseId} granted, ttl 8000 ms, not kept alive: it lives exactly its logical time`);
    const got = await c.acquireRaw(lock, leaseId);
    d.check(got.acquired, `${lock} to be free`, `it is held by lease ${got.holderLeaseId}`);
    await d.entry(tokenIndex(got.fencingToken), `lease ${leaseId} holds ${lock}: fencing token ${got.fencingToken}`);

    const old = await d.leader();
    const t0 = performance.now();
    const before = await c.timeToLive(leaseId);
    d.say(`TimeToLive(${leaseId}) on leader ${old.nodeId} (term ${old.term}): ${before.remainingMs} ms remaining`);
    const oldIndex = d.cluster.indexOf(old.nodeId);
    await d.cluster.kill(oldIndex);
    d.say(`kill -9 the leader ${old.nodeId} (./cluster.sh kill ${oldIndex})`);

    const fresh = await d.leader(20_000, old.nodeId);
    d.timeline.line(fresh.term, undefined, `${fresh.nodeId} elected leader in term ${fresh.term}: it continues the replicated clock from its election`);
    const info = await c.inspect(lock);
    const after = await c.timeToLive(leaseId);
    const elapsed = Math.ceil(performance.now() - t0);
    d.check(
      info.held && info.fencingToken === got.fencingToken && info.holderLeaseId === leaseId,
      `${lock} still held by lease ${leaseId} with token ${got.fencingToken}`,
      `Inspect says ${JSON.stringify(info)}`,
    );
    d.check(
      after.remainingMs >= before.remainingMs - elapsed,
      `at least ${before.remainingMs} − ${elapsed} ms (the real time between the two reads) to remain`,
      `only ${after.remainingMs} ms remain: the lease was shortened`,
    );
    d.say(
      `after the failover: ${lock} held by lease ${leaseId}, token ${info.fencingToken}; ${after.remainingMs} ms remaining ≥ ${before.remainingMs} − ${elapsed} ms of real time: not shortened`,
    );

    await d.cluster.restart(oldIndex);
    const back = await d.poll(
      `${old.nodeId} to rejoin as a follower`,
      async () => (await d.statuses()).find((s) => s.nodeId === old.nodeId && s.role === 'follower' && s.leaderId !== '' && s.term >= fresh.term),
      20_000,
    );
    d.timeline.line(
      back.term,
      undefined,
      `${old.nodeId} restarted (./cluster.sh restart ${oldIndex}) and rejoined as a follower of ${back.leaderId}, applied up to #${back.appliedIndex}`,
    );
    await c.release(lock, got.fencingToken);
    await c.revokeLease(leaseId);
    return `after ${old.nodeId} died, ${fresh.nodeId} (term ${fresh.term}) kept the grant: token ${got.fencingToken}, ${after.remainingMs} ms of lease left`;
  },
};
