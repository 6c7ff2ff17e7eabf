// The cluster's own controls (Membership, Cluster.TransferLeader, Auth) are admin-only whenever
// client certificates are verified, with --acl or without: a certificate of the cluster's CA with
// no rules must not list, add or remove members or move leadership. With no admin named at all
// (no --admin), nobody may, and the refusal says how to name one. Real node processes.
import { expect } from 'chai';
import { LockClient } from '../../src/client/index.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { failure } from '../support/lockd-failure.js';

describe('admin-only controls with client certificates and no --acl (real processes)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  const certs: Record<string, CertFiles> = {};
  const clients: LockClient[] = [];
  const clientAs = (who: string, endpoints = cluster.nodes.map((n) => n.address)) => {
    certs[who] ??= pki.client(who);
    const c = new LockClient({ endpoints, cacert: pki.caCert, cert: certs[who].cert, key: certs[who].key, timeoutMs: 10_000, watchLocks: false });
    clients.push(c);
    return c;
  };

  before(async () => {
    pki = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, startNodes: false });
    for (const n of cluster.nodes) cluster.startNode(n.id, {}, ['--admin', 'root']);
    await cluster.waitForLeader();
  });
  after(async function () {
    for (const c of clients) c.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it('--admin root without --acl: a principal with no rules may not list, add, remove members or transfer leadership; root may', async () => {
    const leaderId = await cluster.waitForLeader();
    const follower = cluster.nodes.find((n) => n.id !== leaderId)!;
    const root = clientAs('root');
    const before = await root.memberList();
    for (const endpoints of [[cluster.node(leaderId).address], [follower.address]]) {
      const mallory = clientAs('mallory', endpoints);
      for (const p of [
        mallory.memberList(),
        mallory.memberAdd({ id: 'n9', peerUrl: '127.0.0.1:1' }),
        mallory.memberRemove(follower.id),
        mallory.transferLeader(follower.id),
        mallory.aclGrant({ principal: 'mallory', verb: 'admin', prefix: '' }),
      ]) {
        const e = await failure(p);
        expect(e.codeName, e.details).to.equal('PERMISSION_DENIED');
        expect(e.details).to.contain('mallory may not').and.contain('`admin`');
      }
    }
    const after = await root.memberList();
    expect(after.configIndex).to.equal(before.configIndex);
    expect(after.members.map((m) => `${m.id}:${m.role}`)).to.deep.equal(before.members.map((m) => `${m.id}:${m.role}`));
    expect(cluster.isRunning(follower.id), `${follower.id} still runs`).to.equal(true);
  });

  it('client certificates and no --admin: nobody is admin, and the refusal says to start with --admin', async () => {
    for (const n of cluster.nodes) await cluster.kill(n.id);
    for (const n of cluster.nodes) cluster.startNode(n.id);
    const leaderId = await cluster.waitForLeader();
    const root = clientAs('root', [cluster.node(leaderId).address]);
    for (const p of [root.memberList(), root.transferLeader(), root.aclList()]) {
      const e = await failure(p);
      expect(e.codeName, e.details).to.equal('PERMISSION_DENIED');
      expect(e.details).to.contain('root may not').and.contain('--admin');
    }
  });
});
