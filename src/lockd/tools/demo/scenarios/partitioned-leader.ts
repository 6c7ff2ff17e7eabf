// An isolated leader (the test fault `isolate`: its Raft traffic to and from every peer is dropped)
// may still believe it leads for a moment, but it cannot commit anything — no Tick, so it expires
// nothing: only committed Ticks move logical time. The majority elects a new leader, whose
// committed Tick expires the lease; when the old leader rejoins it applies that same entry.
import { tokenIndex } from '../../../state-machine/token.js';
import { DemoFailure, expiryTick, unkeptLease, type Scenario } from '../framework.js';

export const partitionedLeader: Scenario = {
  name: 'partitioned-leader',
  title: 'an isolated leader cannot commit a Tick and so expires nothing, while the majority elects a new leader',
  async run(d) {
    const noFaults = d.cluster.testFaultsProblem('isolates a node');
    if (noFaults) throw new DemoFailure(noFaults);
    const lock = `demo/partitioned-leader/${d.runId}`;
    const c = d.client('C');
    const leaseId = await unkeptLease(c, 3_000);
    await d.entry(leaseId, `lease ${leaseId} granted, ttl 3000 ms, not kept alive`);
    const got = await c.acquireRaw(lock, leaseId);
    d.check(got.acquired, `${lock} to be free`, `it is held by lease ${got.holderLeaseId}`);
    await d.entry(tokenIndex(got.fencingToken), `lease ${leaseId} holds ${lock}: fencing token ${got.fencingToken}`);

    const old = await d.leader();
    const oldIndex = d.cluster.indexOf(old.nodeId);
    const mark = d.events.mark();
    await d.cluster.isolate(oldIndex);
    d.timeline.line(
      old.term,
      undefined,
      `isolate the leader ${old.nodeId} (./cluster.sh isolate ${oldIndex}): its Raft messages to and from every peer are dropped`,
    );

    const fresh = await d.leader(20_000, old.nodeId);
    d.check(fresh.term > old.term, `the new leader's term above ${old.term}`, `${fresh.nodeId} leads in term ${fresh.term}`);
    d.timeline.line(fresh.term, undefined, `the majority elects ${fresh.nodeId} leader in term ${fresh.term}`);
    const tick = await expiryTick(d, leaseId, 15_000, mark);
    d.check(
      tick.node !== old.nodeId,
      `only the majority to apply the Tick expiring lease ${leaseId}`,
      `the isolated ${old.nodeId} applied it (entry ${tick.index}) while cut off`,
    );
    await d.entry(
      tick.index,
      `on the majority, a Tick of ${fresh.nodeId}'s expires lease ${leaseId} (logical now ${tick.now} ms${tick.deadline === undefined ? '' : ` ≥ its deadline ${tick.deadline} ms`}) and frees ${lock}`,
    );

    const mine = (await d.statuses()).find((s) => s.nodeId === old.nodeId);
    d.check(mine !== undefined, `the isolated ${old.nodeId} to answer Cluster.Status on its client port`, 'it did not answer');
    d.check(mine!.commitIndex < tick.index, `${old.nodeId}'s commit index to stay below #${tick.index}`, `it is ${mine!.commitIndex}`);
    const own = d.events.find((e) => (e.node === old.nodeId && (e.type === 'tick' || e.type === 'lease-ended') && e.index >= tick.index ? e : undefined), mark);
    d.check(own === undefined, `${old.nodeId} to apply no Tick and end no lease while isolated`, `it published ${JSON.stringify(own)}`);
    // Entries it appended beyond what it ever committed: its own Ticks, which no majority stored.
    const orphan = d.events.find((e) => (e.node === old.nodeId && e.type === 'appended' && e.last > mine!.commitIndex ? e : undefined), mark);
    d.timeline.line(
      old.term,
      undefined,
      `${old.nodeId} meanwhile: role ${mine!.role}, commit index ${mine!.commitIndex} (frozen)${orphan ? `; it appended #${Math.max(orphan.first, mine!.commitIndex + 1)}..#${orphan.last} (its Ticks) that no majority stored` : ''}: lease ${leaseId} did not expire there`,
    );

    const healAt = d.events.mark();
    await d.cluster.heal(oldIndex);
    d.say(`heal ${old.nodeId} (./cluster.sh heal ${oldIndex})`);
    const rejoined = await d.events
      .waitFor(
        `${old.nodeId} applying entry #${tick.index}`,
        (e) => (e.node === old.nodeId && e.type === 'tick' && e.index === tick.index ? e : undefined),
        15_000,
        healAt,
        d.signal,
      )
      .catch(() => undefined);
    const status = await d.poll(
      `${old.nodeId} to follow ${fresh.nodeId}'s term`,
      async () => (await d.statuses()).find((s) => s.nodeId === old.nodeId && s.role === 'follower' && s.term >= fresh.term && s.appliedIndex >= tick.index),
      15_000,
    );
    d.timeline.line(
      status.term,
      rejoined ? tick.index : undefined,
      `${old.nodeId} rejoins as a follower of ${status.leaderId} in term ${status.term}, its uncommitted tail replaced; it applied up to #${status.appliedIndex}${rejoined ? `, including the majority's Tick #${tick.index} that expired lease ${leaseId}` : ''}`,
    );
    return `isolated ${old.nodeId} committed nothing (commit index ${mine!.commitIndex}) while ${fresh.nodeId} (term ${fresh.term}) expired lease ${leaseId} at #${tick.index}`;
  },
};
