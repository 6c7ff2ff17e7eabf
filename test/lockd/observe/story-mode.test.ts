// Story mode, the done-when of the study dashboard: `lockctl demo gc-pause --dashboard` drives the
// page on a real 3-node ./cluster.sh cluster in headless Debian chromium, and the page shows what
// the paused client believed against what the cluster decided — A's trust deadline (its own clock)
// passes before the cluster grants the lock to B; the refused write with both tokens; the granting
// entry in the log strip — and during `whole-cluster-crash` the panels say "unknown" while every
// node is down. The other five demos run on the page too, each checked for its outcome and its
// story (every printed step a caption, its faults as rows). Every demo's final page is kept in
// .artifacts/study/NAME.png, and with LOCKD_UPDATE_DOCS_SCREENSHOT=1 (`npm run screenshot`) in
// docs/study/ as well.
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../../support/process-cluster.js';
import { ScriptCluster } from '../../support/script-cluster.js';
import { endStory, keepShot, startStory, type StoryRun } from './story-page.js';

const fmt = (x: number) => x.toLocaleString('en-US');
/** The pause between steps: long enough for the page to draw each one, short for the suite. */
const STEP_MS = 250;

describe('study dashboard, story mode: a demo drives the page (chromium, 3-node ./cluster.sh cluster)', function () {
  this.timeout(60_000);
  let cluster: ScriptCluster;
  let browser: Browser | undefined;
  let storyPort: number;
  const pageErrors: string[] = [];

  before(async () => {
    cluster = await ScriptCluster.start(3); // test faults on: partitioned-leader and clock-jump need them
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    storyPort = await freePort();
  });
  after(async () => {
    await browser?.close();
    await cluster?.stop();
  });

  it("gc-pause: A's trust deadline passes before the cluster grants B the lock; the refused write shows both tokens; the log strip shows the granting entry", async () => {
    const run = await startStory(browser!, cluster, 'gc-pause', storyPort, STEP_MS);
    const { page, lines } = run;
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      // The granting entry, while it is among the strip's last entries: the Tick the demo prints.
      const tickLine = await waitLine(lines, /^\s*\d+\s+#(\d+)\s+Tick: logical now (\d+) ms passed lease (\d+)'s deadline (\d+) ms/, 30_000);
      const grantIndex = Number(tickLine[1]);
      expect(Number(tickLine[2])).to.be.at.least(Number(tickLine[4])); // the Tick's why, with its numbers
      await page.locator(`.node .strip .entry.grants[data-index="${grantIndex}"]`).first().waitFor({ timeout: 5_000 });
      expect(await page.locator(`.node .strip .entry[data-index="${grantIndex}"]`).first().getAttribute('data-grants')).to.match(/→ lease \d+, token \d+/);
      expect(await run.exit, lines.join('\n')).to.equal(0);
      await page.locator('body[data-story-state="ok"]').waitFor({ timeout: 5_000 });

      // The client timeline: A's own trust deadline, then the cluster's expiry of A's lease and its grant to B.
      const at = async (sel: string) => Number(await page.locator(sel).first().getAttribute('data-at', { timeout: 5_000 }));
      const trustA = await at('#clients .lane[data-client="A"] [data-mark="trust-deadline"]');
      const expiredA = await at('#clients .lane[data-client="A"] [data-mark="expired"]');
      const grantedB = await at('#clients .lane[data-client="B"] [data-mark="granted"]');
      expect(trustA, 'A stops trusting before the cluster expires its lease').to.be.below(expiredA);
      expect(expiredA).to.be.at.most(grantedB + 5); // the same entry (each mark as the first node reported it)
      expect(trustA, "A's trust deadline passes before B is granted").to.be.below(grantedB);
      // A froze while holding: "still thinks it holds", from the pause past its trust deadline and B's grant.
      const paused = page.locator('#clients .lane[data-client="A"] .belief[data-belief="paused"]');
      expect(await paused.textContent()).to.match(/still thinks it holds demo\/gc-pause\//);
      expect(Number(await paused.getAttribute('data-to'))).to.be.above(grantedB);
      // A's late write: a refused call on A's lane, and the refusal with both tokens on the timeline.
      const [, stale, highest] = (lines.map((l) => /REFUSED \((\d+) < (\d+)\)/.exec(l)).find(Boolean) ?? []).map(Number);
      expect(stale, lines.join('\n')).to.be.below(highest);
      expect(await page.locator('#clients .lane[data-client="A"] .op.refused').last().getAttribute('title')).to.contain(`token ${stale}`);
      await page
        .locator('#timeline li.kind-refused', { hasText: `${fmt(stale)} < ${fmt(highest)}` })
        .first()
        .waitFor({ timeout: 5_000 });
      // The demo's steps are rows too, in the (term, index) order the header claims.
      expect(await page.locator('#timeline li[data-type="story-line"]').count()).to.be.above(5);
      const pos = await page
        .locator('#timeline li')
        .evaluateAll((els) => els.map((e) => [Number((e as HTMLElement).dataset.term), Number((e as HTMLElement).dataset.pos)]));
      for (let k = 1; k < pos.length; k++) expect(pos[k][0] * 1e9 + pos[k][1], `row ${k}`).to.be.at.most(pos[k - 1][0] * 1e9 + pos[k - 1][1]);
      expect(await page.locator('#story .caption').textContent()).to.match(/^OK: A's write with stale token \d+ was refused/);
      await keepShot(page, 'gc-pause');
      expect(pageErrors).to.deep.equal([]);
    } finally {
      await endStory(run);
    }
  });

  it('whole-cluster-crash: while every node is down the panels say "unknown", and a row says so; after the restart the grant is back', async () => {
    const run = await startStory(browser!, cluster, 'whole-cluster-crash', storyPort, STEP_MS);
    const { page, lines } = run;
    page.on('pageerror', (e) => pageErrors.push(e.message));
    try {
      const unknown = page.locator('#locks .unknown').waitFor({ timeout: 30_000 });
      await unknown;
      expect(await page.locator('#leases .unknown').count()).to.equal(1);
      expect(await page.locator('#locks .empty').count()).to.equal(0);
      expect(await run.exit, lines.join('\n')).to.equal(0);
      await page.locator('body[data-story-state="ok"]').waitFor({ timeout: 5_000 });
      await page.locator('#timeline li[data-type="all-down"]').waitFor({ timeout: 5_000 });
      expect(await page.locator('#timeline li[data-type="story-fault"]', { hasText: 'killed (kill -9)' }).count()).to.equal(3);
      await page.locator('.node[data-status="live"]').nth(2).waitFor({ timeout: 15_000 });
      await keepShot(page, 'whole-cluster-crash');
      expect(pageErrors).to.deep.equal([]);
    } finally {
      await endStory(run);
    }
  });

  /** What each of the other demos must show on the page, besides its outcome and every step. */
  const others: ReadonlyArray<{ name: string; what: string; check: (page: Page) => Promise<void> }> = [
    {
      name: 'holder-crash',
      what: "the killed `lockctl run` holder's call ends killed; B is granted the lock",
      check: async (page) => {
        expect(await page.locator('#clients .lane[data-client="holder"] .op.refused').first().getAttribute('title')).to.contain('killed by SIGKILL');
        await page.locator('#clients .lane[data-client="B"] [data-mark="granted"]').first().waitFor({ timeout: 5_000 });
      },
    },
    {
      name: 'slow-release',
      what: 'A and B each have a lane; B is granted the lock',
      check: async (page) => {
        await page.locator('#clients .lane[data-client="A"] .op').first().waitFor({ timeout: 5_000 });
        await page.locator('#clients .lane[data-client="B"] [data-mark="granted"]').first().waitFor({ timeout: 5_000 });
      },
    },
    {
      name: 'leader-failover',
      what: "the leader's kill and restart are rows",
      check: async (page) => {
        await faultRow(page, 'killed (kill -9)');
        await faultRow(page, 'restarted from its data dir');
      },
    },
    {
      name: 'partitioned-leader',
      what: 'the isolate and the heal are rows',
      check: async (page) => {
        await faultRow(page, 'isolated: its Raft messages dropped');
        await faultRow(page, 'healed: Raft messages flow again');
      },
    },
    {
      name: 'clock-jump',
      what: 'the clock jump is a row',
      check: async (page) => {
        await faultRow(page, 'clock jumps 60000 ms');
      },
    },
  ];
  for (const demo of others) {
    it(`${demo.name}: its outcome and every step it printed are on the page; ${demo.what}`, async () => {
      const run = await startStory(browser!, cluster, demo.name, storyPort, STEP_MS);
      run.page.on('pageerror', (e) => pageErrors.push(e.message));
      try {
        await storyDone(run);
        await demo.check(run.page);
        await keepShot(run.page, demo.name);
        expect(pageErrors).to.deep.equal([]);
      } finally {
        await endStory(run);
      }
    });
  }
});

/**
 * The demo exited 0 and the page shows its end: the OK caption it printed, and one step per line of
 * its timeline, in order.
 */
async function storyDone(run: StoryRun): Promise<void> {
  const { page, lines } = run;
  expect(await run.exit, lines.join('\n')).to.equal(0);
  await page.locator('body[data-story-state="ok"]').waitFor({ timeout: 5_000 });
  const ok = lines.find((l) => l.startsWith('OK: '));
  expect(await page.locator('#story .caption').textContent(), lines.join('\n')).to.equal(ok);
  const printed = lines.flatMap((l) => /^\s*(?:\d+|·)\s+(?:#\d+|·)\s{2}(.*)$/.exec(l)?.slice(1) ?? []);
  expect(await page.locator('#story .steps li > span:last-child').allTextContents()).to.deep.equal(printed);
}

/** A fault row on the timeline with this text (bounded wait). */
async function faultRow(page: Page, text: string): Promise<void> {
  await page.locator('#timeline li[data-type="story-fault"]', { hasText: text }).first().waitFor({ timeout: 5_000 });
}

/** Wait for a demo output line matching `re` (bounded). */
async function waitLine(lines: string[], re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    for (const l of lines) {
      const m = re.exec(l);
      if (m) return m;
    }
    if (Date.now() > end) throw new Error(`no line matching ${re} within ${timeoutMs} ms:\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
