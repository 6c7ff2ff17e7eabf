// Lease.List is paged (proto/lockd.proto LeaseListRequest; src/lockd/api/list-page.ts): default and
// maximum page sizes, the token, a bad token refused, a request from before paging answered with the
// first page, and the TypeScript client's iterator following the pages to the end. Real processes.
import { expect } from 'chai';
import { ProcessCluster } from '../../support/process-cluster.js';
import { LockApi, statusOf } from '../../support/lock-api-client.js';
import { LockClient } from '../../../src/client/lock-client.js';
import { SessionClient } from '../../../src/client/session-client.js';

const LEASES = 2_500;

describe('lock API: Lease.List pages', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let api: LockApi;
  let client: LockClient;
  let session: SessionClient;
  let ids: number[] = [];

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const leader = await cluster.waitForLeader(undefined, 60_000);
    const address = cluster.node(leader).address;
    api = new LockApi(address);
    client = new LockClient({ endpoints: cluster.nodes.map((n) => n.address) });
    session = new SessionClient({ endpoints: [address] });
    for (let i = 0; i < LEASES; i += 500) {
      const got = await Promise.all(Array.from({ length: Math.min(500, LEASES - i) }, () => session.grant(600_000, { requestId: '' })));
      ids.push(...got.map((g) => g.leaseId));
    }
    ids = ids.sort((a, b) => a - b);
  });
  after(async () => {
    session?.close();
    client?.close();
    api?.close();
    await cluster?.stop();
  });

  it('answers a request from before paging with the first 1,000 leases and a token for the rest', async () => {
    const r = await api.list();
    expect(r.leases.map((l) => l.leaseId)).to.deep.equal(ids.slice(0, 1000));
    expect(r.nextPageToken).to.not.equal('');
  });

  it('follows tokens page by page, ascending, each live lease once, even with leases ended between pages', async () => {
    const seen: number[] = [];
    let token = '';
    let pages = 0;
    do {
      const r = await api.list({ pageSize: 700, pageToken: token });
      expect(r.leases.length).to.be.at.most(700);
      seen.push(...r.leases.map((l) => l.leaseId));
      token = r.nextPageToken;
      // A lease already listed ends between pages: the next page starts after the token all the same.
      if (pages++ === 0) await api.revoke(r.leases[699].leaseId);
    } while (token !== '');
    expect(pages).to.equal(Math.ceil(LEASES / 700));
    expect(seen).to.deep.equal(ids);
    ids = ids.filter((id) => id !== seen[699]);
  });

  it('takes a page size above the maximum as the maximum (10,000), and ends with an empty token', async () => {
    const r = await api.list({ pageSize: 50_000 });
    expect(r.leases.map((l) => l.leaseId)).to.deep.equal(ids);
    expect(r.nextPageToken).to.equal('');
  });

  it('refuses a token it did not make with INVALID_ARGUMENT naming page_token', async () => {
    for (const bad of ['x', 'l1.', 'l1.0', 'l1.-5', 'l1.99999999999999999', ' l1.5']) {
      const st = await statusOf(api.list({ pageToken: bad }));
      expect(st.code, bad).to.equal(3);
      expect(st.details, bad).to.match(/page_token .* is not a token this server returned/);
    }
  });

  it("the client's leasePages iterator and listLeases follow every page (lockctl lease list uses listLeases)", async () => {
    const pages: number[][] = [];
    for await (const page of client.leasePages({ pageSize: 1000 })) pages.push(page.map((l) => l.leaseId));
    expect(pages.map((p) => p.length)).to.deep.equal([1000, 1000, ids.length - 2000]);
    expect(pages.flat()).to.deep.equal(ids);
    expect((await client.listLeases()).map((l) => l.leaseId)).to.deep.equal(ids);
  });
});
