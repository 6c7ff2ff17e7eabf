// The HTTPS endpoint shows each principal what the gRPC reads would (real processes, --acl,
// test-made certificates): carol, with `read` on '' but only `fence` on 'hr/', is refused
// Lock.Inspect of hr/layoffs-2027, so neither GET /state nor /events may show her that lock; and
// an open /events stream is closed once she loses `read` on ''.
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { expect } from 'chai';
import { LockClient, LockdError } from '../../src/client/index.js';
import { freePort, ProcessCluster, waitFor } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { httpsGet } from '../support/https-get.js';

/** An open GET /events over HTTPS as `client`: what arrived so far, and whether the server ended it. */
class EventsReader {
  text = '';
  ended = false;
  private readonly req: ClientRequest;
  constructor(port: number, pki: TestPki, client: CertFiles) {
    this.req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/events',
        servername: 'localhost',
        agent: false,
        ca: readFileSync(pki.caCert),
        cert: readFileSync(client.cert),
        key: readFileSync(client.key),
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => (this.text += d));
        res.on('end', () => (this.ended = true));
        res.on('close', () => (this.ended = true));
      },
    );
    this.req.on('error', () => (this.ended = true));
    this.req.end();
  }
  close(): void {
    this.req.destroy();
  }
}

describe('HTTP /state and /events follow the access rules name by name (real processes)', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  let root: LockClient;
  let carol: LockClient;
  let carolCert: CertFiles;
  let reader: EventsReader | undefined;
  const httpPort = new Map<string, number>();

  before(async () => {
    pki = TestPki.create();
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    cluster = await ProcessCluster.start({
      size: 3,
      tls: pki,
      clientCertAuth: true,
      extraArgs: ['--acl', '--admin', 'root'],
      nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }),
    });
    await cluster.waitForLeader();
    const rootCert = pki.client('root');
    carolCert = pki.client('carol');
    const endpoints = cluster.nodes.map((n) => n.address);
    root = new LockClient({ endpoints, cacert: pki.caCert, cert: rootCert.cert, key: rootCert.key, timeoutMs: 10_000, watchLocks: false });
    carol = new LockClient({ endpoints, cacert: pki.caCert, cert: carolCert.cert, key: carolCert.key, timeoutMs: 10_000, watchLocks: false });
    expect(await root.aclGrant({ principal: 'carol', verb: 'read', prefix: '' })).to.equal(true);
    expect(await root.aclGrant({ principal: 'carol', verb: 'fence', prefix: 'hr/' })).to.equal(true);
  });
  after(async function () {
    reader?.close();
    root?.close();
    carol?.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it('GET /state shows carol the locks she may Inspect, and not hr/layoffs-2027, which she may not', async () => {
    const lease = await root.grantLease(60_000);
    await root.acquire('hr/layoffs-2027', { lease, wait: false });
    await root.acquire('pub/news', { lease, wait: false });
    const e = await carol.inspect('hr/layoffs-2027').then(
      () => undefined,
      (err: unknown) => err as LockdError,
    );
    expect(e?.codeName).to.equal('PERMISSION_DENIED');
    expect((await carol.inspect('pub/news')).held).to.equal(true);
    const port = httpPort.get('n1')!;
    await waitFor('n1 to show both locks to root', async () => {
      const r = await httpsGet(port, '/state', pki, pki.client('root'));
      return r.body.includes('hr/layoffs-2027') && r.body.includes('pub/news') ? true : undefined;
    });
    const asCarol = await httpsGet(port, '/state', pki, carolCert);
    expect(asCarol.status).to.equal(200);
    const names = (JSON.parse(asCarol.body) as { machine: { locks: { rows: { name: string }[]; total: number } } }).machine.locks;
    expect(names.rows.map((r) => r.name))
      .to.include('pub/news')
      .and.not.include('hr/layoffs-2027');
    expect(asCarol.body).to.not.contain('layoffs');
  });

  it('/events: carol gets no event of a lock she may not Inspect, and her stream ends once her `read` rule is revoked', async () => {
    const port = httpPort.get('n1')!;
    reader = new EventsReader(port, pki, carolCert);
    await waitFor('the opening snapshot', () => (reader!.text.includes('event: state') ? true : undefined));
    expect(reader.text).to.not.contain('layoffs');
    const lease = await root.grantLease(60_000);
    await root.acquire('hr/salaries', { lease, wait: false });
    await root.acquire('pub/weather', { lease, wait: false });
    await waitFor("pub/weather on carol's stream", () => (reader!.text.includes('pub/weather') ? true : undefined));
    expect(reader.text).to.not.contain('hr/salaries');
    expect(await root.aclRevoke({ principal: 'carol', verb: 'read', prefix: '' })).to.equal(true);
    await waitFor("carol's stream to be ended by the node", () => (reader!.ended ? true : undefined), 10_000);
    expect(reader.text).to.contain('event: denied');
  });
});
