// A power cut of a whole 3-node cluster on real processes: every node's data dir is on its own
// lazyfs mount; a lease, a granted lock and a fenced write are acknowledged; then every node is
// killed (-9), every disk loses what was not fsynced, and the cluster boots again. lockd must still
// show the grant (same holder, same token) and the write; the control build (--unsafe-no-fsync,
// nothing synced) must lose them — which is what shows the cut is a real one (a kill -9 alone keeps
// the page cache, and an fsync-less build passed the same story then).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessCluster } from '../../support/process-cluster.js';
import { LockApi } from '../../support/lock-api-client.js';
import { LazyFs, lazyFsUnavailable } from './lazyfs.js';

interface Story {
  token: number;
  leaseId: number;
  after: { held: boolean; token: number; holder: number; value: string; leaseTtlMs: number };
  lostBytes: number;
}

async function cutTheStory(unsafeNoFsync: boolean): Promise<Story> {
  const dir = mkdtempSync(join(tmpdir(), 'lockd-power-cut-'));
  const disks = new Map<string, LazyFs>();
  let cluster: ProcessCluster | undefined;
  const apis: LockApi[] = [];
  try {
    cluster = await ProcessCluster.start({
      size: 3,
      startNodes: false,
      nodeFlags: (id) => ({ '--data-dir': join(disks.get(id)!.mountpoint, 'data') }),
      ...(unsafeNoFsync ? { extraArgs: ['--unsafe-no-fsync'] } : {}),
    });
    for (const n of cluster.nodes) disks.set(n.id, await LazyFs.mount(join(dir, n.id)));
    for (const n of cluster.nodes) cluster.startNode(n.id);
    const leader = await cluster.waitForLeader(undefined, 30_000);
    const api = new LockApi(cluster.node(leader).address, { retryUnavailable: true });
    apis.push(api);
    const lease = await api.grant(60_000, { timeoutMs: 10_000 });
    const acq = await api.acquire('power', lease.leaseId, { timeoutMs: 10_000 });
    expect(acq.acquired).to.equal(true);
    await api.fenceWrite('power/key', 'written under the grant', acq.fencingToken, { timeoutMs: 10_000 });

    // The power goes: every process dies, every disk loses what it had not synced.
    await Promise.all(cluster.nodes.map((n) => cluster!.kill(n.id)));
    let lostBytes = 0;
    for (const d of disks.values()) lostBytes += (await d.crash()).bytes;
    for (const n of cluster.nodes) cluster.startNode(n.id);
    const again = await cluster.waitForLeader(undefined, 30_000);
    const api2 = new LockApi(cluster.node(again).address, { retryUnavailable: true });
    apis.push(api2);
    const seen = await api2.inspect('power', { timeoutMs: 10_000 });
    // A lost key or lease may be an error (NOT_FOUND) rather than an empty answer: both are "lost".
    const value = await api2.fenceRead('power/key', { timeoutMs: 10_000 }).then(
      (r) => Buffer.from(r.value).toString(),
      (e: Error) => `(read failed: ${e.message})`,
    );
    const leaseTtlMs = await api2.timeToLive(lease.leaseId, { timeoutMs: 10_000 }).then(
      (r) => Number(r.remainingMs),
      () => -1,
    );
    return {
      token: acq.fencingToken,
      leaseId: lease.leaseId,
      after: { held: seen.held, token: seen.fencingToken, holder: seen.holderLeaseId, value, leaseTtlMs },
      lostBytes,
    };
  } finally {
    for (const a of apis) a.close();
    await cluster?.stop();
    for (const d of disks.values()) await d.unmount();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('power cut of a whole 3-node cluster on lazyfs (real processes)', function () {
  this.timeout(120_000);
  before(function () {
    const why = lazyFsUnavailable();
    if (why) throw new Error(`lazyfs cannot run here: ${why}`);
  });

  it('lockd keeps the acknowledged grant, its token and the fenced write; the no-fsync control build loses them', async () => {
    const kept = await cutTheStory(false);
    expect(kept.after, JSON.stringify(kept)).to.include({ held: true, token: kept.token, holder: kept.leaseId, value: 'written under the grant' });
    expect(kept.after.leaseTtlMs, 'the lease is alive').to.be.greaterThan(0);

    const control = await cutTheStory(true);
    expect(control.lostBytes, 'the control had unsynced bytes to lose').to.be.greaterThan(0);
    const sameGrant = control.after.held && control.after.token === control.token && control.after.holder === control.leaseId;
    expect(sameGrant || control.after.value === 'written under the grant', `the control kept what it never synced: ${JSON.stringify(control)}`).to.equal(false);
  });
});
