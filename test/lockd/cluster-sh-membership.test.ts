// The operator's drill with ./cluster.sh, as a fresh clone runs it: start 3, add twice,
// replace 2 (kill n2, wipe it, add a fresh node under a new id, promote it, remove n2), while a
// client holds a lock whose fencing token never changes and whose lease never lapses. Real
// processes under the script, in a data dir and on ports of this test's own (LOCKD_CLUSTER_DIR,
// LOCKD_BASE_PORT): the user's .cluster/ is never touched.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LockClient, type Lease, type Lock } from '../../src/client/index.js';
import { execFile } from 'node:child_process';
import { ensureBuilt, LOCKCTL_MAIN, ROOT } from '../support/build.js';
import { freeClusterShBase } from '../support/process-cluster.js';

/** Ports node I uses: clients BASE+I-1, peers BASE+100+I-1, HTTP BASE+200+I-1 (cluster.sh). */
const NODES = 6;

function script(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn('bash', [join(ROOT, 'cluster.sh'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`cluster.sh ${args.join(' ')} did not finish in 90 s:\n${output}`));
    }, 90_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('cluster.sh membership drill (real processes)', function () {
  this.timeout(300_000);
  let dir: string | undefined;
  let env: NodeJS.ProcessEnv = {};
  let client: LockClient | undefined;

  afterEach(async function () {
    client?.close();
    client = undefined;
    if (!dir) return;
    await script(env, 'stop');
    if (this.currentTest?.state === 'failed') process.stderr.write(`cluster.sh drill data dirs and logs kept at ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('start 3, add twice, replace 2, lockctl leader transfer: 5 voters (n1 n3 n4 n5 n6), n2 removed for good, a new leader, and the lock held throughout keeps its token and its lease', async () => {
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'lockd-drill-'));
    const base = await freeClusterShBase(NODES);
    env = { ...process.env, LOCKD_CLUSTER_DIR: join(dir, 'cluster'), LOCKD_BASE_PORT: String(base), LOCKD_SKIP_BUILD: '1' };
    const run = async (...args: string[]): Promise<string> => {
      const r = await script(env, ...args);
      expect(r.code, `cluster.sh ${args.join(' ')}:\n${r.output}`).to.equal(0);
      return r.output;
    };
    await run('start', '3');

    client = new LockClient({ endpoints: [0, 1, 2].map((k) => `127.0.0.1:${base + k}`) });
    let leaseLost: unknown;
    let lockLost: unknown;
    const lease: Lease = await client.grantLease(3000);
    lease.on('lost', (e) => (leaseLost = e));
    const lock: Lock = await client.acquire('drill', { lease });
    lock.signal.addEventListener('abort', () => (lockLost = lock.signal.reason));
    const token = lock.token;

    expect(await run('add')).to.match(/n4 is a voter/);
    expect(await run('add')).to.match(/n5 is a voter/);
    expect(await run('replace', '2')).to.match(/n2 replaced by n6/);

    const status = await run('status');
    expect(status).to.match(/removed for good: n2/);
    for (const id of ['n1', 'n3', 'n4', 'n5', 'n6']) expect(status).to.match(new RegExp(`^${id}( \\*)?\\s+voter\\s`, 'm'));
    const list = await client.memberList();
    expect(list.members.map((m) => m.id)).to.have.members(['n1', 'n3', 'n4', 'n5', 'n6']);
    expect(list.members.every((m) => m.role === 'voter')).to.equal(true);

    // lockctl leader transfer on the new membership: another voter leads, without an election timeout.
    const before = list.leaderId;
    const endpoints = list.members.map((m) => m.clientAddress).join(',');
    const transfer = await new Promise<{ code: number | null; out: string }>((resolve) =>
      execFile(process.execPath, [LOCKCTL_MAIN, '--endpoints', endpoints, 'leader', 'transfer'], { timeout: 20_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
    expect(transfer.code, transfer.out).to.equal(0);
    const after = (await client.memberList()).leaderId;
    expect(after).to.not.equal(before);
    expect(['n1', 'n3', 'n4', 'n5', 'n6']).to.include(after);

    // The lock was never lost and its token never changed: the fenced store still takes it.
    expect(leaseLost).to.equal(undefined);
    expect(lockLost).to.equal(undefined);
    const info = await client.inspect('drill');
    expect(info.fencingToken).to.equal(token);
    expect(info.holderLeaseId).to.equal(lease.id);
    await client.fenceWrite('drill/k', 'after the drill', token, { lock: 'drill' });
    await lock.release();
  });
});
