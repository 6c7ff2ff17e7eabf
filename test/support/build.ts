// The node and lockctl run in tests from the build (dist/), not through tsx: a node then starts in
// a fraction of the time. The first fixture of a mocha process builds once (incremental, so an
// unchanged tree takes about a second), so a test never runs a stale build of the code under test.
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DIST = join(ROOT, 'dist');
/** Built entry points. */
export const NODE_MAIN = join(DIST, 'src', 'lockd', 'main.js');
export const LOCKCTL_MAIN = join(DIST, 'src', 'client', 'lockctl.js');

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILD_TIMEOUT_MS = 180_000;

let built: Promise<void> | undefined;

/** Build src/ into dist/ (what `npm run build` does), once per process. */
export function ensureBuilt(): Promise<void> {
  // A parallel run built it once in mocha's main process before any worker started (root-hooks.ts).
  if (process.env.LOCKD_TEST_BUILT === '1') return Promise.resolve();
  built ??= build().catch((e: unknown) => {
    built = undefined; // a later fixture tries again
    throw e;
  });
  return built;
}

function build(): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = [TSC, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', join(DIST, '.tsbuildinfo')];
    const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`building dist/ for the tests failed (${signal ?? `exit ${code}`}):\n${output}`));
      // The build reads proto/ from dist/proto (src/proto/load.ts) and serves the dashboard from
      // dist/dashboard (observe/dashboard-files.ts). Copied over in place, never removed first:
      // another mocha process may be starting a node from this dist/ right now.
      cpSync(join(ROOT, 'proto'), join(DIST, 'proto'), { recursive: true });
      cpSync(join(ROOT, 'dashboard'), join(DIST, 'dashboard'), { recursive: true });
      resolve();
    });
  });
}
