// The HTTP endpoint with TLS on (real node processes, test-made certificates): it speaks only
// HTTPS, with the node's certificate; /livez and /readyz answer anyone (probes carry no
// certificate); /metrics, /events, /state, /cluster and the dashboard need a client certificate
// signed by the cluster's CA, also for the dashboard in a browser; the certificate is swapped on
// SIGHUP like the gRPC listeners'.
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { chromium, type Browser } from 'playwright-core';
import { raftProto } from '../../src/proto/raft-package.js';
import { freePort, ProcessCluster, waitFor } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { httpsGet } from '../support/https-get.js';

/** A plaintext HTTP GET: resolves with the status, or with the error that ended it. */
function plainGet(port: number, path: string): Promise<{ status?: number; error?: string }> {
  return new Promise((resolve) => {
    const req = httpGet({ host: '127.0.0.1', port, path, agent: false, timeout: 3000 }, (res) => {
      res.resume();
      resolve({ status: res.statusCode });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ error: e.message }));
  });
}

/** Open a raft.v1 stream as member `as` stating `httpAddress`; resolves with the status it ended with (OK: accepted). */
function peerStreamStating(address: string, creds: grpc.ChannelCredentials, clusterId: string, as: string, httpAddress: string): Promise<grpc.status> {
  const c = new raftProto.raft.v1.Raft(address, creds);
  const md = new grpc.Metadata();
  md.set('lockd-cluster-id', clusterId);
  md.set('lockd-node-id', as);
  md.set('lockd-http-address', httpAddress);
  return new Promise((resolve) => {
    const done = (code: grpc.status) => {
      c.close();
      resolve(code);
    };
    const call = c.Stream(md, { deadline: Date.now() + 3000 }, (err) => done(err ? err.code : grpc.status.OK));
    call.on('metadata', () => {
      call.cancel();
      done(grpc.status.OK);
    });
  });
}

