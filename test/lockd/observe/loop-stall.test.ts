// The stall watch on real node processes (observe/stall-watch.ts): a loop held on purpose (the
// block-loop test fault) is counted by /metrics's loop-delay histogram and logged once, naming the
// task that held it; and a leader whose client closes a connection of hundreds of unread Observe
// streams keeps its loop and its heartbeats well inside an election timeout.
import { connect } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BLOCK_LOOP_TASK } from '../../../src/lockd/node/test-faults.js';
import { ProcessCluster, freePort, waitFor } from '../../support/process-cluster.js';
import { LockApi } from '../../support/lock-api-client.js';
import { metric, scrape } from '../../support/observe-client.js';

/** ProcessCluster's nodes: 20 ticks of 20 ms. */
const ELECTION_TIMEOUT_S = 0.4;
const STREAMS = 400;
/** Acquire/release pairs on the observed name: 900 events for each stream, just under its backlog bound. */
const PAIRS = 450;

/** Observations of histogram `name` on this scrape above `le` seconds (a bucket bound it has). */
function countAbove(text: string, name: string, le: string): number {
  const count = metric(text, `${name}_count`);
  const below = metric(text, `${name}_bucket`, { le });
  if (count === undefined || below === undefined) throw new Error(`no ${name} (le=${le}) in /metrics`);
  return count - below;
}

/** The log lines of `event` in a node's log (pino JSON, one per line). */
function logEvents(log: string, event: string): Array<Record<string, unknown>> {
  return log
    .split('\n')
    .filter((l) => l.includes(`"event":"${event}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
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

  it('a leader whose client drops a connection of 400 unread Observe streams stays inside an election timeout', async () => {
    const leader = await cluster.waitForLeader();
    const address = cluster.node(leader).address;
    const api = new LockApi(address);
    // A raw HTTP/2 client (grpc-js has no way to drop a connection under open calls): one connection,
    // a 1 KiB stream window, 400 Observe calls whose responses are never read.
    const h2 = connect(`http://${address}`, { settings: { initialWindowSize: 1024 } });
    h2.on('error', () => {});
    try {
      const name = 'never-read';
      const body = Buffer.concat([Buffer.from([0, 0, 0, 0, name.length + 2, 0x0a, name.length]), Buffer.from(name)]);
      const streams = Array.from({ length: STREAMS }, () => {
        const req = h2.request({ ':method': 'POST', ':path': '/lockd.v1.Lock/Observe', 'content-type': 'application/grpc', te: 'trailers' });
        req.on('error', () => {});
        req.end(body);
        return req;
      });
      await Promise.all(streams.map((s) => new Promise((resolve) => s.once('response', resolve))));
      const { leaseId } = await api.grant(60_000);
      for (let k = 0; k < PAIRS; k++) {
        const { fencingToken } = await api.acquire(name, leaseId);
        await api.release(name, fencingToken);
      }
      // Opening 400 streams and fanning each event out to them is work of its own (a loaded machine
      // may even elect anew meanwhile): what is judged is the teardown, from here on.
      // The loop is judged on the node that holds the streams; its heartbeats and term if it still leads.
      const st = await cluster.status(leader);
      const leads = st.leaderId === leader;
      const before = await scrape(base(leader));
      const delayBefore = countAbove(before, 'lockd_event_loop_delay_seconds', String(ELECTION_TIMEOUT_S));
      const gapBefore = countAbove(before, 'lockd_raft_heartbeat_gap_seconds', String(ELECTION_TIMEOUT_S));
      h2.destroy(); // the connection drops: every stream on it ends at once
      // The teardown is over once the leader answers again (if it is still the leader: the test fails
      // below either way); two watchdog turns after that, its delay is counted.
      await api.inspect(name, { timeoutMs: 60_000 }).catch(() => undefined);
      const turns = metric(await scrape(base(leader)), 'lockd_event_loop_delay_seconds_count')!;
      const after = await waitFor('two more watchdog turns', async () => {
        const text = await scrape(base(leader));
        return metric(text, 'lockd_event_loop_delay_seconds_count')! >= turns + 2 ? text : undefined;
      });
      const stalls = JSON.stringify(logEvents(cluster.log(leader), 'loop stall').map((l) => l.msg));
      expect(
        countAbove(after, 'lockd_event_loop_delay_seconds', String(ELECTION_TIMEOUT_S)) - delayBefore,
        `loop turns longer than an election timeout (the leader's stall lines: ${stalls})`,
      ).to.equal(0);
      if (leads) {
        expect(
          countAbove(after, 'lockd_raft_heartbeat_gap_seconds', String(ELECTION_TIMEOUT_S)) - gapBefore,
          'heartbeat gaps longer than an election timeout',
        ).to.equal(0);
        expect((await cluster.status(leader)).term, 'leader changed during the teardown').to.equal(st.term);
      }
    } finally {
      h2.destroy();
      api.close();
    }
  });
});
