// The story a packaged client must tell against a real cluster: a holder program takes
// a lock and fence-writes with its token; the test pauses it (SIGSTOP: every thread, as a long GC
// pause would) past its lease; the test's own client is granted the lock — the cluster expired the
// paused lease — and writes with the higher token; the holder resumes, must see its loss signal,
// and its late write with the old token must be refused. The holder reports JSON lines: imported {file}, holding
// {token, lease}, lost {why}, write {refused, code}, read {value, token}, then exits 0.
import { expect } from 'chai';
import { LockClient } from '../../src/client/index.js';
import type { ProcessCluster } from './process-cluster.js';
import { ScriptProcess, type Program } from './script-process.js';

/** The holder's lease TTL: short, so the pause outlasts it quickly. */
export const HOLDER_TTL_MS = 1500;
/** Bound on each step (a loaded 2-core machine): the holder starting, the expiry, the wake-up. */
const STEP_MS = 30_000;

/**
 * `program(args)`: the holder, given ENDPOINTS NAME KEY TTL_MS; it first reports `imported {file}`,
 * where its client package was loaded from, which must be under `installedIn` (not the repo).
 * `lossWhys`: the loss reasons its client may give.
 */
export async function pausedHolderStory(
  cluster: ProcessCluster,
  program: (args: string[]) => Program,
  installedIn: string,
  lossWhys: readonly string[],
): Promise<void> {
  const tag = Math.random().toString(36).slice(2, 8);
  const name = `pkg-story-${tag}`;
  const key = `pkg-story-${tag}/row`;
  const endpoints = cluster.nodes.map((n) => n.address);
  const holder = new ScriptProcess(program([endpoints.join(','), name, key, String(HOLDER_TTL_MS)]));
  const client = new LockClient({ endpoints });
  try {
    const imported = await holder.waitFor((r) => r.event === 'imported', STEP_MS, 'the holder loading its client');
    expect(String(imported.file), 'the client was loaded from the installed package').to.satisfy((f: string) => f.startsWith(installedIn));
    const holding = await holder.waitFor((r) => r.event === 'holding', STEP_MS, 'the holder holding the lock');
    const token = Number(holding.token);
    holder.signal('SIGSTOP');
    // Queued behind the paused holder: granted by the entry that expires its lease.
    const next = await client.acquire(name, { ttlMs: 10_000, wait: true, timeoutMs: HOLDER_TTL_MS + STEP_MS });
    expect(next.token, 'the next grant has a higher token').to.be.greaterThan(token);
    await client.fenceWrite(key, 'v2', next.token, { lock: name });
    holder.signal('SIGCONT');

    const lost = await holder.waitFor((r) => r.event === 'lost', STEP_MS, 'the loss signal');
    expect(lost.why, JSON.stringify(lost)).to.be.oneOf(lossWhys);
    expect(lost.token).to.equal(token);
    const write = await holder.waitFor((r) => r.event === 'write', STEP_MS, 'the late write');
    expect(write, 'the late write with the old token is refused').to.include({ refused: true, code: 'FAILED_PRECONDITION' });
    const read = await holder.waitFor((r) => r.event === 'read', STEP_MS, 'the read');
    expect(read, "the store keeps the next holder's write").to.include({ value: 'v2', token: next.token });
    expect(await holder.exited(STEP_MS), holder.stderr).to.equal(0);
    await next.release();
  } finally {
    await holder.stop();
    client.close();
  }
}
