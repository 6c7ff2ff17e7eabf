// A KeepAlive does not wait for the lease clock's periodic Tick: a queued renewal makes the leader
// propose a Tick at once (node/lease-clock.ts, docs/design.md §4). One node in this process, started
// with a long interval (--tick-ms 2000: a Tick every 2 s), its KeepAlive stream on a real gRPC port.
// Judged by the node's own logical time, not by the test's clock: a renewal is answered from the Tick
// that carried it, so several keepalives sent one after the other, each after the previous answer,
// each need a Tick of their own; if they waited for the interval, logical time would advance by at
// least an interval between two answers.
import { expect } from 'chai';
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { leaseClockTiming } from '../../../src/lockd/node/lease-clock.js';
import type { LeaseKeepAliveRequest } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { startInProcessNode, type InProcessNode } from '../../support/in-process-node.js';
import { LockApi } from '../../support/lock-api-client.js';
import { waitFor } from '../../support/process-cluster.js';

const TTL = 60_000;
const KEEPALIVES = 5;

describe('lock API: a KeepAlive is answered without waiting for the periodic Tick', function () {
  this.timeout(60_000);
  let node: InProcessNode | undefined;
  let api: LockApi | undefined;
  let stream: ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output> | undefined;

  afterEach(async () => {
    stream?.cancel();
    api?.close();
    await node?.stop();
    [node, api, stream] = [undefined, undefined, undefined];
  });

  it(`${KEEPALIVES} keepalives in a row, each from its own Tick, within one interval of logical time`, async () => {
    // 2 s node ticks: a Tick interval of 2 s (one tick), elections after 4-8 s.
    node = await startInProcessNode(['--tick-ms', '2000', '--election-ticks', '2', '--heartbeat-ticks', '1']);
    const { config, driver, stateMachine } = node.node.ctx;
    const { leaseTickMs } = leaseClockTiming(config);
    expect(leaseTickMs).to.equal(2000);
    api = new LockApi(node.address);
    const { leaseId } = await api.grant(TTL);

    const tickIndexes: number[] = [];
    driver.onApplied((entry, out) => {
      if (out.result?.type === 'Tick') tickIndexes.push(entry.index);
    });
    const answers: { ttlMs: number; now: number; ticks: number }[] = [];
    stream = api.keepAliveStream();
    stream.on('error', () => undefined); // cancelled in afterEach
    stream.on('data', (r: LeaseKeepAliveResponse__Output) => answers.push({ ttlMs: Number(r.ttlMs), now: stateMachine.now, ticks: tickIndexes.length }));
    for (let k = 1; k <= KEEPALIVES; k++) {
      const ticksBefore = tickIndexes.length;
      stream.write({ leaseId });
      // Bounded generously: on the old code each answer came with the next interval Tick (≤ 2 s).
      await waitFor(`keepalive ${k} answered`, () => (answers.length === k ? true : undefined), 30_000, 5);
      expect(answers[k - 1].ttlMs).to.equal(TTL);
      expect(answers[k - 1].ticks, 'answered from a Tick applied after it was sent').to.be.above(ticksBefore);
    }
    // Each answer after the first waited for a Tick proposed after it was sent. An interval Tick counts
    // the time since the previous Tick, at least the interval (no Tick counts more than measured), so
    // had they waited for one, logical time would have advanced ≥ (KEEPALIVES - 1) × 2 s here.
    const advanced = answers[KEEPALIVES - 1].now - answers[0].now;
    expect(advanced, `logical ms between the first and the last answer (Ticks at ${tickIndexes.join(', ')})`).to.be.below(leaseTickMs);
  });
});
