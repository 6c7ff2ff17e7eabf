// The study dashboard in a real browser (Debian's chromium driven by playwright-core) on a real
// 5-node cluster: five nodes and one leader; Kleppmann's GC-pause scenario done through the public
// API, and the page showing the late write refused with both tokens, explained on click; then the
// node the page reads (the leader, which also served the page) is killed and the page reads another
// and keeps showing new decisions. A screenshot is kept in .artifacts/dashboard.png
// (LOCKD_UPDATE_DOCS_SCREENSHOT=1, or `npm run screenshot`: also docs/dashboard.png for docs/study.md).
import { expect } from 'chai';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ApiFixture, waitFor } from '../api/api-fixture.js';
import { freePort } from '../../support/process-cluster.js';
import { ROOT } from '../../support/build.js';
import { statusOf } from '../../support/lock-api-client.js';
import { LockClient } from '../../../src/client/index.js';

const ARTIFACT = join(ROOT, '.artifacts', 'dashboard.png');
const DOCS_SHOT = join(ROOT, 'docs', 'dashboard.png');
/** How the page prints numbers (toLocaleString en-US): 1234 → "1,234". */
const fmt = (x: number) => x.toLocaleString('en-US');

describe('study dashboard: a real browser on a real 5-node cluster', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  let browser: Browser | undefined;
  let page: Page;
  const httpPort = new Map<string, number>();
  const base = (id: string) => `http://127.0.0.1:${httpPort.get(id)}`;
  const pageErrors: string[] = [];
  let cancelWait: (() => void) | undefined;

  before(async () => {
    for (let k = 1; k <= 5; k++) httpPort.set(`n${k}`, await freePort());
    f = await ApiFixture.start({ size: 5, nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }) });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  after(async () => {
    cancelWait?.();
    await browser?.close(); // also when a test or a hook failed: nothing is left running
    await f?.stop();
  });
  afterEach(() => f.stopKeepers());

  it('shows five nodes and one leader, from the page a node serves', async () => {
    await page.goto(`${base(f.leaderId)}/`);
    await page.locator('.node[data-status="live"]').nth(4).waitFor({ timeout: 15_000 });
    expect(await page.locator('.node').count()).to.equal(5);
    await waitFor('one leader card', async () => ((await page.locator('.node[data-role="leader"]').count()) === 1 ? true : undefined));
    expect(await page.locator('.node[data-role="leader"]').getAttribute('data-node')).to.equal(f.leaderId);
    expect(await page.locator('.node[data-role="follower"]').count()).to.equal(4);
    // The election happened before the page opened: its row comes from the replayed history, with the votes that won it.
    const won = page.locator('#timeline li.kind-election', { hasText: `${f.leaderId} is leader of term` });
    await won.first().waitFor({ timeout: 10_000 });
    const [, votes] = /\((\d)\/5 votes, quorum 3\)/.exec((await won.first().textContent()) ?? '') ?? [];
    expect(Number(votes)).to.be.within(3, 5);
    expect(pageErrors).to.deep.equal([]);
  });

  it('GC pause: A\'s lease lapses, B gets a higher token, A\'s late fenced write is refused, and the page shows "A < B" and explains it', async () => {
    const api = f.leader;
    // Holder A: a short lease it does not keep alive (its process "paused"), the lock, one write.
    const a = await api.grant(300);
    const tokenA = (await api.acquire('gc-lock', a.leaseId)).fencingToken;
    await api.fenceWrite('gc-key', 'from A', tokenA);
    // A's lease expires by logical time; nothing is renewed.
    await waitFor("A's lease to expire", async () => ((await api.inspect('gc-lock')).held ? undefined : true), 15_000);
    // Holder B takes the lock: a higher token (the index of its granting entry), and writes.
    const b = await f.keptLease(10_000);
    const tokenB = (await api.acquire('gc-lock', b.leaseId)).fencingToken;
    expect(tokenB).to.be.greaterThan(tokenA);
    await api.fenceWrite('gc-key', 'from B', tokenB);
    // A third holder queues behind B (so the page shows a FIFO queue).
    const c = await f.keptLease(10_000);
    const waiting = api.acquireCancellable('gc-lock', c.leaseId);
    cancelWait = waiting.cancel;
    waiting.result.catch(() => undefined); // ended by the cancel below or the cluster stopping
    // A wakes up and writes with its old token: refused by the store.
    expect((await statusOf(api.fenceWrite('gc-key', 'late from A', tokenA))).code).to.equal(grpc.status.FAILED_PRECONDITION);

    const refused = page.locator('#timeline li.kind-refused', { hasText: `${fmt(tokenA)} < ${fmt(tokenB)}` });
    await refused.first().waitFor({ timeout: 10_000 });
    await refused.first().click();
    const why = await page.locator('#explain .sentence').textContent();
    expect(why).to.contain(`Fenced write refused: token ${fmt(tokenA)} < ${fmt(tokenB)}`);
    expect(why).to.contain('"gc-key"');
    // The other panels: B holds the lock with its token, C waits, the store's highest is B's token.
    const lock = page.locator('#locks tr[data-lock="gc-lock"]');
    await waitFor('gc-lock queued behind B on the page', async () => ((await lock.locator('.chip').count()) === 1 ? true : undefined), 10_000);
    expect(await lock.locator('td.token').textContent()).to.equal(fmt(tokenB));
    expect(await lock.locator('.chip').textContent()).to.equal(fmt(c.leaseId));
    const key = page.locator('#fence tr[data-key="gc-key"]');
    expect(await key.locator('td.token').textContent()).to.equal(fmt(tokenB));
    expect(await key.locator('.refusal').textContent()).to.contain(`refused ${fmt(tokenA)} < ${fmt(tokenB)}`);
    // A's lease expiry is on the timeline too, explained by logical now against its deadline.
    await page.locator('#timeline li[data-type="lease-ended"]', { hasText: `lease ${fmt(a.leaseId)} expired` }).click();
    expect(await page.locator('#explain .sentence').textContent()).to.match(
      new RegExp(`^Lease ${fmt(a.leaseId)} expired at index [\\d,]+: logical now [\\d,]+ ms passed its deadline [\\d,]+ ms`),
    );
    await refused.first().click();
    mkdirSync(join(ROOT, '.artifacts'), { recursive: true });
    await page.screenshot({ path: ARTIFACT, fullPage: true });
    if (process.env.LOCKD_UPDATE_DOCS_SCREENSHOT === '1') {
      mkdirSync(join(ROOT, 'docs'), { recursive: true });
      copyFileSync(ARTIFACT, DOCS_SHOT);
    }
    expect(pageErrors).to.deep.equal([]);
  });

  it("a page opened after the GC pause shows the refusal too: from the node's replayed history, not the page's memory", async () => {
    const late = await browser!.newPage({ viewport: { width: 1440, height: 1100 } });
    late.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      await late.goto(`${base(f.leaderId)}/`);
      const key = late.locator('#fence tr[data-key="gc-key"] .refusal');
      await key.waitFor({ timeout: 10_000 });
      expect(await key.textContent()).to.match(/^refused [\d,]+ < [\d,]+ at #[\d,]+$/);
      expect(await key.textContent()).to.equal(await page.locator('#fence tr[data-key="gc-key"] .refusal').textContent());
      await late.locator('#timeline li.kind-refused', { hasText: 'fenced write refused' }).first().waitFor({ timeout: 10_000 });
      await late.locator('#timeline li[data-type="lease-ended"]').first().waitFor({ timeout: 10_000 });
      // Rows in log order, newest first: indexes never go up down the list.
      const indexes = await late
        .locator('#timeline li[data-index]:not([data-index=""])')
        .evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.index)));
      expect(indexes.length).to.be.above(2);
      expect(indexes).to.deep.equal([...indexes].sort((a, b) => b - a));
    } finally {
      await late.close();
    }
  });

  it("lock modes: a semaphore's permits used/limit, shared readers, an election's leader and value, a lock-delay's end", async () => {
    const client = new LockClient({ endpoints: f.cluster.nodes.map((n) => n.address) });
    const abort = new AbortController();
    try {
      const sem = await Promise.all([
        client.acquire('m/sem', { ttlMs: 10_000, wait: false, permits: 3 }),
        client.acquire('m/sem', { ttlMs: 10_000, wait: false, permits: 3 }),
      ]);
      await Promise.all([
        client.acquire('m/rw', { ttlMs: 10_000, wait: false, shared: true }),
        client.acquire('m/rw', { ttlMs: 10_000, wait: false, shared: true }),
      ]);
      const voter = await client.grantLease(10_000);
      const key = await client.campaign('m/elect', voter.id, 'first');
      await client.proclaim(key, 'proclaimed');
      const holder = await client.acquire('m/delay', { ttlMs: 10_000, wait: false, lockDelayMs: 5_000 });
      const waiter = client.acquire('m/delay', { ttlMs: 10_000, wait: true, signal: abort.signal });
      waiter.catch(() => undefined);
      await waitFor('the waiter queued', async () => ((await client.inspect('m/delay')).waitingLeaseIds.length === 1 ? true : undefined));
      await holder.lease.revoke(); // the lock-delay starts: the waiter is not granted before it ends

      const row = (name: string) => page.locator(`#locks tr[data-lock="${name}"]`);
      await row('m/sem').locator('.mode', { hasText: 'semaphore · 2/3 permits used' }).waitFor({ timeout: 10_000 });
      expect(await row('m/sem').locator('[data-share="exclusive"]').count()).to.equal(2);
      expect(await row('m/rw').locator('.mode').textContent()).to.equal('read-write · 2 shared readers');
      expect(await row('m/rw').locator('[data-share="shared"]').count()).to.equal(2);
      await row('m/elect')
        .locator('.mode', { hasText: `election · leader lease ${fmt(voter.id)} = "proclaimed"` })
        .waitFor({ timeout: 10_000 });
      const delay = await row('m/delay').locator('.delay').textContent({ timeout: 10_000 });
      expect(delay).to.match(/^lock-delay until [\d,]+ ms \([\d,]+ ms left\)$/);
      expect(await row('m/delay').locator('td.holders').textContent()).to.equal('free');
      void sem;
    } finally {
      abort.abort();
      client.close();
    }
    expect(pageErrors).to.deep.equal([]);
  });

  it("log strip: each live card shows its log's last entries by term, up to its last index; the leader lists every follower's match and next", async () => {
    const card = page.locator(`.node[data-node="${f.leaderId}"]`);
    await card.locator('.progress .follower').nth(3).waitFor({ timeout: 10_000 });
    const shown = await card.evaluate((el) => ({
      last: Number(el.querySelector('.stat:nth-of-type(2) .v')!.textContent!.replace(/,/g, '')),
      cells: [...el.querySelectorAll('.strip .entry')].map((c) => ({ index: Number((c as HTMLElement).dataset.index), term: (c as HTMLElement).dataset.term })),
      followers: [...el.querySelectorAll('.progress .follower')].map((r) => ({ id: (r as HTMLElement).dataset.follower, text: r.textContent })),
    }));
    expect(shown.cells.length).to.equal(24);
    expect(shown.cells.map((c) => c.index)).to.deep.equal(shown.cells.map((_, k) => shown.cells[0].index + k));
    expect(shown.cells.at(-1)!.index).to.be.within(shown.last - 5, shown.last + 5); // both read within one render
    expect(shown.cells.some((c) => c.term === String(1) || Number(c.term) > 0)).to.equal(true);
    expect(shown.followers.map((x) => x.id).sort()).to.deep.equal(['n1', 'n2', 'n3', 'n4', 'n5'].filter((id) => id !== f.leaderId));
    for (const x of shown.followers) expect(x.text).to.match(/match [\d,]+ · next [\d,]+/);
    expect(pageErrors).to.deep.equal([]);
  });

  it('the node the page reads is killed (the leader that served it): the page reads another and still shows new decisions', async () => {
    const reading = await page.locator('body').getAttribute('data-primary');
    expect(reading).to.equal(f.leaderId); // it reads the leader when it can
    await f.cluster.kill(reading!);
    await page.locator(`.node[data-node="${reading}"][data-status="down"]`).waitFor({ timeout: 15_000 });
    const leader = await f.refreshLeader();
    expect(leader).to.not.equal(reading);
    // The page reads the new leader once that node itself reports it leads.
    await page.locator(`body[data-primary="${leader}"] .node[data-node="${leader}"][data-role="leader"]`).waitFor({ timeout: 15_000 });
    // A decision made after the kill reaches the page.
    const d = await f.keptLease(10_000);
    const token = (await f.leader.acquire('after-kill', d.leaseId)).fencingToken;
    const row = page.locator('#locks tr[data-lock="after-kill"]');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('td.token').textContent()).to.equal(fmt(token));
    await page
      .locator('#timeline li.kind-grant', { hasText: `"after-kill" granted to lease ${fmt(d.leaseId)}, token ${fmt(token)}` })
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('.node[data-status="live"]').count()).to.equal(4);
    // The refusal is still shown: the node read now replayed it (the page reconnected to it afresh).
    expect(await page.locator('#fence tr[data-key="gc-key"] .refusal').textContent()).to.match(/^refused [\d,]+ < [\d,]+ at #/);
    expect(pageErrors).to.deep.equal([]);
  });

  it('every node down: the panels say "unknown — no node reachable", not "no lock is held"', async () => {
    await Promise.all(f.cluster.nodes.map((n) => f.cluster.kill(n.id)));
    await waitFor('every card down', async () => ((await page.locator('.node[data-status="live"]').count()) === 0 ? true : undefined), 15_000);
    for (const panel of ['leases', 'locks', 'fence']) {
      await page.locator(`#${panel} .unknown`).waitFor({ timeout: 5_000 });
      expect(await page.locator(`#${panel} .empty`).count(), panel).to.equal(0);
    }
    expect(await page.locator('#status').textContent()).to.contain('no node reachable');
    expect(pageErrors).to.deep.equal([]);
  });
});
