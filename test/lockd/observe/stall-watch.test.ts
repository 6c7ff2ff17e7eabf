// The stall watch in-process (observe/stall-watch.ts, loop-activity.ts): a loop held inside a
// labelled task is measured and logged once with that label; the dashboard's model keeps each
// node's loop lag from its loop-lag events.
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loopActivity } from '../../../src/lockd/observe/loop-activity.js';
import { STALL_MS, StallWatch } from '../../../src/lockd/observe/stall-watch.js';
import { waitFor } from '../../support/process-cluster.js';

const modelUrl = new URL('../../../dashboard/model.js', import.meta.url).href;

function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('observe: stall watch', () => {
  it('keeps the longest labelled task and the label with the most time since the last take', () => {
    loopActivity.take();
    loopActivity.run('long', () => hold(20));
    const first = loopActivity.take();
    expect(first.longest.label).to.equal('long');
    expect(first.longest.ms).to.be.at.least(20);
    for (let k = 0; k < 10; k++) loopActivity.run('many', () => hold(3));
    expect(loopActivity.run('nested', () => loopActivity.now)).to.equal('nested');
    expect(loopActivity.take().busiest).to.include({ label: 'many', count: 10 });
    expect(loopActivity.take().longest).to.deep.equal({ label: '', ms: 0 });
  });

  it('logs a loop held past the stall bound once, naming the task, and reports its delay', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
    const watch = new StallWatch(pino({ level: 'warn' }, sink));
    const delays: number[] = [];
    watch.onDelay = (ms) => delays.push(ms);
    try {
      await waitFor('a first watchdog turn', () => (delays.length > 0 ? true : undefined), 5000, 10);
      loopActivity.run('held on purpose', () => hold(STALL_MS + 150));
      const line = await waitFor('the stall line', () => lines.find((l) => l.event === 'loop stall'), 5000, 10);
      expect(line.task).to.equal('held on purpose');
      expect(line.ms).to.be.at.least(STALL_MS + 100);
      expect(String(line.msg)).to.include('longest task held on purpose');
      expect(Math.max(...delays)).to.be.at.least(STALL_MS + 100);
      const turns = delays.length;
      await waitFor('two more turns', () => (delays.length >= turns + 2 ? true : undefined), 5000, 10);
      expect(lines.filter((l) => l.event === 'loop stall' && l.task === 'held on purpose')).to.have.length(1);
    } finally {
      watch.close();
    }
  });

  it('the dashboard model keeps the loop lag and heartbeat gap a node reports', async () => {
    const { NodeModel } = (await import(modelUrl)) as {
      NodeModel: new (id: string) => { loopLagMs?: number; heartbeatGapMs?: number; applyEvent(ev: unknown): unknown };
    };
    const m = new NodeModel('n1');
    expect(m.loopLagMs).to.equal(undefined);
    m.applyEvent({ seq: 1, at: 0, node: 'n1', term: 2, type: 'loop-lag', maxMs: 640, heartbeatGapMs: 655 });
    expect(m).to.include({ loopLagMs: 640, heartbeatGapMs: 655 });
  });
});
