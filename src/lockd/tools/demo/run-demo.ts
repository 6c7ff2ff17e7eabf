// `lockctl demo NAME`: one classic scenario replayed on the live cluster.sh cluster, printed as a
// timeline keyed by (term, index). Exit 0 when the expected outcome was observed, 1 with what was
// seen when not, 2 for an unknown name. Every demo is bounded (DEMO_TIMEOUT_MS) and leaves the
// cluster as it found it (faults undone, clients closed, child processes killed).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ToolIo } from '../../../client/lockctl/tools.js';
import { ClusterControl, ClusterShError } from './cluster-control.js';
import { EventTap, type TapTls } from './event-tap.js';
import { Demo, DemoFailure, Timeline } from './framework.js';
import { SCENARIOS } from './scenarios/index.js';
import { Story } from './story.js';
import { StoryServer } from './story-server.js';

export const DEMO_TIMEOUT_MS = 120_000;
/** Story mode: the pause after each step unless --step says, and how long to wait for a page first. */
export const STORY_STEP_MS = 1500;
export const STORY_WAIT_MS = 60_000;

export function demoList(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length));
  return SCENARIOS.map((s) => `  ${s.name.padEnd(width)}  ${s.title}`).join('\n');
}

export async function runDemo(name: string, io: ToolIo): Promise<number> {
  if (name === 'list') {
    io.stdout.write(`${demoList()}\n`);
    return 0;
  }
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) {
    io.stderr.write(`lockctl: unknown demo ${JSON.stringify(name)}; one of:\n${demoList()}\n`);
    return 2;
  }
  const opened = openCluster(io);
  if (typeof opened === 'number') return opened;
  const { cluster, tapTls } = opened;
  const events = new EventTap(
    cluster.nodes.map((i) => cluster.httpAddress(i)),
    tapTls,
  );
  const story = io.story ? new Story(() => events.position()) : undefined;
  const server = story ? await listenForStory(io, cluster, story, events) : undefined;
  if (typeof server === 'number') return server;
  const stepMs = io.story?.stepMs ?? STORY_STEP_MS;
  const timeline = new Timeline(io.stdout as never, io.json, story);
  const signal = AbortSignal.any([io.interrupted, AbortSignal.timeout(DEMO_TIMEOUT_MS)]);
  // The cluster's own TLS files, not lockctl's --cacert or the working directory's .cluster/tls:
  // those may be another cluster's (LOCKD_CLUSTER_DIR), and a demo needs root, the admin: it takes
  // any lock and reads every node's /events.
  const tls = cluster.tls;
  // This lockctl's entry point, run the way this process runs (node, or node with tsx's loader).
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const lockctl = [...process.execArgv, fileURLToPath(new URL(`../../../client/lockctl.${ext}`, import.meta.url))];
  const d = new Demo({ cluster, events, timeline, lockctl, signal, ...(tls ? { tls } : {}), ...(story ? { story, stepMs } : {}) });
  const say: Say = (line, data) => {
    io.stdout.write(io.json ? `${JSON.stringify({ demo: name, ...data })}\n` : `${line}\n`);
  };
  say(`demo ${name}: ${scenario.title}`, { title: scenario.title });
  if (server && story) await waitForStoryPage(io, cluster, story, server, { name, title: scenario.title, stepMs, tls: tls !== undefined }, say);
  timeline.header();
  let code = 1;
  try {
    code = await play(scenario, d, io, signal, story, say);
  } finally {
    const problems = await d.finish();
    events.close();
    await server?.close();
    for (const p of problems) io.stderr.write(`lockctl: could not restore ${p}\n`);
    if (problems.length > 0) code = 1;
  }
  return code;
}

/** A line for people, or its JSON object with --json. */
type Say = (line: string, data: Record<string, unknown>) => void;

/** cluster.sh's cluster and the TLS files its /events are read with, or exit 1 (after saying why). */
function openCluster(io: ToolIo): { cluster: ClusterControl; tapTls: TapTls | undefined } | number {
  try {
    const cluster = ClusterControl.open(io.env);
    const tls = cluster.tls;
    const tapTls = tls ? { ca: readFileSync(tls.cacert), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } : undefined;
    return { cluster, tapTls };
  } catch (e) {
    io.stderr.write(`lockctl: ${(e as Error).message}\n`);
    return 1;
  }
}

/** Story mode's server, or exit 1 (after saying why, the event tap closed) if it cannot listen. */
async function listenForStory(io: ToolIo, cluster: ClusterControl, story: Story, events: EventTap): Promise<StoryServer | number> {
  // Beside cluster.sh's ports (client BASE.., peer BASE+100.., HTTP BASE+200..): BASE+299 by default.
  const port = io.story?.port ?? Number(cluster.httpAddress(1).split(':')[1]) + 99;
  try {
    return await StoryServer.listen(
      story,
      port,
      cluster.nodes.map((i) => `http://${cluster.httpAddress(i)}`),
    );
  } catch (e) {
    events.close();
    io.stderr.write(`lockctl: story mode cannot listen on 127.0.0.1:${port}: ${(e as Error).message}\n`);
    return 1;
  }
}

/** Story mode: say where the page is, wait a bounded time for one, then begin the story. */
async function waitForStoryPage(
  io: ToolIo,
  cluster: ClusterControl,
  story: Story,
  server: StoryServer,
  demo: { name: string; title: string; stepMs: number; tls: boolean },
  say: Say,
): Promise<void> {
  const { name, title, stepMs } = demo;
  const page = `http://${cluster.httpAddress(1)}/?story=${server.url}`;
  const tlsNote = demo.tls ? ' (a TLS cluster: story mode reads the story over plain HTTP, which an HTTPS page may not; use a plaintext cluster to study)' : '';
  say(`story mode: open ${page} — waiting up to ${STORY_WAIT_MS / 1000} s for the page; ${stepMs} ms between steps${tlsNote}`, {
    story: server.url,
    page,
    stepMs,
  });
  if (!(await server.waitForPage(STORY_WAIT_MS, io.interrupted)))
    say('story mode: no page connected; the demo runs anyway (a page opened later replays it while it runs)', { storyWaited: STORY_WAIT_MS });
  story.publish({ kind: 'begin', demo: name, title, stepMs });
}

/** The scenario, bounded by `signal`: 0 when it saw what it expected, 1 with what it saw instead. */
async function play(scenario: (typeof SCENARIOS)[number], d: Demo, io: ToolIo, signal: AbortSignal, story: Story | undefined, say: Say): Promise<number> {
  try {
    const aborted = new Promise<never>((_, reject) => {
      const fail = (): void =>
        reject(new DemoFailure(io.interrupted.aborted ? 'interrupted' : `expected the demo to finish within ${DEMO_TIMEOUT_MS / 1000} s, but it did not`));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    const outcome = await Promise.race([scenario.run(d), aborted]);
    say(`OK: ${outcome}`, { ok: true, outcome });
    story?.publish({ kind: 'end', ok: true, text: outcome });
    return 0;
  } catch (e) {
    // A refused call (a LockdError: its gRPC code) is something seen; anything else is a bug here.
    const seen =
      e instanceof DemoFailure || e instanceof ClusterShError
        ? e.message
        : (e as { codeName?: string }).codeName
          ? `a call failed: ${(e as Error).message}`
          : `unexpected error: ${(e as Error).stack ?? String(e)}`;
    say(`FAILED: ${seen}`, { ok: false, seen });
    story?.publish({ kind: 'end', ok: false, text: seen });
    return 1;
  }
}
