// Kleppmann's GC pause: holder A stops the world past its lease, B is granted the lock with a
// higher token, and A's late write — A still believes it holds the lock — is refused by the fenced
// store, because its token is below one the store already accepted.
import { tokenIndex } from '../../../state-machine/token.js';
import { attempt, describe, expiryTick, fenceEntry, pending, queued, type Scenario } from '../framework.js';

export const gcPause: Scenario = {
  name: 'gc-pause',
  title: "a holder pauses past its lease; the next holder gets a higher token; the paused holder's late write is refused by fencing",
  async run(d) {
    const lock = `demo/gc-pause/${d.runId}`;
    const key = `${lock}/row`;
    const a = d.client('A');
    const b = d.client('B');
    const probe = d.client(); // the demo's own look at the cluster: not one of the story's clients
    const pause = new AbortController();
    const leaseA = await a.grantLease(2_000, { liveness: pause.signal });
    await d.entry(leaseA.id, `client A: lease ${leaseA.id} granted, ttl ${leaseA.ttlMs} ms, kept alive every ~${Math.round(leaseA.ttlMs / 3)} ms`);
    const lockA = await a.acquire(lock, { lease: leaseA, wait: false });
    await d.entry(tokenIndex(lockA.token), `client A holds ${lock}: fencing token ${lockA.token} (granted by this entry)`);
    const mark = d.events.mark();
    await a.fenceWrite(key, 'written by A', lockA.token);
    const w1 = await fenceEntry(d, key, lockA.token, mark);
    await d.entry(w1.index, `client A writes ${key} with token ${lockA.token}: accepted`);

    const leaseB = await b.grantLease(10_000);
    const gotB = pending(b.acquire(lock, { lease: leaseB })); // waits in the lock's FIFO queue
    await d.entry(await queued(d, lock, leaseB.id), `client B (lease ${leaseB.id}) waits for ${lock}`);

    const pausedAt = d.events.mark();
    // What A computed before it froze: it trusts the lease until sendTime(last acknowledged keepalive) + ttl.
    const trustLeft = Math.max(0, Math.round(leaseA.deadline - performance.now()));
    d.pause('A', lock, lockA.token);
    pause.abort();
    d.say(
      `client A pauses (a stop-the-world GC): no keepalives; by its own clock it may trust lease ${leaseA.id} for ${trustLeft} ms more, but it cannot look: it will wake believing it still holds ${lock}`,
    );
    // The pause lasts past the lease: A's lease is gone once logical time passes its deadline.
    await d.poll(`lease ${leaseA.id} to expire`, async () => ((await attempt(probe.timeToLive(leaseA.id))).ok ? undefined : true), 10_000);
    const tick = await expiryTick(d, leaseA.id, 5_000, pausedAt);
    const lockB = await gotB;
    await d.entry(
      tick.index,
      `Tick: logical now ${tick.now} ms passed lease ${leaseA.id}'s deadline${tick.deadline === undefined ? '' : ` ${tick.deadline} ms`}: it expires, and this same entry grants ${lock} to B`,
    );
    d.check(tokenIndex(lockB.token) === tick.index, `B's token to name that Tick's index ${tick.index}`, `B got token ${lockB.token}`);
    d.check(lockB.token > lockA.token, `B's token above A's ${lockA.token}`, `B got ${lockB.token}`);
    d.say(`client B holds ${lock}: fencing token ${lockB.token} > ${lockA.token}`);

    const m2 = d.events.mark();
    await b.fenceWrite(key, 'written by B', lockB.token);
    const w2 = await fenceEntry(d, key, lockB.token, m2);
    await d.entry(w2.index, `client B writes ${key} with token ${lockB.token}: accepted`);

    const m3 = d.events.mark();
    d.wake('A');
    const late = await attempt(a.fenceWrite(key, 'late write by A', lockA.token));
    d.check(
      !late.ok && late.code === 'FAILED_PRECONDITION',
      `A's late write with token ${lockA.token} to be refused (FAILED_PRECONDITION)`,
      `it ${describe(late)}`,
    );
    const w3 = await fenceEntry(d, key, lockA.token, m3);
    await d.entry(w3.index, `client A wakes and writes ${key} with token ${lockA.token}: REFUSED (${w3.reason ?? `${lockA.token} < ${w3.highest}`})`);

    const row = await probe.fenceRead(key);
    const value = row.value.toString('utf8');
    d.check(
      value === 'written by B' && row.fencingToken === lockB.token,
      `${key} to hold B's write (token ${lockB.token})`,
      `it holds ${JSON.stringify(value)} (token ${row.fencingToken})`,
    );
    d.say(`${key} = ${JSON.stringify(value)} (token ${row.fencingToken}): the stale write changed nothing`);
    await lockB.release();
    await leaseB.revoke();
    return `A's write with stale token ${lockA.token} was refused after B (token ${lockB.token}) wrote; the store kept B's value`;
  },
};
