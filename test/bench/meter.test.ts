// bench/lib/meter.ts on real parts: this test process stands in for a server (its /proc CPU time
// is read) and a local HTTP server for its /metrics, whose counter moves between the two scrapes
// at the window's edges.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WindowMeter } from '../../bench/lib/meter.js';
import { Window } from '../../bench/lib/window.js';

describe('bench: WindowMeter', () => {
  let server: Server;
  let url = '';
  let app = 0;
  before(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/metrics' ? 200 : 404, { 'content-type': 'text/plain' });
      res.end(`lockd_raft_messages_sent_total{type="App",node="n1"} ${app}\nlockd_disk_synced_writes_total{node="n1"} ${app / 2}\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it("samples CPU and counters at the window's edges: per cycle figures of what happened inside it only", async () => {
    const meter = new WindowMeter('lockd', [{ name: 'n1', leader: true, pid: process.pid, metricsUrl: `${url}/metrics` }]);
    app = 1000; // before the window: not counted
    const w = new Window({ warmupMs: 50, windowMs: 1500 });
    await meter.attach(w); // the start sample is taken
    app += 200;
    // 50 ms of CPU inside the window (by CPU time, not wall time: the machine may be loaded).
    const cpu0 = process.cpuUsage();
    const cpuMs = () => {
      const d = process.cpuUsage(cpu0);
      return (d.user + d.system) / 1000;
    };
    while (cpuMs() < 50);
    const p = (await meter.perCycle(10))!;
    app += 5000; // after the window: not counted
    expect(p.leader).to.equal('n1');
    expect(p.cycles).to.equal(10);
    expect(p.window_ms).to.be.within(1400, 5000);
    expect(p.counters.msgs_App).to.equal(20);
    expect(p.counters.disk_synced).to.equal(10);
    // This process is both "server" and load generator here: both saw the spin (/proc counts in 10 ms ticks).
    expect(p.cpu_servers_ms).to.be.at.least(4);
    expect(p.cpu_loadgen_ms).to.be.at.least(5);
    expect(p.cpu_leader_ms).to.equal(p.cpu_servers_ms);
  });

  it('a node whose /metrics fails gives CPU figures but no counters (never half a sum)', async () => {
    const warnings: string[] = [];
    const meter = new WindowMeter(
      'lockd',
      [
        { name: 'n1', leader: true, pid: process.pid, metricsUrl: `${url}/metrics` },
        { name: 'n2', leader: false, pid: process.pid, metricsUrl: `${url}/nope` },
      ],
      undefined,
      (l) => warnings.push(l),
    );
    meter.attach(new Window({ warmupMs: 0, windowMs: 50 }));
    const p = (await meter.perCycle(10))!;
    expect(p.counters).to.deep.equal({});
    expect(p.followers).to.deep.equal(['n2']);
    expect(p.cpu_followers_ms).to.have.length(1);
    expect(warnings.join('\n')).to.contain('scrape of n2 failed: http://127.0.0.1');
  });
});