describe('HTTPS on --http-listen when TLS is on (real processes)', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let foreign: TestPki;
  let cluster: ProcessCluster;
  let reader: CertFiles;
  let browser: Browser | undefined;
  const httpPort = new Map<string, number>();

  before(async () => {
    pki = TestPki.create();
    foreign = TestPki.create();
    reader = pki.client('reader');
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    cluster = await ProcessCluster.start({ size: 3, tls: pki, nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }) });
    await cluster.waitForLeader();
  });
  after(async () => {
    await browser?.close();
    await cluster?.stop();
    pki?.remove();
    foreign?.remove();
  });

  it('plaintext HTTP is refused: no HTTP answer at all, on any path', async () => {
    for (const path of ['/readyz', '/metrics']) {
      const r = await plainGet(httpPort.get('n1')!, path);
      expect(r.status, `plain GET ${path}`).to.equal(undefined);
      expect(r.error).to.be.a('string');
    }
  });

  it('without a client certificate: /livez and /readyz answer, /metrics, /events, /state, /cluster and / are refused (403, saying why)', async () => {
    const port = httpPort.get('n1')!;
    expect((await httpsGet(port, '/livez', pki)).status).to.equal(200);
    await waitFor('n1 ready over HTTPS without a certificate', async () => ((await httpsGet(port, '/readyz', pki)).status === 200 ? true : undefined));
    for (const path of ['/metrics', '/events', '/state', '/cluster', '/']) {
      const r = await httpsGet(port, path, pki);
      expect(r.status, path).to.equal(403);
      expect(r.body, path).to.contain("needs a client certificate signed by the cluster's CA");
    }
    // A certificate from another CA is no better: the handshake completes (probes must), the read does not.
    const stranger = foreign.client('stranger');
    const r = await httpsGet(port, '/metrics', pki, stranger);
    expect(r.status).to.equal(403);
    expect(r.body).to.contain('the client certificate was not accepted');
  });

  it('with a client certificate from the cluster CA: /metrics, /events (opening with the state snapshot), /state, /cluster and the dashboard; the node certificate is served', async () => {
    const port = httpPort.get('n2')!;
    const metrics = await httpsGet(port, '/metrics', pki, reader);
    expect(metrics.status).to.equal(200);
    expect(metrics.body).to.match(/^lockd_raft_term\{node="n2"\} \d+$/m);
    expect(metrics.served).to.equal(new X509Certificate(readFileSync(pki.nodeFiles('n2').cert)).fingerprint256);
    const events = await httpsGet(port, '/events', pki, reader);
    expect(events.status).to.equal(200);
    expect(events.body).to.match(/event: state\ndata: \{"type":"state","node":"n2"/);
    const state = JSON.parse((await httpsGet(port, '/state', pki, reader)).body) as { node: string; role: string };
    expect(state.node).to.equal('n2');
    // Every member's advertised HTTPS address, learned over the peer streams.
    await waitFor("n2 to know every member's HTTP address", async () => {
      const c = JSON.parse((await httpsGet(port, '/cluster', pki, reader)).body) as { members: Array<{ id: string; http: string }> };
      return c.members.every((m) => m.http === `127.0.0.1:${httpPort.get(m.id)}`) ? true : undefined;
    });
    const page = await httpsGet(port, '/', pki, reader);
    expect(page.status).to.equal(200);
    expect(page.body).to.contain('<title>lockd · study dashboard</title>');
  });

  it('the dashboard over HTTPS: with a client certificate the page reads every member (cross-origin, with credentials); without one it gets nothing', async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    const origins = ['n1', 'n2', 'n3'].map((id) => `https://127.0.0.1:${httpPort.get(id)}`);
    // The test CA is not the browser's: its errors are ignored here (the Node clients above check it).
    const ctx = await browser.newContext({
      ignoreHTTPSErrors: true,
      clientCertificates: origins.map((origin) => ({ origin, certPath: reader.cert, keyPath: reader.key })),
    });
    const page = await ctx.newPage();
    await page.goto(`${origins[0]}/`);
    await page.locator('.node[data-status="live"]').nth(2).waitFor({ timeout: 15_000 });
    expect(await page.locator('.node[data-role="leader"]').count()).to.equal(1);
    const bare = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    const res = await bare.goto(`${origins[0]}/`);
    expect(res?.status()).to.equal(403);
  });

  it('the dashboard with a certificate for one node\'s origin only: the others are drawn "certificate needed" with the node\'s reason, not down', async () => {
    const origins = ['n1', 'n2', 'n3'].map((id) => `https://127.0.0.1:${httpPort.get(id)}`);
    const ctx = await browser!.newContext({
      ignoreHTTPSErrors: true,
      clientCertificates: [{ origin: origins[0], certPath: reader.cert, keyPath: reader.key }],
    });
    try {
      const page = await ctx.newPage();
      await page.goto(`${origins[0]}/`);
      await page.locator('.node[data-node="n1"][data-status="live"]').waitFor({ timeout: 15_000 });
      for (const id of ['n2', 'n3']) {
        const card = page.locator(`.node[data-node="${id}"][data-role="refused"]`);
        await card.waitFor({ timeout: 15_000 });
        expect(await card.locator('.badge').textContent()).to.equal('certificate needed');
        expect(await card.locator('.down-note').textContent()).to.contain("needs a client certificate signed by the cluster's CA");
      }
      expect(await page.locator('.node[data-role="down"]').count()).to.equal(0);
    } finally {
      await ctx.close();
    }
  });

  it('a member stating a malformed HTTP address is refused, and what the dashboard is told does not change', async () => {
    const n1 = cluster.node('n1');
    const asN2 = pki.channelCredentials(pki.nodeFiles('n2'));
    for (const bad of ['not an address', 'https://127.0.0.1:1', `${'a'.repeat(300)}:1`]) {
      expect(await peerStreamStating(n1.peerAddress, asN2, cluster.clusterId, 'n2', bad), bad).to.equal(grpc.status.INVALID_ARGUMENT);
    }
    const c = JSON.parse((await httpsGet(httpPort.get('n1')!, '/cluster', pki, reader)).body) as { members: Array<{ id: string; http: string }> };
    expect(c.members.find((m) => m.id === 'n2')?.http).to.equal(`127.0.0.1:${httpPort.get('n2')}`);
  });

  it('SIGHUP: the HTTPS endpoint serves the rotated certificate to new connections', async () => {
    const port = httpPort.get('n3')!;
    const before = (await httpsGet(port, '/livez', pki)).served;
    const files = pki.node('n3'); // new key and certificate over the old files
    const rotated = new X509Certificate(readFileSync(files.cert)).fingerprint256;
    expect(rotated).to.not.equal(before);
    const reloads = () => cluster.log('n3').split('"tls reloaded"').length - 1;
    const seen = reloads();
    cluster.signal('n3', 'SIGHUP');
    await waitFor('n3 to reload its certificates', () => (reloads() > seen ? true : undefined), 5000);
    expect((await httpsGet(port, '/livez', pki)).served).to.equal(rotated);
    expect((await httpsGet(port, '/metrics', pki, reader)).status).to.equal(200);
  });
});
