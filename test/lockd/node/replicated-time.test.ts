// Replicated time is the node's (lockd-node.ts builds and runs the lease clock): a node started
// with no services registered still proposes Ticks, so a lease granted straight through the
// driver runs out on logical time and expires. One node in this process, on loopback ports.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfig } from '../../../src/lockd/node/config.js';
import { LockdNode } from '../../../src/lockd/node/lockd-node.js';
import { leaseClockTiming } from '../../../src/lockd/node/lease-clock.js';
import { encodeCommand, leaderMargins } from '../../../src/lockd/state-machine/index.js';
import { freePort, waitFor } from '../../support/process-cluster.js';

describe('replicated time without services (in process)', () => {
  let node: LockdNode | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await node?.stop();
    node = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('a node with no API registered proposes Ticks: a lease granted through the driver expires on logical time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-time-'));
    const [client, peer] = [await freePort(), await freePort()];
    const config = parseConfig(
      [
        '--id',
        'n1',
        '--listen',
        `127.0.0.1:${client}`,
        '--peer-listen',
        `127.0.0.1:${peer}`,
        '--peers',
        `n1=127.0.0.1:${peer}`,
        '--data-dir',
        dir,
        '--cluster-id',
        'time',
        '--tick-ms',
        '10',
        '--election-ticks',
        '10',
      ],
      {},
    );
    node = await LockdNode.start(config, pino({ level: process.env.LOCKD_TEST_LOG ?? 'silent' }), []);
    const { driver, stateMachine, leaseClock } = node.ctx;
    await waitFor('the node to lead', () => (driver.isLeader() ? true : undefined), 15_000);

    // Idle: no lease, no keepalive, so no Tick (an idle cluster writes nothing).
    expect(leaseClock.proposed).to.equal(0);
    const start = stateMachine.now;
    const ttlMs = 300;
    const { maxElapsedMs } = leaseClockTiming(config);
    const { index: leaseId } = await driver.propose(encodeCommand({ type: 'Grant', ttlMs, ...leaderMargins(maxElapsedMs) }));
    expect(stateMachine.timeToLive(leaseId)?.remainingMs).to.be.greaterThan(ttlMs - 1);

    // Nobody renews it: the node's own clock advances logical time until the lease is gone.
    await waitFor('the lease to expire on replicated time', () => (stateMachine.timeToLive(leaseId) === undefined ? true : undefined), 15_000);
    expect(stateMachine.now - start).to.be.at.least(ttlMs);
    expect(leaseClock.proposed).to.be.greaterThan(0);
  });
});
