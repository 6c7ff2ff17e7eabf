// CORS on the HTTP endpoint, in process on the real server (listenHttp): a member's origin is
// compared as the browser states it — host in lower case, no port when it is the scheme's default —
// so a member advertised as NODE1.example:80 is still granted, and nobody else is. With TLS, a
// refusal carries the same headers, so the dashboard can tell "certificate needed" from "down".
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import pino from 'pino';
import { DashboardFiles } from '../../../src/lockd/observe/dashboard-files.js';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { EventStreams } from '../../../src/lockd/observe/event-stream.js';
import { listenHttp, type HttpEndpoint, type HttpParts } from '../../../src/lockd/observe/http-server.js';
import type { ClusterView, StateSnapshot } from '../../../src/lockd/observe/state-snapshot.js';
import { TestPki, type CertFiles } from '../../support/test-pki.js';

const SNAPSHOT = {
  type: 'state',
  node: 'n1',
  seq: 0,
  at: 0,
  term: 1,
  role: 'leader',
  leader: 'n1',
  lastIndex: 0,
  commit: 0,
  applied: 0,
  machine: { now: 0, applied: 0, leases: { rows: [], total: 0 }, locks: { rows: [], total: 0 }, fence: { rows: [], total: 0 } },
} as StateSnapshot;

describe("observe: CORS grants the members' origins as browsers write them", () => {
  let endpoint: HttpEndpoint;
  let streams: EventStreams;
  let cluster: ClusterView;

  before(async () => {
    const bus = new EventBus('n1', () => 1);
    streams = new EventStreams(
      bus,
      () => {},
      () => SNAPSHOT,
    );
    endpoint = await listenHttp('127.0.0.1:0', {
      // /metrics and the probes are not asked for here.
      metrics: undefined as unknown as HttpParts['metrics'],
      health: undefined as unknown as HttpParts['health'],
      events: streams,
      dashboard: DashboardFiles.load(),
      snapshot: () => SNAPSHOT,
      cluster: () => cluster,
      logger: pino({ level: 'silent' }),
      mayRead: () => true,
      viewFilter: () => undefined,
    });
    cluster = {
      self: 'n1',
      members: [
        { id: 'n1', http: `127.0.0.1:${endpoint.port}` },
        { id: 'n2', http: 'NODE2.Example:80' },
        { id: 'n3', http: 'node3.example:8080' },
      ],
    };
  });
  after(async () => {
    streams.close();
    endpoint.server.closeAllConnections();
    await new Promise((r) => endpoint.server.close(r));
  });

  const granted = async (origin: string) =>
    (await fetch(`http://127.0.0.1:${endpoint.port}/cluster`, { headers: { origin } })).headers.get('access-control-allow-origin');

  it("a member on the default port with an upper-case name: the browser's origin http://node2.example is granted", async () => {
    expect(await granted('http://node2.example')).to.equal('http://node2.example');
    expect(await granted('http://node3.example:8080')).to.equal('http://node3.example:8080');
  });

  it('anyone else is not: another host, another port, another scheme, a look-alike, null', async () => {
    for (const origin of [
      'http://evil.example',
      'http://node2.example:8080',
      'https://node2.example',
      'http://node2.example.evil.example',
      'http://node3.example',
      'null',
    ]) {
      expect(await granted(origin), origin).to.equal(null);
    }
  });
});

describe("observe: with TLS, a refusal (403) carries the members' CORS headers", () => {
  let endpoint: HttpEndpoint;
  let streams: EventStreams;
  let pki: TestPki;
  let cluster: ClusterView;

  before(async () => {
    pki = TestPki.create();
    const files = pki.nodeFiles('n1');
    const bus = new EventBus('n1', () => 1);
    streams = new EventStreams(
      bus,
      () => {},
      () => SNAPSHOT,
    );
    endpoint = await listenHttp('127.0.0.1:0', {
      metrics: undefined as unknown as HttpParts['metrics'],
      health: undefined as unknown as HttpParts['health'],
      events: streams,
      dashboard: DashboardFiles.load(),
      snapshot: () => SNAPSHOT,
      cluster: () => cluster,
      logger: pino({ level: 'silent' }),
      mayRead: (principal) => principal === 'root',
      viewFilter: () => undefined,
      tls: { cert: readFileSync(files.cert), key: readFileSync(files.key), ca: readFileSync(pki.caCert) },
    });
    cluster = {
      self: 'n1',
      members: [
        { id: 'n1', http: `127.0.0.1:${endpoint.port}` },
        { id: 'n2', http: '127.0.0.1:1' },
      ],
    };
  });
  after(async () => {
    streams.close();
    endpoint.server.closeAllConnections();
    await new Promise((r) => endpoint.server.close(r));
    pki.remove();
  });

  /** GET path with an Origin header (and a client certificate if given): status, the CORS origin granted, body. */
  const get = (path: string, origin: string, client?: CertFiles) =>
    new Promise<{ status: number; allow: string | undefined; creds: string | undefined; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: endpoint.port,
          path,
          servername: 'localhost',
          agent: false,
          timeout: 3000,
          headers: { origin },
          ca: readFileSync(pki.caCert),
          ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              allow: res.headers['access-control-allow-origin'] as string | undefined,
              creds: res.headers['access-control-allow-credentials'] as string | undefined,
              body,
            }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    });

  it("no certificate: 403 with the reason, readable by a member's page (its origin granted, with credentials); not by another origin", async () => {
    for (const path of ['/events', '/cluster', '/state']) {
      const r = await get(path, 'https://127.0.0.1:1');
      expect(r.status, path).to.equal(403);
      expect(r.allow, path).to.equal('https://127.0.0.1:1');
      expect(r.creds, path).to.equal('true');
      expect(r.body, path).to.contain('needs a client certificate');
    }
    const other = await get('/events', 'https://evil.example');
    expect(other.status).to.equal(403);
    expect(other.allow).to.equal(undefined);
  });

  it('a principal that may not read: 403 saying which rule it lacks, also readable cross-origin', async () => {
    const r = await get('/cluster', 'https://127.0.0.1:1', pki.client('viewer'));
    expect(r.status).to.equal(403);
    expect(r.allow).to.equal('https://127.0.0.1:1');
    expect(r.body).to.contain('principal viewer may not read');
  });
});
