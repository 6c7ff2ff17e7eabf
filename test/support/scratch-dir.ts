// A temporary directory for a scratch project outside the repo: deleted after the suite, kept (and
// its path printed) when a test or hook of the suite failed, for a look at what was installed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class ScratchDir {
  readonly path: string;
  private failed = false;

  constructor(prefix: string) {
    this.path = mkdtempSync(join(tmpdir(), prefix));
  }

  /** Call from afterEach with mocha's current test. */
  note(test: Mocha.Test | undefined): void {
    if (test?.state === 'failed') this.failed = true;
  }

  /** Call from after: removes it unless something failed. */
  finish(hookFailed = false): void {
    if (this.failed || hookFailed) {
      console.error(`scratch project kept at ${this.path}`);
      return;
    }
    rmSync(this.path, { recursive: true, force: true });
  }
}

/** The environment for a tool run in a scratch project: without what `npm test` or a caller's
 * Python set (npm_config_prefix and the like would point npm back at the repo; PYTHONPATH at its sources). */
export function scratchEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'PYTHONPATH' || k === 'PYTHONHOME') continue;
    env[k] = v;
  }
  return env;
}
