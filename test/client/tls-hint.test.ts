// lockctl's hint when a plaintext call meets a TLS port (src/client/lockctl/tls-hint.ts), in
// process: a TLS server (with and without a required client certificate) is recognised, a plain TCP
// server and a closed port are not, and `lockctl status` against a TLS port says "TLS cluster: pass --cacert".
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { runCli } from '../../src/client/lockctl/cli.js';
import { knownTlsDirs, speaksTls } from '../../src/client/lockctl/tls-hint.js';
import { TestPki } from '../support/test-pki.js';

function listen(server: NetServer): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function sink(): Writable & { text: string } {
  const w = new Writable({ write: (chunk, _enc, cb) => ((w.text += String(chunk)), cb()) }) as Writable & { text: string };
  w.text = '';
  return w;
}

describe('lockctl: a plaintext call that meets a TLS port says so', () => {
  let pki: TestPki;
  const servers: NetServer[] = [];
  const sockets = new Set<Socket>();
  let tlsAddr: string;
  let mtlsAddr: string;
  let plainAddr: string;
  let closedAddr: string;

  before(async () => {
    pki = TestPki.create();
    const n = pki.nodeFiles('n1');
    const opts = { cert: readFileSync(n.cert), key: readFileSync(n.key), ca: readFileSync(pki.caCert), ALPNProtocols: ['h2'] };
    const tls = createTlsServer(opts, (s) => s.end());
    const mtls = createTlsServer({ ...opts, requestCert: true, rejectUnauthorized: true }, (s) => s.end());
    const plain = createNetServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    const closed = createNetServer();
    servers.push(tls, mtls, plain);
    for (const s of servers) s.on('connection', (c: Socket) => (sockets.add(c), c.on('close', () => sockets.delete(c))));
    [tlsAddr, mtlsAddr, plainAddr, closedAddr] = await Promise.all([listen(tls), listen(mtls), listen(plain), listen(closed)]);
    await new Promise((r) => closed.close(r));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    for (const s of servers) await new Promise((r) => s.close(r));
    pki.remove();
  });

  it('speaksTls: yes for TLS (also one requiring a client certificate); no for plain TCP and a closed port', async () => {
    expect(await speaksTls(tlsAddr)).to.equal(true);
    expect(await speaksTls(mtlsAddr)).to.equal(true);
    expect(await speaksTls(plainAddr)).to.equal(false);
    expect(await speaksTls(closedAddr)).to.equal(false);
  });

  it('lockctl status against a TLS port: unreachable, then "TLS cluster: … pass --cacert"', async () => {
    const stdout = sink();
    const stderr = sink();
    const env = { LOCKD_ENDPOINTS: mtlsAddr, LOCKD_CLUSTER_DIR: join(pki.dir, 'elsewhere') };
    const code = await runCli(['--timeout', '1500', 'status'], { stdout, stderr, env, interrupted: new AbortController().signal });
    expect(code).to.equal(1);
    expect(stdout.text).to.contain('unreachable');
    expect(stderr.text).to.match(/lockctl: TLS cluster: 127\.0\.0\.1:\d+ speaks TLS and this call was plaintext; pass --cacert FILE/);
  });

  it('the hint names the TLS files of a cluster.sh dir it can find (here: ./.cluster/tls of the working directory)', () => {
    const cwd = join(pki.dir, 'work');
    mkdirSync(join(cwd, '.cluster', 'tls'), { recursive: true });
    writeFileSync(join(cwd, '.cluster', 'tls', 'ca.crt'), readFileSync(pki.caCert));
    expect(knownTlsDirs({ LOCKD_CLUSTER_DIR: join(pki.dir, 'elsewhere') }, cwd)).to.include(join(cwd, '.cluster', 'tls'));
    expect(knownTlsDirs({ LOCKD_CLUSTER_DIR: join(pki.dir, 'elsewhere') }, join(pki.dir, 'empty'))).to.not.include(join(cwd, '.cluster', 'tls'));
  });

  it('lockctl status against a plain port that is closed: no TLS hint', async () => {
    const stderr = sink();
    const code = await runCli(['--timeout', '1000', 'status'], {
      stdout: sink(),
      stderr,
      env: { LOCKD_ENDPOINTS: closedAddr },
      interrupted: new AbortController().signal,
    });
    expect(code).to.equal(1);
    expect(stderr.text).to.not.contain('TLS cluster');
  });
});
