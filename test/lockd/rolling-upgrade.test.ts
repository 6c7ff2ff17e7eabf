// The rolling upgrade (real processes): a 3-node cluster of the previous release
// (compat/previous-release, built in a git worktree) with a lock held and fenced writes flowing is
// upgraded one node at a time — SIGTERM, then this build on the same data dir — and checked:
//  - no acknowledged fenced write is lost (every key reads the last value acknowledged for it, or a
//    later attempt's), and every write under the held lock's token was accepted (the grant stayed current);
//  - no lock is held twice: two workers contend for one lock; every grant is acknowledged only after
//    the previous grant's release was sent, and its fenced write with that lock's check is accepted;
//  - tokens increase: grant after grant, across every restart;
//  - the held lock is kept throughout: its lease (kept alive by the client) is never lost, and the
//    lock keeps its holder and token;
//  - each upgraded node migrated its data dir (storage 2 → 3, the old dir kept beside it) and says
//    so; while an old node remains the cluster version stays 0.1.0, every old node keeps applying (a
//    Tick stating the cluster version would stop it: the previous release's decoder refuses it,
//    checked here with that build's own codec), and once all run this build it is 0.2.0 and the
//    leader's Ticks state it.
// Part of npm test: building the previous release takes ~11 s, the whole file ~45 s on 2 cores.
// It needs the clone's history (a shallow clone fails, saying so).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { LockClient, type Lock } from '../../src/client/index.js';
import { LOCKD_VERSION } from '../../src/lockd/node/versions.js';
import { encodeCommand, type TickCommand } from '../../src/lockd/state-machine/index.js';
import { LOCKCTL_MAIN, ROOT } from '../support/build.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { killNow, reapOnExit } from '../support/reaper.js';

const PREVIOUS = readFileSync(join(ROOT, 'compat', 'previous-release'), 'utf8')
  .split('\n')[0]
  .trim();

