// Redlock's clock-drift failure: a clock that jumps expires locks early there. lockd's leader
// measures time, but it reaches the replicated state only as Tick entries whose elapsed time is
// capped (200 ms), so a leap of the leader's clock source (the test fault `clock-jump`) advances
// logical time by at most one capped Tick, and no lease expires before its TTL of real time.
import { attempt, DemoFailure, expiryTick, unkeptLease, type Scenario } from '../framework.js';

/** The cap on one Tick's elapsed time with cluster.sh's timing (2 × the 100 ms Tick interval: README). */
const TICK_CAP_MS = 200;
const JUMP_MS = 60_000;
const TTL_MS = 3_000;

export const clockJump: Scenario = {
  name: 'clock-jump',
  title: "the leader's measured clock leaps forward 60 s; logical time advances by at most one capped Tick and no lease expires early",
  async run(d) {
    const noFaults = d.cluster.testFaultsProblem("leaps the leader's clock");
    if (noFaults) throw new DemoFailure(noFaults);
    const c = d.client();
    const grantSent = performance.now();
    const leaseId = await unkeptLease(c, TTL_MS);
    await d.entry(leaseId, `lease ${leaseId} granted, ttl ${TTL_MS} ms, not kept alive`);
    const leader = await d.leader();
    const i = d.cluster.indexOf(leader.nodeId);
    const before = d.events.mark();
    const lastTick = await d.events.waitFor('a Tick', (e) => (e.type === 'tick' && e.node === leader.nodeId ? e : undefined), 3_000, before, d.signal);
    const jumpedAt = d.events.mark();
    const wallAtJump = performance.now();
    await d.cluster.clockJump(i, JUMP_MS);
    d.timeline.line(leader.term, undefined, `the leader ${leader.nodeId}'s clock source leaps forward ${JUMP_MS} ms (./cluster.sh clock-jump ${i} ${JUMP_MS}); logical now was ${lastTick.now} ms at #${lastTick.index}`);

    const capped = await d.events.waitFor(`a capped Tick from ${leader.nodeId}`, (e) => (e.type === 'tick' && e.node === leader.nodeId && e.elapsedMs >= TICK_CAP_MS ? e : undefined), 5_000, jumpedAt, d.signal);
    await d.entry(capped.index, `Tick: elapsed ${capped.elapsedMs} ms — the ${JUMP_MS} ms leap is capped at ${TICK_CAP_MS} ms; logical now ${capped.now} ms`);
    d.check(capped.elapsedMs <= TICK_CAP_MS, `the Tick's elapsed time capped at ${TICK_CAP_MS} ms`, `it counted ${capped.elapsedMs} ms`);
    const logical = capped.now - lastTick.now;
    const real = Math.ceil(performance.now() - wallAtJump) + TICK_CAP_MS;
    d.check(logical <= real, `logical time to advance no more than the real time (+ one cap): ${real} ms`, `it advanced ${logical} ms`);
    const alive = await attempt(c.timeToLive(leaseId));
    d.check(alive.ok, `lease ${leaseId} to be alive after the leap`, alive.ok ? '' : alive.code === 'NOT_FOUND' ? 'it was gone: expired early' : `TimeToLive failed: ${alive.code}: ${alive.message}`);
    d.say(`lease ${leaseId} is alive after the leap: ${alive.ok ? alive.value.remainingMs : '?'} ms remaining`);

    const expiry = await expiryTick(d, leaseId, TTL_MS + 5_000, jumpedAt);
    const lived = Math.floor(performance.now() - grantSent);
    d.check(lived >= TTL_MS, `lease ${leaseId} to live at least its ${TTL_MS} ms TTL of real time`, `it expired ${lived} ms after its Grant was sent`);
    await d.entry(expiry.index, `Tick: lease ${leaseId} expires at logical now ${expiry.now} ms, ${lived} ms of real time after its Grant was sent (TTL ${TTL_MS} ms): on time, not ${JUMP_MS / 1000} s early`);
    return `a ${JUMP_MS} ms leap of ${leader.nodeId}'s clock moved logical time by one capped Tick (${capped.elapsedMs} ms); lease ${leaseId} expired after ${lived} ms ≥ its ${TTL_MS} ms TTL`;
  },
};
