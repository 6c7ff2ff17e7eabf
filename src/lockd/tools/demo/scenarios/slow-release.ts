// The slow release (the compare-and-delete articles): A's lease ends while A is still working; B
// gets the lock; then A, finishing late, releases "its" lock. Release is compare-and-delete on the
// fencing token, so A's release changes nothing and B still holds the lock.
import { tokenIndex } from '../../../state-machine/token.js';
import { attempt, expiryTick, pending, queued, type Scenario } from '../framework.js';

export const slowRelease: Scenario = {
  name: 'slow-release',
  title: "a stale holder's release after its lease ended is refused by compare-and-delete and does not free the new holder's lock",
  async run(d) {
    const lock = `demo/slow-release/${d.runId}`;
    const a = d.client('A');
    const b = d.client('B');
    const slow = new AbortController();
    const leaseA = await a.grantLease(1_500, { liveness: slow.signal });
    const lockA = await a.acquire(lock, { lease: leaseA, wait: false });
    await d.entry(tokenIndex(lockA.token), `client A (lease ${leaseA.id}, ttl 1500 ms) holds ${lock}: fencing token ${lockA.token}`);
    const leaseB = await b.grantLease(10_000);
    const mark = d.events.mark();
    const gotB = pending(b.acquire(lock, { lease: leaseB }));
    await d.entry(await queued(d, lock, leaseB.id, mark), `client B (lease ${leaseB.id}) waits for ${lock}`);

    const slowAt = d.events.mark();
    d.pause('A', lock, lockA.token);
    slow.abort();
    d.say(`client A is slow: its keepalives stop while it works on (ttl ${leaseA.ttlMs} ms), still believing it holds ${lock}`);
    const tick = await expiryTick(d, leaseA.id, 10_000, slowAt);
    const lockB = await gotB;
    await d.entry(
      tick.index,
      `Tick: lease ${leaseA.id} expires (logical now ${tick.now} ms${tick.deadline === undefined ? '' : ` ≥ its deadline ${tick.deadline} ms`}); the same entry grants ${lock} to B: token ${lockB.token}`,
    );

    const relAt = d.events.mark();
    d.wake('A');
    const rel = await attempt(a.release(lock, lockA.token));
    const released = rel.ok && rel.value;
    d.check(!released, `A's late release with token ${lockA.token} to change nothing`, `it answered released = true`);
    const entry = await d.events.waitFor(
      `A's Release entry`,
      (e) => (e.type === 'release' && e.name === lock && e.token === lockA.token ? e : undefined),
      5_000,
      relAt,
      d.signal,
    );
    await d.entry(
      entry.index,
      `client A finishes late and releases ${lock} with token ${lockA.token}: REFUSED (compare-and-delete: the holder's token is ${lockB.token})${rel.ok ? '' : ` — ${rel.code}`}`,
    );
    d.check(!entry.ok, 'the Release entry to be refused', 'it was applied as ok');

    const info = await b.inspect(lock);
    d.check(
      info.held && info.fencingToken === lockB.token && info.holderLeaseId === leaseB.id,
      `${lock} still held by B (lease ${leaseB.id}, token ${lockB.token})`,
      `Inspect says ${JSON.stringify(info)}`,
    );
    d.say(`Inspect ${lock}: held by lease ${info.holderLeaseId}, token ${info.fencingToken} — B's lock was not freed`);
    await lockB.release();
    await leaseB.revoke();
    return `A's stale release (token ${lockA.token}) was refused and B kept ${lock} (token ${lockB.token})`;
  },
};
