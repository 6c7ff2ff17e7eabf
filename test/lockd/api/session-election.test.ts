// Election on the Session stream, on a real 3-node cluster: Campaign, Proclaim, Leader
// and Resign are Session operations with the unary RPCs' semantics — FIFO hand-over, a campaign that
// ends NOT_FOUND the moment its lease does (revoked or expired), timeout_ms, request ids, bad input
// answered per operation — and SessionClient runs the same election recipe as LockClient.
import { expect } from 'chai';
import { SessionClient } from '../../../src/client/session-client.js';
import type { LockdError } from '../../../src/client/errors.js';
import { ApiFixture, waitFor } from './api-fixture.js';

const TTL_MS = 60_000;

const failure = async (p: Promise<unknown>): Promise<LockdError> => {
  try {
    await p;
  } catch (e) {
    return e as LockdError;
  }
  throw new Error('expected the operation to fail');
};

describe('Election on the Session stream (3-node cluster)', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const closers: Array<() => void> = [];
  const client = () => {
    const c = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address), timeoutMs: 10_000 });
    closers.push(() => c.close());
    return c;
  };
  /** Poll (unary Inspect on the leader) until `leaseId` waits in `name`'s queue. */
  const campaigning = (name: string, leaseId: number) =>
    waitFor(`lease ${leaseId} campaigns in ${name}`, async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(leaseId) ? true : undefined), 10_000);

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  after(async () => {
    await f?.stop();
  });

  it('campaign, proclaim, leader and resign on one stream; a second campaigner waits (later operations are answered meanwhile) and leads when the first resigns', async () => {
    const s = client();
    const { leaseId: a } = await s.grant(TTL_MS);
    const { leaseId: b } = await s.grant(TTL_MS);
    expect(await s.leader('sel/1')).to.deep.equal({ value: '' });

    const ka = await s.campaign('sel/1', a, 'a:1');
    expect(ka).to.include({ name: 'sel/1', leaseId: a });
    expect(ka.fencingToken).to.be.greaterThan(0);
    expect(await s.leader('sel/1')).to.deep.equal({ leader: ka, value: 'a:1' });
    // The leadership is the election lock's grant, seen by the unary API too.
    expect((await f.leader.inspect('sel/1')).fencingToken).to.equal(ka.fencingToken);

    // b campaigns on the same stream: it waits, and the stream goes on answering.
    let bDone = false;
    const cb = s.campaign('sel/1', b, 'b:1').finally(() => (bDone = true));
    await campaigning('sel/1', b);
    await s.proclaim(ka, 'a:2');
    expect(await s.leader('sel/1')).to.deep.equal({ leader: ka, value: 'a:2' });
    expect((await failure(s.proclaim({ ...ka, fencingToken: ka.fencingToken - 1 }, 'x'))).codeName).to.equal('FAILED_PRECONDITION');
    expect(bDone).to.equal(false);

    expect(await s.resign(ka)).to.equal(true);
    const kb = await cb;
    expect(kb).to.include({ name: 'sel/1', leaseId: b });
    expect(kb.fencingToken).to.be.greaterThan(ka.fencingToken);
    expect(await s.leader('sel/1')).to.deep.equal({ leader: kb, value: 'b:1' });
    expect(await s.resign(ka)).to.equal(false); // an old key resigns nothing
    expect(await s.resign(kb)).to.equal(true);
    expect(await s.leader('sel/1')).to.deep.equal({ value: '' });
  });

  it('a waiting campaign ends NOT_FOUND the moment its lease is revoked, and when it expires; a leader whose lease expires leads no more', async () => {
    const s = client();
    const { leaseId: holder } = await s.grant(TTL_MS);
    const { leaseId: revoked } = await s.grant(TTL_MS);
    const kh = await s.campaign('sel/2', holder, 'h');

    const cr = failure(s.campaign('sel/2', revoked, 'r'));
    await campaigning('sel/2', revoked);
    await s.revoke(revoked);
    expect((await cr).codeName).to.equal('NOT_FOUND');

    // A short lease, never kept alive: it expires while its campaign waits.
    const { leaseId: expiring } = await s.grant(1500);
    const ce = failure(s.campaign('sel/2', expiring, 'e'));
    const e = await ce;
    expect(e.codeName, e.message).to.equal('NOT_FOUND');
    expect(e.message).to.contain('ended');
    expect(await s.leader('sel/2')).to.deep.equal({ leader: kh, value: 'h' });
    expect((await f.leader.inspect('sel/2')).waitingLeaseIds).to.deep.equal([]);

    // The leader's own lease expires: nobody leads (no phantom leader).
    const { leaseId: short } = await s.grant(1500);
    await s.resign(kh);
    await s.campaign('sel/2', short, 's');
    await waitFor('the short leader’s lease expired', async () => ((await s.leader('sel/2')).leader ? undefined : true), 10_000);
    expect((await f.leader.inspect('sel/2')).held).to.equal(false);
  });

  it('a waiting campaign with a timeout answers DEADLINE_EXCEEDED and leaves the queue', async () => {
    const s = client();
    const { leaseId: a } = await s.grant(TTL_MS);
    const { leaseId: b } = await s.grant(TTL_MS);
    await s.campaign('sel/3', a, 'a');
    const t0 = Date.now();
    const e = await failure(s.campaign('sel/3', b, 'b', { timeoutMs: 800 }));
    expect(e.codeName, e.message).to.equal('DEADLINE_EXCEEDED');
    expect(Date.now() - t0).to.be.at.least(700);
    expect((await f.leader.inspect('sel/3')).waitingLeaseIds).to.deep.equal([]);
  });

  it('request ids: a retried campaign answers the same leadership, a retried resign resigns once', async () => {
    const s = client();
    const { leaseId: a } = await s.grant(TTL_MS);
    const k1 = await s.campaign('sel/4', a, 'v', { requestId: 'sel4-campaign' });
    const k2 = await s.campaign('sel/4', a, 'v', { requestId: 'sel4-campaign' });
    expect(k2).to.deep.equal(k1);
    expect(await s.resign(k1, { requestId: 'sel4-resign' })).to.equal(true);
    expect(await s.resign(k1, { requestId: 'sel4-resign' })).to.equal(true); // the first answer, replayed
    // The campaign's leadership has ended since: its retry is ABORTED, not a new leadership.
    expect((await failure(s.campaign('sel/4', a, 'v', { requestId: 'sel4-campaign' }))).codeName).to.equal('ABORTED');
    expect((await f.leader.inspect('sel/4')).held).to.equal(false);
  });

  it('bad input is answered INVALID_ARGUMENT per operation, changes nothing, and the stream goes on', async () => {
    const s = client();
    const { leaseId: a } = await s.grant(TTL_MS);
    const big = await failure(s.campaign('sel/5', a, 'x'.repeat(1025)));
    expect(big.codeName).to.equal('INVALID_ARGUMENT');
    expect(big.message).to.contain('1024');
    expect((await failure(s.call('proclaim', { value: 'v' }))).codeName).to.equal('INVALID_ARGUMENT'); // no key
    expect((await failure(s.leader(''))).codeName).to.equal('INVALID_ARGUMENT');
    expect((await f.leader.inspect('sel/5')).held).to.equal(false);
    const address = s.address();
    expect((await s.campaign('sel/5', a, 'ok')).leaseId).to.equal(a);
    expect(s.address()).to.equal(address); // the same stream
  });

  it('a waiting campaign whose stream ends leaves the queue (like a cancelled unary call)', async () => {
    const s = client();
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await s.campaign('sel/6', a, 'a');
    const other = client();
    const cb = failure(other.campaign('sel/6', b, 'b'));
    await campaigning('sel/6', b);
    other.close();
    expect((await cb).codeName).to.equal('UNAVAILABLE');
    await waitFor(
      'the abandoned campaign left the queue',
      async () => ((await f.leader.inspect('sel/6')).waitingLeaseIds.length === 0 ? true : undefined),
      15_000,
    );
    expect((await f.leader.inspect('sel/6')).holderLeaseId).to.equal(a);
  });
});
