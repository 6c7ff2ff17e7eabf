// Election operations on the Session stream with --acl (the recipes under the access rules), on real node
// processes with mTLS and test-made certificates: they need the verbs the unary Election RPCs need
// (Campaign, Proclaim, Resign `lock` on the name; Leader `lock` or `read`), a campaign needs the
// lease's owner, and a refusal changes nothing — also the cleanup of another principal's abandoned
// campaign (no orphan leadership).
import { expect } from 'chai';
import { LockClient, LockdError, SessionClient } from '../../src/client/index.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { failure } from '../support/lockd-failure.js';

describe('Election on the Session stream with --acl (real processes, test-made certificates)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  const certs: Record<string, CertFiles> = {};
  const closers: Array<() => void> = [];
  let root: LockClient;

  const tls = (who: string) => {
    certs[who] ??= pki.client(who);
    return { endpoints: cluster.nodes.map((n) => n.address), cacert: pki.caCert, cert: certs[who].cert, key: certs[who].key, timeoutMs: 10_000 };
  };
  const sessionAs = (who: string) => {
    // Leader discovery over fresh TLS connections can take longer than the default 500 ms on a loaded
    // machine; without a leader the session would open on the first endpoint and fail UNAVAILABLE.
    const s = new SessionClient({ ...tls(who), discoverTimeoutMs: 5000 });
    closers.push(() => s.close());
    return s;
  };

  before(async () => {
    pki = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, extraArgs: ['--acl', '--admin', 'root'] });
    await cluster.waitForLeader();
    root = new LockClient({ ...tls('root'), watchLocks: false });
    closers.push(() => root.close());
    for (const [principal, verb, prefix] of [
      ['alice', 'lock', 'el/'],
      ['bob', 'lock', 'el/'],
      ['reader', 'read', 'el/'],
    ] as const)
      expect(await root.aclGrant({ principal, verb, prefix })).to.equal(true);
  });
  after(async function () {
    for (const c of closers.splice(0)) c();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it('campaign, proclaim and resign need `lock` on the name, leader `lock` or `read`; a campaign needs its lease’s owner; refusals change nothing', async () => {
    const alice = sessionAs('alice');
    const bob = sessionAs('bob');
    const reader = sessionAs('reader');
    const carol = sessionAs('carol');
    const denied = (e: LockdError, what: string, ...says: string[]) => {
      expect(e.codeName, `${what}: ${e.message}`).to.equal('PERMISSION_DENIED');
      for (const s of says) expect(e.message, what).to.contain(s);
    };
    const { leaseId: a } = await alice.grant(30_000);
    const key = await alice.campaign('el/x', a, 'alice-1');

    // reader may read the leader, and nothing else.
    expect(await reader.leader('el/x')).to.deep.equal({ leader: key, value: 'alice-1' });
    denied(await failure(reader.campaign('el/x', a, 'reader', { timeoutMs: 5000 })), 'reader campaign', 'reader may not campaign in "el/x"', '`lock`');
    denied(await failure(reader.proclaim(key, 'reader')), 'reader proclaim', '`lock`');
    denied(await failure(reader.resign(key)), 'reader resign', '`lock`');
    // carol has no rules: not even the leader.
    denied(await failure(carol.leader('el/x')), 'carol leader');
    // alice's verb is on el/ only.
    denied(await failure(alice.campaign('other/x', a, 'v', { timeoutMs: 5000 })), 'alice elsewhere', '"other/x"');
    // bob may campaign in el/, but not with alice's lease (refused before it joins the queue).
    denied(await failure(bob.campaign('el/x', a, 'bob', { timeoutMs: 5000 })), 'bob with alice’s lease', `lease ${a}`);

    // Nothing changed: alice leads with her value, nobody waits.
    expect(await root.leader('el/x')).to.deep.equal({ leader: key, value: 'alice-1' });
    expect((await root.inspect('el/x')).waitingLeaseIds).to.deep.equal([]);
    expect((await root.inspect('other/x')).held).to.equal(false);
    await alice.proclaim(key, 'alice-2');
    expect(await alice.resign(key)).to.equal(true);
    expect(await root.leader('el/x')).to.deep.equal({ value: '' });
    await alice.revoke(a);
  });

  // Both ways in: the Session operation and the unary RPC run the same Campaign (before the fix the
  // unary one skipped the ownership check too).
  for (const via of ['session', 'unary'] as const)
    it(`alice's refused campaign (${via}) with bob's waiting lease does not stop the cleanup of bob's abandoned campaign (no orphan leadership)`, async () => {
      const name = `el/q-${via}`;
      const bob = sessionAs('bob');
      const campaignAs = (who: string) => {
        if (via === 'session') return sessionAs(who);
        const c = new LockClient({ ...tls(who), watchLocks: false });
        closers.push(() => c.close());
        return c;
      };
      const bobCampaigns = campaignAs('bob');
      const alice = campaignAs('alice');
      const { leaseId: holder } = await bob.grant(30_000);
      const { leaseId: waiter } = await bob.grant(30_000);
      await bob.campaign(name, holder, 'holder');
      // bob's second lease campaigns with a short timeout; at the deadline the leader cancels its queue entry.
      const waiting = failure(bobCampaigns.campaign(name, waiter, 'waiter', { timeoutMs: 4000 }));
      await waitFor('bob campaigns', async () => ((await root.inspect(name)).waitingLeaseIds.includes(waiter) ? true : undefined));
      // alice (who may lock el/) campaigns with bob's lease: refused...
      const forged = await failure(alice.campaign(name, waiter, 'alice', { timeoutMs: 10_000 }));
      expect(forged.codeName, forged.message).to.equal('PERMISSION_DENIED');
      expect((await waiting).codeName).to.equal('DEADLINE_EXCEEDED');
      // ...and bob's abandoned campaign still leaves the queue: the holder's end leaves nobody leading.
      await waitFor('bob’s abandoned campaign cancelled', async () => ((await root.inspect(name)).waitingLeaseIds.includes(waiter) ? undefined : true), 10_000);
      await bob.revoke(holder);
      expect(await root.leader(name)).to.deep.equal({ value: '' });
      await bob.revoke(waiter);
    });
});
