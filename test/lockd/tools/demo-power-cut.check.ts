// `lockctl demo whole-cluster-crash` on a ./cluster.sh cluster whose data dirs are lazyfs mounts
// (LOCKD_LAZYFS=1): the kill becomes a power cut (every disk drops what was not fsynced). Both sides:
// lockd keeps the grant, its token and the lease; the control build that syncs nothing
// (LOCKD_UNSAFE_NO_FSYNC=1, nodes with --unsafe-no-fsync) loses the grant, and the demo says so and fails.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { LOCKCTL_MAIN, ROOT } from '../../support/build.js';
import { reapOnExit } from '../../support/reaper.js';
import { ScriptCluster } from '../../support/script-cluster.js';
import { lazyFsUnavailable } from '../../faults/lazyfs/lazyfs.js';

function demo(cluster: ScriptCluster): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, 'demo', 'whole-cluster-crash'], {
      cwd: ROOT,
      env: { ...process.env, ...cluster.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapOnExit(proc);
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 140_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

async function onCluster(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const cluster = await ScriptCluster.start(3, { testFaults: false, env: { LOCKD_LAZYFS: '1', ...env } });
  try {
    return await demo(cluster);
  } finally {
    await cluster.stop();
  }
}

describe('lockctl demo whole-cluster-crash as a power cut (cluster.sh on lazyfs)', function () {
  this.timeout(300_000);
  before(function () {
    const why = lazyFsUnavailable();
    if (why) throw new Error(`lazyfs cannot run here: ${why}`);
  });

  it('lockd: the grant and its lease survive a power cut of every node; the no-fsync control build loses the grant', async () => {
    const kept = await onCluster({});
    expect(kept.code, kept.out).to.equal(0);
    expect(kept.out).to.match(/power cut of every node/);
    expect(kept.out).to.match(/^OK: the grant \(token \d+\) and \d+ ms of its lease survived a power cut \(\d+ unsynced bytes dropped\) of all 3 nodes/m);

    const lost = await onCluster({ LOCKD_UNSAFE_NO_FSYNC: '1' });
    expect(lost.code, lost.out).to.equal(1);
    expect(lost.out).to.match(/--unsafe-no-fsync/);
    expect(lost.out).to.match(/^FAILED: expected \S+ held by lease \d+ with token \d+ after the restart/m);
  });
});
