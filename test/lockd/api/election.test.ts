// lockd.v1.Election on a real 3-node cluster, built on the lock state: Campaign waits
// FIFO and answers the leadership (the grant of the election's lock), Proclaim sets the value,
// Leader reads it, Observe streams every change, Resign hands over, and a campaign ends NOT_FOUND
// the moment its lease does (no phantom leader: the leadership ends with the lease).
import { expect } from 'chai';
import { ProcessCluster, waitFor } from '../../support/process-cluster.js';
import { LockClient } from '../../../src/client/lock-client.js';
import type { Leadership } from '../../../src/client/election.js';
import type { LockdError } from '../../../src/client/errors.js';

describe('Election on a 3-node cluster', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let client: LockClient;

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader();
    client = new LockClient({ endpoints: cluster.nodes.map((n) => n.address), watchLocks: false });
  });
  after(async () => {
    client?.close();
    await cluster?.stop();
  });

  it('campaign, proclaim, leader, observe, resign hand-over, and a campaign ended by its lease', async () => {
    const seen: Leadership[] = [];
    const stop = new AbortController();
    let opened!: () => void;
    const subscribed = new Promise<void>((r) => (opened = r));
    const watching = (async () => {
      for await (const l of client.observeLeader('el/1', { signal: stop.signal, onOpen: () => opened() })) seen.push(l);
    })();
    await subscribed;
    const [a, b, c] = await Promise.all([client.grantLease(20_000), client.grantLease(20_000), client.grantLease(20_000)]);
    try {
      expect((await client.leader('el/1')).leader).to.equal(undefined);
      const ka = await client.campaign('el/1', a.id, 'a:1');
      expect(ka).to.include({ name: 'el/1', leaseId: a.id });
      expect(await client.leader('el/1')).to.deep.equal({ leader: ka, value: 'a:1' });
      // The leadership is the lock's grant: same token, and it fences.
      expect((await client.inspect('el/1')).fencingToken).to.equal(ka.fencingToken);

      const cb = client.campaign('el/1', b.id, 'b:1');
      await waitFor('b campaigns', async () => ((await client.inspect('el/1')).waitingLeaseIds.includes(b.id) ? true : undefined), 10_000);
      await client.proclaim(ka, 'a:2');
      expect((await client.leader('el/1')).value).to.equal('a:2');
      const stale = await client.proclaim({ ...ka, fencingToken: ka.fencingToken - 1 }, 'x').then(
        () => undefined,
        (e: LockdError) => e,
      );
      expect(stale?.codeName).to.equal('FAILED_PRECONDITION');

      expect(await client.resign(ka)).to.equal(true);
      const kb = await cb;
      expect(kb.leaseId).to.equal(b.id);
      expect(kb.fencingToken).to.be.greaterThan(ka.fencingToken);
      expect(await client.leader('el/1')).to.deep.equal({ leader: kb, value: 'b:1' });
      expect(await client.resign(ka)).to.equal(false); // an old key resigns nothing

      // A campaign whose lease ends while it waits ends NOT_FOUND.
      const cc = client.campaign('el/1', c.id, 'c:1').then(
        () => undefined,
        (e: LockdError) => e,
      );
      await waitFor('c campaigns', async () => ((await client.inspect('el/1')).waitingLeaseIds.includes(c.id) ? true : undefined), 10_000);
      await c.revoke();
      expect((await cc)?.codeName).to.equal('NOT_FOUND');

      // The leader's lease ends: nobody leads (no phantom leader), and observers see it.
      await b.revoke();
      expect((await client.leader('el/1')).leader).to.equal(undefined);
      await waitFor('the observer saw every change', () => (seen.length >= 4 && seen.at(-1)!.leader === undefined ? true : undefined), 10_000);
      expect(seen.map((l) => [l.leader?.leaseId ?? 0, l.value])).to.deep.equal([
        [a.id, 'a:1'],
        [a.id, 'a:2'],
        [b.id, 'b:1'],
        [0, ''],
      ]);
    } finally {
      stop.abort();
      await watching.catch(() => {});
      for (const l of [a, b, c]) await l.revoke().catch(() => {});
    }
  });

  it('refuses bad input: an oversize value, a missing key', async () => {
    const a = await client.grantLease(20_000);
    try {
      const big = await client.campaign('el/2', a.id, 'x'.repeat(1025)).then(
        () => undefined,
        (e: LockdError) => e,
      );
      expect(big?.codeName).to.equal('INVALID_ARGUMENT');
      expect(big?.message).to.contain('1024');
      expect((await client.inspect('el/2')).held).to.equal(false);
    } finally {
      await a.revoke();
    }
  });
});
