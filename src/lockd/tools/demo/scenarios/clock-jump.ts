// Redlock's clock-drift failure: a clock that jumps expires locks early there. lockd's leader
// measures time, but it reaches the replicated state only as Tick entries whose elapsed time is
// capped (200 ms), so a leap of the leader's clock source (the test fault `clock-jump`) advances
// logical time by at most one capped Tick, and no lease expires before its TTL of real time.
import type { ObservedEvent } from '../../../observe/observed-events.js';
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
    d.timeline.line(leader.term, undefined, `the leader ${leader.nodeId}'s clock source leaps forward ${JUMP_MS} ms (./cluster.sh clock-jump ${i} ${JUMP_MS})`);

    // The leap's Tick: the first whose measured time (the leader's own event carries it) holds the leap.
    const leapt = (e: ObservedEvent) =>
      e.type === 'tick' && e.node === leader.nodeId && (e.measuredMs ?? 0) >= JUMP_MS ? { ...e, measuredMs: e.measuredMs! } : undefined;
    const capped = await d.events.waitFor(`a Tick of ${leader.nodeId} measuring the ${JUMP_MS} ms leap`, leapt, 5_000, jumpedAt, d.signal);
    // The Tick right before it in the log, so the printed sum is the whole story: no Tick between them.
    const prev = d.events.findLast((e) => (e.type === 'tick' && e.node === leader.nodeId && e.index < capped.index ? e : undefined)) ?? lastTick;
    await d.entry(prev.index, `Tick: ${measured(prev)}counted ${prev.elapsedMs} ms: logical now ${prev.now} ms (the Tick before the leap's)`);
    await d.entry(
      capped.index,
      `Tick: ${leader.nodeId} measured ${capped.measuredMs} ms since #${prev.index}, counted ${capped.elapsedMs} ms (the cap): logical now ${prev.now} + ${capped.elapsedMs} = ${capped.now} ms`,
    );
    d.check(capped.elapsedMs <= TICK_CAP_MS, `the Tick's elapsed time capped at ${TICK_CAP_MS} ms`, `it counted ${capped.elapsedMs} ms`);
    d.check(
      prev.now + capped.elapsedMs === capped.now,
      `Tick #${capped.index} to follow #${prev.index} directly (${prev.now} + ${capped.elapsedMs} ms)`,
      `logical now went from ${prev.now} to ${capped.now} ms: ${leader.nodeId}'s events missed a Tick between them`,
    );
    const logical = capped.now - lastTick.now;
    const real = Math.ceil(performance.now() - wallAtJump) + TICK_CAP_MS;
    d.check(logical <= real, `logical time to advance no more than the real time (+ one cap): ${real} ms`, `it advanced ${logical} ms`);
    const alive = await attempt(c.timeToLive(leaseId));
    d.check(
      alive.ok,
      `lease ${leaseId} to be alive after the leap`,
      alive.ok ? '' : alive.code === 'NOT_FOUND' ? 'it was gone: expired early' : `TimeToLive failed: ${alive.code}: ${alive.message}`,
    );
    d.say(`lease ${leaseId} is alive after the leap: ${alive.ok ? alive.value.remainingMs : '?'} ms remaining`);

    const expiry = await expiryTick(d, leaseId, TTL_MS + 5_000, jumpedAt);
    const lived = Math.floor(performance.now() - grantSent);
    d.check(lived >= TTL_MS, `lease ${leaseId} to live at least its ${TTL_MS} ms TTL of real time`, `it expired ${lived} ms after its Grant was sent`);
    await d.entry(
      expiry.index,
      `Tick: lease ${leaseId} expires at logical now ${expiry.now} ms${expiry.deadline === undefined ? '' : ` (its deadline ${expiry.deadline} ms)`}, ${lived} ms of real time after its Grant was sent (TTL ${TTL_MS} ms): on time, not ${JUMP_MS / 1000} s early`,
    );
    return `a ${JUMP_MS} ms leap of ${leader.nodeId}'s clock moved logical time by one capped Tick (${capped.elapsedMs} ms); lease ${leaseId} expired after ${lived} ms ≥ its ${TTL_MS} ms TTL`;
  },
};

/** "n1 measured 101 ms, " when the event is its proposer's (which alone measured it), else ''. */
function measured(e: { readonly node: string; readonly measuredMs?: number }): string {
  return e.measuredMs === undefined ? '' : `${e.node} measured ${e.measuredMs} ms, `;
}
