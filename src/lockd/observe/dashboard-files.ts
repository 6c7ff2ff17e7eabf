// The study dashboard's files (dashboard/ at the repository root; `npm run build` copies it to
// dist/dashboard, as it does proto/). Read once at start into memory and served from there: a
// request names a file of this fixed set or gets 404, so no request path ever reaches the disk.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Three levels up from this file: src/lockd/observe → dashboard/, dist/src/lockd/observe → dist/dashboard/. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/', import.meta.url));

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};
const NAME = /^[a-z][a-z0-9-]*\.(html|js|css|svg|png)$/;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 64;

export interface DashboardFile {
  readonly body: Buffer;
  readonly type: string;
}

export class DashboardFiles {
  private constructor(
    private readonly files: ReadonlyMap<string, DashboardFile>,
    /** Why there are none ('' when loaded). */
    readonly problem: string,
  ) {}

  static load(dir = DASHBOARD_DIR): DashboardFiles {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      return new DashboardFiles(new Map(), `the dashboard's files are not at ${dir}: ${(e as Error).message}`);
    }
    const files = new Map<string, DashboardFile>();
    for (const name of names
      .filter((n) => NAME.test(n))
      .sort()
      .slice(0, MAX_FILES)) {
      const path = join(dir, name);
      try {
        const st = statSync(path);
        if (!st.isFile() || st.size > MAX_FILE_BYTES) continue;
        files.set(name, { body: readFileSync(path), type: TYPES[name.slice(name.lastIndexOf('.') + 1)] });
      } catch {
        continue; // gone or unreadable: not served (the node starts without it)
      }
    }
    if (!files.has('index.html')) return new DashboardFiles(new Map(), `no index.html in ${dir}`);
    return new DashboardFiles(files, '');
  }

  /** The file for a request path ('/' is index.html); undefined: not one of ours. */
  get(path: string): DashboardFile | undefined {
    const name = path === '/' ? 'index.html' : path.slice(1);
    return NAME.test(name) ? this.files.get(name) : undefined;
  }
}
