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

export const DEMO_TIMEOUT_MS = 120_000;

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
  let cluster: ClusterControl;
  let tapTls: TapTls | undefined;
  try {
    cluster = ClusterControl.open(io.env);
    const tls = cluster.tls;
    if (tls) tapTls = { ca: readFileSync(tls.cacert), cert: readFileSync(tls.cert), key: readFileSync(tls.key) };
  } catch (e) {
    io.stderr.write(`lockctl: ${(e as Error).message}\n`);
    return 1;
  }
  const timeline = new Timeline(io.stdout as never, io.json);
  const signal = AbortSignal.any([io.interrupted, AbortSignal.timeout(DEMO_TIMEOUT_MS)]);
  const events = new EventTap(cluster.nodes.map((i) => cluster.httpAddress(i)), tapTls);
  // The cluster's own TLS files, not lockctl's --cacert or the working directory's .cluster/tls:
  // those may be another cluster's (LOCKD_CLUSTER_DIR), and a demo needs root, the admin: it takes
  // any lock and reads every node's /events.
  const tls = cluster.tls;
  // This lockctl's entry point, run the way this process runs (node, or node with tsx's loader).
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const lockctl = [...process.execArgv, fileURLToPath(new URL(`../../../client/lockctl.${ext}`, import.meta.url))];
  const d = new Demo({ cluster, events, timeline, lockctl, signal, ...(tls ? { tls } : {}) });
  const say = (line: string, data: Record<string, unknown>): void => {
    io.stdout.write(io.json ? `${JSON.stringify({ demo: name, ...data })}\n` : `${line}\n`);
  };
  say(`demo ${name}: ${scenario.title}`, { title: scenario.title });
  timeline.header();
  let code = 1;
  try {
    const aborted = new Promise<never>((_, reject) => {
      const fail = (): void => reject(new DemoFailure(io.interrupted.aborted ? 'interrupted' : `expected the demo to finish within ${DEMO_TIMEOUT_MS / 1000} s, but it did not`));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    const outcome = await Promise.race([scenario.run(d), aborted]);
    say(`OK: ${outcome}`, { ok: true, outcome });
    code = 0;
  } catch (e) {
    // A refused call (a LockdError: its gRPC code) is something seen; anything else is a bug here.
    const seen = e instanceof DemoFailure || e instanceof ClusterShError ? e.message : (e as { codeName?: string }).codeName ? `a call failed: ${(e as Error).message}` : `unexpected error: ${(e as Error).stack ?? String(e)}`;
    say(`FAILED: ${seen}`, { ok: false, seen });
  } finally {
    const problems = await d.finish();
    events.close();
    for (const p of problems) io.stderr.write(`lockctl: could not restore ${p}\n`);
    if (problems.length > 0) code = 1;
  }
  return code;
}
