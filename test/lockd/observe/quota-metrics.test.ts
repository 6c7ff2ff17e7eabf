// Quotas on /metrics (observe/quota-metrics.ts): the shared principal's limits and use on a real
// node, and the bound on label cardinality (only the fullest principals get series).
import { expect } from 'chai';
import { shownPrincipals, QUOTA_METRIC_PRINCIPALS, type QuotaSource } from '../../../src/lockd/observe/quota-metrics.js';
import { QUOTA_KEYS, SHARED_PRINCIPAL, defaultQuotas, type Quotas } from '../../../src/lockd/state-machine/index.js';
import { metric } from '../../support/observe-client.js';
import { LockApi } from '../../support/lock-api-client.js';
import { startInProcessNode } from '../../support/in-process-node.js';

const zero: Quotas = Object.fromEntries(QUOTA_KEYS.map((k) => [k, 0])) as unknown as Quotas;

describe('quotas on /metrics', function () {
  this.timeout(60_000);

  it(`shows '*' and at most ${QUOTA_METRIC_PRINCIPALS} principals in all, the fullest first, however many there are`, () => {
    const used = new Map<string, Quotas>([[SHARED_PRINCIPAL, zero]]);
    for (let k = 0; k < 500; k++) used.set(`p${k}`, { ...zero, leases: k });
    const sm: QuotaSource = { quotaPrincipals: () => [...used.keys()], quotaOf: (p) => defaultQuotas(p), quotaUsage: (p) => used.get(p) ?? zero };
    const { rows, total } = shownPrincipals(sm);
    expect(total).to.equal(501);
    expect(rows.map((r) => r.principal)).to.deep.equal([SHARED_PRINCIPAL, ...Array.from({ length: QUOTA_METRIC_PRINCIPALS - 1 }, (_, i) => `p${499 - i}`)]);
  });

  it("a node shows the shared principal's limits and what it uses", async () => {
    const n = await startInProcessNode();
    const api = new LockApi(n.address);
    try {
      const scrape = async () => (await fetch(`http://127.0.0.1:${n.httpPort}/metrics`)).text();
      const before = await scrape();
      for (let k = 0; k < 3; k++) await api.grant(60_000, { requestId: `q-${k}` });
      const text = await scrape();
      const d = defaultQuotas(SHARED_PRINCIPAL);
      expect(metric(text, 'lockd_quota_limit', { principal: SHARED_PRINCIPAL, quota: 'leases' })).to.equal(d.leases);
      const used = (t: string, quota: string) => metric(t, 'lockd_quota_used', { principal: SHARED_PRINCIPAL, quota }) ?? NaN;
      expect(used(text, 'leases') - used(before, 'leases'), 'leases granted').to.equal(3);
      expect(used(text, 'dedup_ids') - used(before, 'dedup_ids'), 'request ids remembered').to.equal(3);
      expect(metric(text, 'lockd_quota_principals')).to.be.at.least(1);
    } finally {
      api.close();
      await n.stop();
    }
  });
});
