// Loaded by mocha in its main process and in every parallel worker (.mocharc.cjs `require`).
// - Counts every failure, of a test or a hook, in the process where it ran: the process fixtures
//   (failures.ts) keep the data and logs of a cluster that saw one. The reporter cannot count them
//   in parallel mode: it runs in the main process, the fixtures in the workers.
// - In a parallel run, builds dist/ once before any worker starts (mochaGlobalSetup runs only in
//   the main process): two workers building at once would rewrite files a third's node is loading.
// - In a parallel run, a directory where freePort() reserves ports across the workers.
import Mocha from 'mocha';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from './build.js';

type Fail = (this: unknown, ...args: unknown[]) => unknown;
const proto = Mocha.Runner.prototype as unknown as { fail: Fail; __lockdCounted?: true };
if (!proto.__lockdCounted) {
  const fail = proto.fail;
  proto.fail = function (this: unknown, ...args: unknown[]) {
    globalThis.__lockdTestFailures = (globalThis.__lockdTestFailures ?? 0) + 1;
    return fail.apply(this, args);
  };
  proto.__lockdCounted = true;
}

const parallel = process.env.LOCKD_TEST_PARALLEL === '1';
let portsDir: string | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  if (!parallel) return;
  await ensureBuilt();
  process.env.LOCKD_TEST_BUILT = '1';
  portsDir = mkdtempSync(join(tmpdir(), 'lockd-test-ports-'));
  process.env.LOCKD_TEST_PORTS_DIR = portsDir;
}

export function mochaGlobalTeardown(): void {
  if (portsDir) rmSync(portsDir, { recursive: true, force: true });
}
