// Redlock's unsynced-write-on-crash failure (a restarted node forgets a lock it had granted), shown
// not to apply: an acknowledged grant is a committed Raft entry, synced to a majority's disks before
// the answer. Every node is killed -9 right after it; after restart the grant, its token and the
// lease's remaining logical time are all still there (time without a leader does not count).
import { tokenIndex } from '../../../state-machine/token.js';
import { unkeptLease, type Scenario } from '../framework.js';

export const wholeClusterCrash: Scenario = {
  name: 'whole-cluster-crash',
  title: 'every node is killed -9 right after a grant is acknowledged; after restart the grant, its token and the lease\'s remaining logical time are still there',
  async run(d) {
    const lock = `demo/whole-cluster-crash/${d.runId}`;
    const c = d.client();
    const leaseId = await unkeptLease(c, 10_000);
    await d.entry(leaseId, `lease ${leaseId} granted, ttl 10000 ms, not kept alive`);
    const t0 = performance.now();
    const before = await c.timeToLive(leaseId);
    const got = await c.acquireRaw(lock, leaseId);
    d.check(got.acquired, `${lock} to be free`, `it is held by lease ${got.holderLeaseId}`);
    // The answer is in: kill every node at once, before anything else can be written.
    await Promise.all(d.cluster.nodes.map((i) => d.cluster.kill(i)));
    await d.entry(tokenIndex(got.fencingToken), `grant acknowledged: ${lock} to lease ${leaseId}, fencing token ${got.fencingToken} (${before.remainingMs} ms of lease remained just before)`);
    d.say(`kill -9 every node (${d.cluster.nodes.map((i) => `n${i}`).join(', ')}) right after the acknowledgement`);

    await d.cluster.startAll();
    const leader = await d.leader(30_000);
    d.timeline.line(leader.term, undefined, `./cluster.sh start: every node restarted from its data dir; ${leader.nodeId} leads in term ${leader.term}`);
    const info = await c.inspect(lock);
    const after = await c.timeToLive(leaseId);
    const elapsed = Math.ceil(performance.now() - t0);
    d.check(info.held && info.fencingToken === got.fencingToken && info.holderLeaseId === leaseId, `${lock} held by lease ${leaseId} with token ${got.fencingToken} after the restart`, `Inspect says ${JSON.stringify(info)}`);
    d.check(after.remainingMs <= before.remainingMs && after.remainingMs >= before.remainingMs - elapsed,
      `the lease's remaining time to be between ${before.remainingMs} − ${elapsed} ms (real time since) and ${before.remainingMs} ms`, `${after.remainingMs} ms remain`);
    d.say(`after the restart: ${lock} held by lease ${leaseId}, token ${info.fencingToken}; lease ${leaseId} has ${after.remainingMs} ms left (${before.remainingMs} before the crash, ${elapsed} ms of real time since)`);
    await c.release(lock, got.fencingToken);
    await c.revokeLease(leaseId);
    return `the grant (token ${got.fencingToken}) and ${after.remainingMs} ms of its lease survived kill -9 of all ${d.cluster.size} nodes`;
  },
};
