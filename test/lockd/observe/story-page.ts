// Story mode in a real browser, for the tests and the screenshot command: `lockctl demo NAME
// --dashboard` (the build) on a ./cluster.sh cluster, the page opened at the address the demo
// prints, the demo run to its end, and the final page kept as a PNG.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { LOCKCTL_MAIN, ROOT } from '../../support/build.js';
import { reapOnExit } from '../../support/reaper.js';
import type { ScriptCluster } from '../../support/script-cluster.js';

export const STUDY_DOCS = join(ROOT, 'docs', 'study');
const ARTIFACTS = join(ROOT, '.artifacts', 'study');

export interface StoryRun {
  readonly page: Page;
  /** The demo's stdout lines so far. */
  readonly lines: string[];
  /** Resolves with the demo's exit code (bounded: killed after 90 s). */
  readonly exit: Promise<number | null>;
  readonly proc: ChildProcess;
}

/**
 * Start `lockctl demo NAME --dashboard --story-port PORT --step STEP` and open its page (once the
 * demo prints the address); the demo waits for the page before its first step.
 */
export async function startStory(browser: Browser, cluster: ScriptCluster, name: string, storyPort: number, stepMs: number): Promise<StoryRun> {
  const proc = spawn(process.execPath, [LOCKCTL_MAIN, 'demo', name, '--dashboard', '--story-port', String(storyPort), '--step', String(stepMs)], {
    cwd: ROOT,
    env: { ...process.env, ...cluster.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  reapOnExit(proc);
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000);
  const exit = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) lines.push(`(stderr) ${stderr}`);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      lines.push(l);
      const m = /^story mode: open (\S+)/.exec(l);
      if (m) resolve(m[1]);
    });
    void exit.then((code) => reject(new Error(`the demo exited ${code} before printing its page:\n${lines.join('\n')}\n${stderr}`)));
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
  await page.goto(url);
  return { page, lines, exit, proc };
}

/** Stop a demo still running (a failed test): SIGINT, so it undoes its faults before the next test's demo starts. */
export async function endStory(run: StoryRun): Promise<void> {
  await run.page.close();
  if (run.proc.exitCode !== null || run.proc.signalCode !== null) return;
  run.proc.kill('SIGINT');
  await run.exit;
}

/** The final page as docs/study/NAME.png (.artifacts/study/ on every run; docs/ with LOCKD_UPDATE_DOCS_SCREENSHOT=1). */
export async function keepShot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.LOCKD_UPDATE_DOCS_SCREENSHOT === '1') {
    mkdirSync(STUDY_DOCS, { recursive: true });
    copyFileSync(file, join(STUDY_DOCS, `${name}.png`));
  }
}
