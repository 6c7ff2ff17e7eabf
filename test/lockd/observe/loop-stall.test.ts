// The stall watch on real node processes (observe/stall-watch.ts): a loop held on purpose (the
// block-loop test fault) is counted by /metrics's loop-delay histogram and logged once, naming the
// task that held it; and a leader whose client closes a connection of hundreds of unread Observe
// streams keeps its loop and its heartbeats well inside an election timeout.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd.js';
import { BLOCK_LOOP_TASK } from '../../../src/lockd/node/test-faults.js';
import { ProcessCluster, freePort, waitFor } from '../../support/process-cluster.js';
import { LockApi } from '../../support/lock-api-client.js';
import { metric, scrape } from '../../support/observe-client.js';

const insecure = grpc.credentials.createInsecure();
/** ProcessCluster's nodes: 20 ticks of 20 ms. */
const ELECTION_TIMEOUT_S = 0.4;

/** Observations of histogram `name` on this scrape above `le` seconds (a bucket bound it has). */
function countAbove(text: string, name: string, le: string): number {
  const count = metric(text, `${name}_count`);
  const below = metric(text, `${name}_bucket`, { le });
  if (count === undefined || below === undefined) throw new Error(`no ${name} (le=${le}) in /metrics`);
  return count - below;
}

/** The log lines of `event` in a node's log (pino JSON, one per line). */
function logEvents(log: string, event: string): Array<Record<string, unknown>> {
  return log.split('\n').filter((l) => l.includes(`"event":"${event}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('observe: event-loop stalls (real processes)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  const httpPort = new Map<string, number>();
  const base = (id: string) => `http://127.0.0.1:${httpPort.get(id)}`;
  let faultDir = '';
  const faultFile = (id: string) => join(faultDir, `${id}.fault`);

  before(async () => {
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    faultDir = mkdtempSync(join(tmpdir(), 'lockd-stall-'));
    cluster = await ProcessCluster.start({
      size: 3,
      nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}`, '--unsafe-test-faults': faultFile(id) }),
    });
    await cluster.waitForLeader();
  });
  after(async () => {
    await cluster?.stop();
    if (faultDir) rmSync(faultDir, { recursive: true, force: true });
  });

  it('counts a loop held on purpose in lockd_event_loop_delay_seconds and logs one stall line naming the task', async () => {
    const leader = await cluster.waitForLeader();
    const id = cluster.nodes.find((n) => n.id !== leader)!.id; // a follower: its stall elects no one
    const before = countAbove(await scrape(base(id)), 'lockd_event_loop_delay_seconds', '0.4');
    writeFileSync(faultFile(id), 'block-loop 700\n');
    cluster.signal(id, 'SIGUSR2');
    const line = await waitFor('the stall line', () => logEvents(cluster.log(id), 'loop stall').find((l) => l.task === BLOCK_LOOP_TASK), 10_000);
    expect(line.ms).to.be.at.least(600);
    expect(line.taskMs).to.be.at.least(690);
    expect(line.msg).to.include(`longest task ${BLOCK_LOOP_TASK}`);
    expect(line.queues).to.have.property('proposals');
    const after = await waitFor('the stall counted', async () => {
      const n = countAbove(await scrape(base(id)), 'lockd_event_loop_delay_seconds', '0.4');
      return n > before ? n : undefined;
    });
    expect(after - before).to.equal(1); // one turn, one observation
    expect(logEvents(cluster.log(id), 'loop stall').filter((l) => l.task === BLOCK_LOOP_TASK)).to.have.length(1);
  });
});