/** Run a command to completion; its output, or a rejection with it. */
function run(cmd: string, args: readonly string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    reapOnExit(proc);
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const timer = setTimeout(() => killNow(proc, false), timeoutMs);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (${signal ?? `exit ${code}`}):\n${out}`));
    });
  });
}

const deps = (dir: string): string => {
  const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  return JSON.stringify([p.dependencies, p.devDependencies]);
};

/** The previous release's tree and build, in a git worktree under `parent`. */
async function buildPrevious(parent: string): Promise<{ dir: string; main: string; notes: string[] }> {
  const notes: string[] = [];
  try {
    await run('git', ['cat-file', '-e', `${PREVIOUS}^{commit}`], ROOT, 30_000);
  } catch {
    throw new Error(`compat/previous-release names ${PREVIOUS}, which this clone does not hold (a shallow clone? git fetch --unshallow)`);
  }
  const dir = join(parent, 'previous');
  await run('git', ['worktree', 'add', '--detach', dir, PREVIOUS], ROOT, 60_000);
  if (deps(dir) === deps(ROOT) && existsSync(join(ROOT, 'node_modules'))) {
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
    notes.push('node_modules: linked (same dependencies)');
  } else {
    await run('npm', ['ci', '--no-audit', '--no-fund'], dir, 600_000);
    notes.push('node_modules: npm ci (its dependencies differ)');
  }
  // What its `npm run build` does.
  await run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], dir);
  cpSync(join(dir, 'proto'), join(dir, 'dist', 'proto'), { recursive: true });
  cpSync(join(dir, 'dashboard'), join(dir, 'dist', 'dashboard'), { recursive: true });
  return { dir, main: join(dir, 'dist', 'src', 'lockd', 'main.js'), notes };
}

interface Grant {
  readonly worker: number;
  readonly token: number;
  readonly ackedAt: number;
  releaseSentAt?: number;
}

describe('rolling upgrade from the previous release (compat/previous-release) to this build', function () {
  this.timeout(900_000);
  let parent: string;
  let previous: { dir: string; main: string; notes: string[] };
  let cluster: ProcessCluster | undefined;
  const clients: LockClient[] = [];

  /** LOCKD_PREVIOUS_BUILD=DIR: a checkout of that commit already built (kept; for reruns while debugging). */
  const prebuilt = process.env.LOCKD_PREVIOUS_BUILD;

  before(async () => {
    parent = mkdtempSync(join(tmpdir(), 'lockd-upgrade-'));
    const t0 = Date.now();
    if (prebuilt) {
      const head = (await run('git', ['rev-parse', 'HEAD'], prebuilt, 30_000)).trim();
      if (head !== PREVIOUS) throw new Error(`LOCKD_PREVIOUS_BUILD=${prebuilt} is at ${head}, not compat/previous-release ${PREVIOUS}`);
      previous = { dir: prebuilt, main: join(prebuilt, 'dist', 'src', 'lockd', 'main.js'), notes: ['prebuilt (LOCKD_PREVIOUS_BUILD)'] };
    } else previous = await buildPrevious(parent);
    process.stderr.write(`  previous release ${PREVIOUS.slice(0, 12)} built in ${Math.round((Date.now() - t0) / 1000)} s (${previous.notes.join('; ')})\n`);
  });

  after(async () => {
    for (const c of clients) c.close();
    await cluster?.stop();
    if (previous && !prebuilt)
      await run('git', ['worktree', 'remove', '--force', previous.dir], ROOT, 60_000).catch((e: unknown) => process.stderr.write(`${(e as Error).message}\n`));
    rmSync(parent, { recursive: true, force: true });
  });

  it("the previous release's command decoder refuses a Tick stating the cluster version, and reads one without it", async () => {
    const old = (await import(pathToFileURL(join(previous.dir, 'dist', 'src', 'lockd', 'state-machine', 'command-codec.js')).href)) as {
      decodeCommand(d: Uint8Array): unknown;
    };
    const plain: TickCommand = { type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [7] };
    expect(old.decodeCommand(encodeCommand(plain))).to.deep.equal(plain);
    expect(() => old.decodeCommand(encodeCommand({ ...plain, clusterVersion: '0.2.0' }))).to.throw(/presence bits/);
  });

  it('keeps the held lock, every acknowledged fenced write and increasing tokens, one node at a time', async () => {
    const oldBuild = { main: previous.main, cwd: previous.dir };
    // Snapshots every 1000 entries: nodes of both builds take them, and a restarted node may catch up by one.
    cluster = await ProcessCluster.start({ size: 3, startNodes: false, extraArgs: ['--snapshot-every', '1000'] });
    const c = cluster;
    for (const n of c.nodes) c.startNode(n.id, {}, [], oldBuild);
    await c.waitForLeader();
    for (const s of await c.statuses()) expect(s.version, 'the previous release states no version').to.equal('');

    const client = new LockClient({ endpoints: c.nodes.map((n) => n.address), timeoutMs: 5000 });
    clients.push(client);
    const problems: string[] = [];
    let stop = false;

    // The held lock, its lease kept alive by the client.
    const heldLease = await client.grantLease(10_000);
    const held = await client.acquire('upgrade/held', { lease: heldLease, wait: false });
    heldLease.signal.addEventListener('abort', () => problems.push(`the held lock's lease was lost: ${String(heldLease.signal.reason)}`));

    // Fenced writes under the held lock's token, sequential, each retried with its request id until acknowledged.
    const KEYS = 12;
    const acked = new Map<string, number>();
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const key = `upgrade/data/${i % KEYS}`;
        const requestId = randomUUID();
        for (;;) {
          try {
            await client.fenceWrite(key, String(i), held.token, { lock: 'upgrade/held', requestId, timeoutMs: 3000 });
            acked.set(key, i);
            writes++;
            break;
          } catch (e) {
            const code = (e as { codeName?: string }).codeName;
            if (code === 'FAILED_PRECONDITION' || code === 'NOT_FOUND') {
              problems.push(`fenced write ${i} under the held lock refused: ${(e as Error).message}`);
              return;
            }
            if (stop) return;
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }
    })();

    // Two workers contend for one lock: grants, in order, must never overlap.
    const grants: Grant[] = [];
    const churn = async (worker: number): Promise<void> => {
      const lease = await client.grantLease(10_000);
      lease.signal.addEventListener('abort', () => problems.push(`churn worker ${worker}'s lease was lost`));
      while (!stop) {
        let lock: Lock | undefined;
        try {
          lock = await client.tryAcquire('upgrade/churn', { lease, timeoutMs: 3000 });
        } catch {
          // Outcome unknown (an election): if our lease got it, give it back before going on.
          const info = await client.inspect('upgrade/churn').catch(() => undefined);
          if (info?.holderLeaseId === lease.id) await client.release('upgrade/churn', info.fencingToken, { leaseId: lease.id }).catch(() => {});
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        if (!lock) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const g: Grant = { worker, token: lock.token, ackedAt: performance.now() };
        grants.push(g);
        try {
          await client.fenceWrite('upgrade/churn-owner', `${worker}:${lock.token}`, lock.token, { lock: 'upgrade/churn', timeoutMs: 3000 });
        } catch (e) {
          const code = (e as { codeName?: string }).codeName;
          if (code === 'FAILED_PRECONDITION') problems.push(`worker ${worker}'s grant ${lock.token} was not the lock's current one: ${(e as Error).message}`);
        }
        g.releaseSentAt = performance.now();
        for (;;) {
          try {
            await lock.release();
            break;
          } catch {
            // A retry after a release that applied is refused as stale: done if the grant is gone.
            const info = await client.inspect('upgrade/churn').catch(() => undefined);
            if (stop || (info && info.fencingToken !== lock.token)) break;
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }
    };
    const workers = [churn(1), churn(2)];

    const progress = async (what: string): Promise<void> => {
      const w = writes;
      const g = grants.length;
      await waitFor(`fenced writes and grants after ${what}`, () => (writes >= w + 10 && grants.length >= g + 3 ? true : undefined), 30_000);
    };
    // What an operator sees (docs/operating.md §4 shows these): lockctl status of this build.
    const show = async (when: string): Promise<void> => {
      const out = await run(process.execPath, [LOCKCTL_MAIN, '--endpoints', c.nodes.map((n) => n.address).join(','), 'status'], ROOT, 30_000).catch(
        (e: unknown) => (e as Error).message,
      );
      process.stderr.write(`  lockctl status ${when}:\n${out.replace(/^/gm, '    ')}\n`);
    };
    const checkHeld = async (when: string): Promise<void> => {
      const info = await client.inspect('upgrade/held');
      expect(info.holderLeaseId, `holder of the held lock ${when}`).to.equal(heldLease.id);
      expect(info.fencingToken, `token of the held lock ${when}`).to.equal(held.token);
    };
    await progress('the start');
    await checkHeld('on the previous release');
    await show('on the previous release');

    // Followers first, the leader last (it hands leadership over on SIGTERM, to an upgraded node if one leads next).
    const leader = await c.waitForLeader();
    const order = [...c.nodes.map((n) => n.id).filter((id) => id !== leader), leader];
    const upgraded: string[] = [];
    for (const id of order) {
      const proc = c.node(id).proc!;
      const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
      c.signal(id, 'SIGTERM');
      expect(await exited, `${id} (previous release) exits 0 on SIGTERM`).to.equal(0);
      c.startNode(id);
      upgraded.push(id);
      const leaderNow = await c.waitForLeader(undefined, 30_000);
      const commit = (await c.status(leaderNow)).commitIndex;
      await waitFor(
        `${id} on this build, caught up`,
        async () => {
          const s = await c.status(id, 500);
          return s.version === LOCKD_VERSION && s.appliedIndex >= commit ? true : undefined;
        },
        30_000,
      );
      await c.waitForLog(id, 'migrated from storage format 2 to 3');
      const backups = readdirSync(c.baseDir).filter((f) => f.startsWith(`${id}.storage-2-backup-`));
      expect(backups, `${id}'s copy of its format 2 data dir`).to.have.length(1);
      const remaining = order.filter((x) => !upgraded.includes(x));
      if (remaining.length > 0) {
        // Mixed: every upgraded node sees the old ones (which state no version): cluster version 0.1.0.
        for (const u of upgraded)
          await waitFor(
            `${u} to count the cluster at 0.1.0`,
            async () => {
              const s = await c.status(u, 500);
              return s.clusterVersion === '0.1.0' && s.clusterVersionComplete ? true : undefined;
            },
            15_000,
          );
        await progress(`upgrading ${id}`);
        // The old nodes still run and apply what the (possibly new) leader commits.
        const commitNow = (await c.status(await c.waitForLeader())).commitIndex;
        for (const r of remaining) expect(c.isRunning(r), `${r} (previous release) still running`).to.equal(true);
        await c.waitForApplied(commitNow, remaining, 15_000);
      } else {
        await progress(`upgrading ${id}`);
      }
      await checkHeld(`after upgrading ${id}`);
      await show(`after upgrading ${id}`);
      if (upgraded.length === 1)
        process.stderr.write(
          `  ${id}'s log: ${
            c
              .log(id)
              .split('\n')
              .find((l) => l.includes('data dir migrated')) ?? '(no migration line)'
          }\n`,
        );
      expect(problems, `after upgrading ${id}`).to.deep.equal([]);
    }

    // All on this build: cluster version 0.2.0 everywhere, and the leader's Ticks state it.
    for (const n of c.nodes)
      await waitFor(
        `${n.id} to count the cluster at ${LOCKD_VERSION}`,
        async () => {
          const s = await c.status(n.id, 500);
          return s.clusterVersion === LOCKD_VERSION && s.clusterVersionComplete ? true : undefined;
        },
        15_000,
      );
    await progress('the last upgrade');

    stop = true;
    await writer;
    await Promise.all(workers);
    expect(problems).to.deep.equal([]);

    // No acknowledged write lost.
    for (const [key, i] of acked) {
      const v = await client.fenceRead(key);
      expect(Number(v.value.toString('utf8')), `${key}: the last acknowledged value (${i}) or a later attempt's`).to.be.at.least(i);
      expect(v.fencingToken).to.equal(held.token);
    }
    expect(acked.size).to.equal(KEYS);
    // No lock held twice, tokens increasing.
    const sorted = [...grants].sort((a, b) => a.token - b.token);
    expect(new Set(grants.map((g) => g.token)).size, 'every grant its own token').to.equal(grants.length);
    for (let k = 1; k < sorted.length; k++) {
      expect(sorted[k].ackedAt, `grant ${sorted[k].token} acknowledged after grant ${sorted[k - 1].token} was released`).to.be.above(
        sorted[k - 1].releaseSentAt ?? Infinity,
      );
      expect(sorted[k].token).to.be.above(held.token);
    }
    // The held lock, kept throughout.
    expect(heldLease.lost).to.equal(false);
    expect(held.signal.aborted).to.equal(false);
    await checkHeld('at the end');
    process.stderr.write(
      `  ${writes} fenced writes acknowledged, ${grants.length} grants of the contended lock, tokens ${sorted[0]?.token}..${sorted.at(-1)?.token}\n`,
    );

    // The leader's Ticks state it now (a Tick carries it once per change and term).
    const statedBy = await waitFor(
      'a leader to state the cluster version in the log',
      () => c.nodes.find((n) => c.log(n.id).includes(`cluster version ${LOCKD_VERSION} stated in the log`))?.id,
      15_000,
    );
    expect(statedBy).to.be.a('string');
  });
});
