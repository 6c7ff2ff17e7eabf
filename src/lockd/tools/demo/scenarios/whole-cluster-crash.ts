// Redlock's unsynced-write-on-crash failure (a restarted node forgets a lock it had granted), shown
// not to apply: an acknowledged grant is a committed Raft entry, synced to a majority's disks before
// the answer. Every node is killed -9 right after it; after restart the grant, its token and the
// lease's remaining logical time are all still there (time without a leader does not count).
// A kill -9 keeps the page cache, so on plain disks this passes even with fsync removed; on a
// cluster made with LOCKD_LAZYFS=1 the kill is a power cut (every disk drops what was not fsynced),
// and with LOCKD_UNSAFE_NO_FSYNC=1 as well (a build that syncs nothing) the demo fails: the grant is lost.
import { tokenIndex } from '../../../state-machine/token.js';
import { unkeptLease, type Scenario } from '../framework.js';

export const wholeClusterCrash: Scenario = {
  name: 'whole-cluster-crash',
  title:
    "every node is killed -9 right after a grant is acknowledged; after restart the grant, its token and the lease's remaining logical time are still there",
  async run(d) {
    const lock = `demo/whole-cluster-crash/${d.runId}`;
    const c = d.client('C');
    const leaseId = await unkeptLease(c, 10_000);
    await d.entry(leaseId, `lease ${leaseId} granted, ttl 10000 ms, not kept alive`);
    const t0 = performance.now();
    const before = await c.timeToLive(leaseId);
    const got = await c.acquireRaw(lock, leaseId);
    d.check(got.acquired, `${lock} to be free`, `it is held by lease ${got.holderLeaseId}`);
    // The answer is in: kill every node at once, before anything else can be written.
    const powerCut = d.cluster.lazyfs;
    let dropped = 0;
    if (powerCut) {
      const out = await d.cluster.powerCutAll();
      for (const m of out.matchAll(/"bytes": (\d+)/g)) dropped += Number(m[1]);
    } else await Promise.all(d.cluster.nodes.map((i) => d.cluster.kill(i)));
    await d.entry(
      tokenIndex(got.fencingToken),
      `grant acknowledged: ${lock} to lease ${leaseId}, fencing token ${got.fencingToken} (${before.remainingMs} ms of lease remained just before)`,
    );
    const nodes = d.cluster.nodes.map((i) => `n${i}`).join(', ');
    if (powerCut)
      d.say(
        `power cut of every node (${nodes}) right after the acknowledgement: kill -9, and each node's lazyfs disk dropped every write it had not fsynced (${dropped} bytes in all)${d.cluster.noFsync ? '; these nodes run the control build (--unsafe-no-fsync) that syncs nothing' : ''}`,
      );
    else
      d.say(
        `kill -9 every node (${nodes}) right after the acknowledgement (the page cache survives a kill: LOCKD_LAZYFS=1 ./cluster.sh start makes it a power cut)`,
      );

    await d.cluster.startAll();
    const leader = await d.leader(30_000);
    d.timeline.line(leader.term, undefined, `./cluster.sh start: every node restarted from its data dir; ${leader.nodeId} leads in term ${leader.term}`);
    const info = await c.inspect(lock);
    // Checked before the lease is read: a build that lost the grant lost the lease too (NOT_FOUND).
    d.check(
      info.held && info.fencingToken === got.fencingToken && info.holderLeaseId === leaseId,
      `${lock} held by lease ${leaseId} with token ${got.fencingToken} after the restart`,
      `Inspect says ${JSON.stringify(info)}`,
    );
    const after = await c.timeToLive(leaseId);
    const elapsed = Math.ceil(performance.now() - t0);
    d.check(
      after.remainingMs <= before.remainingMs && after.remainingMs >= before.remainingMs - elapsed,
      `the lease's remaining time to be between ${before.remainingMs} − ${elapsed} ms (real time since) and ${before.remainingMs} ms`,
      `${after.remainingMs} ms remain`,
    );
    d.say(
      `after the restart: ${lock} held by lease ${leaseId}, token ${info.fencingToken}; lease ${leaseId} has ${after.remainingMs} ms left (${before.remainingMs} before the crash, ${elapsed} ms of real time since)`,
    );
    await c.release(lock, got.fencingToken);
    await c.revokeLease(leaseId);
    return `the grant (token ${got.fencingToken}) and ${after.remainingMs} ms of its lease survived ${powerCut ? `a power cut (${dropped} unsynced bytes dropped)` : 'kill -9'} of all ${d.cluster.size} nodes`;
  },
};
