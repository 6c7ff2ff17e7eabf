// The cluster ./cluster.sh runs, as lockctl finds it: LOCKD_CLUSTER_DIR (default .cluster/ of the
// working directory) holds its size, its members and, with --tls, its certificates; LOCKD_BASE_PORT
// (default 7001) is node I's client port minus I-1. Without these lockctl would dial 7001..7005 —
// possibly another cluster — and plaintext to a TLS one.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DEFAULT_BASE_PORT = 7001;

export function clusterDir(env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, env.LOCKD_CLUSTER_DIR || '.cluster');
}

/**
 * The client endpoints of the cluster.sh cluster named by LOCKD_CLUSTER_DIR / LOCKD_BASE_PORT, or
 * undefined when neither is set (the caller keeps its defaults). Members: the dir's `members` file,
 * else 1..`size`; a dir with neither (no cluster started there yet) gives nodes 1..5.
 */
export function clusterShEndpoints(env: NodeJS.ProcessEnv, cwd: string): string[] | undefined {
  if (!env.LOCKD_CLUSTER_DIR && !env.LOCKD_BASE_PORT) return undefined;
  const base = env.LOCKD_BASE_PORT ? Number(env.LOCKD_BASE_PORT) : DEFAULT_BASE_PORT;
  if (!Number.isInteger(base) || base < 1 || base > 65_535 - 300)
    throw new Error(`LOCKD_BASE_PORT ${JSON.stringify(env.LOCKD_BASE_PORT)} is not a port (1..65235)`);
  const dir = clusterDir(env, cwd);
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  let members = read('members')
    .split('\n')
    .map(Number)
    .filter((i) => Number.isInteger(i) && i >= 1 && i <= 100);
  if (members.length === 0) {
    const size = Number(read('size').trim());
    members = Array.from({ length: Number.isInteger(size) && size >= 1 && size <= 100 ? size : 5 }, (_, k) => k + 1);
  }
  return members.map((i) => `127.0.0.1:${base + i - 1}`);
}
