// Mutual TLS on real node processes, with certificates the test makes (openssl, test/support/test-pki.ts):
// who is refused where (plaintext, a foreign CA, a client certificate on the peer port, a peer
// certificate naming another member, on both the accepting and the dialing side), that each port
// serves only its own services, and certificate rotation on SIGHUP while clients keep working.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { LockClient } from '../../src/client/index.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { raftProto } from '../../src/proto/raft-package.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';

type Outcome = { code: grpc.status; details: string };

function statusVia(address: string, creds: grpc.ChannelCredentials, options: grpc.ChannelOptions = {}): Promise<Outcome> {
  const c = new lockdProto.lockd.v1.Cluster(address, creds, options);
  return new Promise((resolve) =>
    c.Status({}, { deadline: Date.now() + 3000 }, (err) => {
      c.close();
      resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' });
    }),
  );
}

/** Open a raft.v1 stream claiming to be `claimedId`; resolves with how it ended (or OK once accepted). */
function raftStreamVia(
  address: string,
  creds: grpc.ChannelCredentials,
  clusterId: string,
  claimedId: string,
  extra: Record<string, string> = {},
): Promise<Outcome> {
  const c = new raftProto.raft.v1.Raft(address, creds);
  const md = new grpc.Metadata();
  md.set('lockd-cluster-id', clusterId);
  md.set('lockd-node-id', claimedId);
  for (const [k, v] of Object.entries(extra)) md.set(k, v);
  return new Promise((resolve) => {
    const done = (o: Outcome) => {
      c.close();
      resolve(o);
    };
    const call = c.Stream(md, { deadline: Date.now() + 3000 }, (err) =>
      done(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' }),
    );
    call.on('metadata', () => {
      call.cancel();
      done({ code: grpc.status.OK, details: 'accepted' });
    });
  });
}

/** A forwarded Lock.Inspect on a peer port, claiming to come from member `by`. */
function forwardedInspectVia(address: string, creds: grpc.ChannelCredentials, clusterId: string, by: string): Promise<Outcome> {
  const c = new grpc.Client(address, creds);
  const md = new grpc.Metadata();
  md.set('lockd-forwarded', by);
  md.set('lockd-cluster-id', clusterId);
  const m = lockdProto.lockd.v1.Lock.service.Inspect;
  return new Promise((resolve) =>
    c.makeUnaryRequest(
      '/lockd.forwarded.v1.Lock/Inspect',
      m.requestSerialize,
      m.responseDeserialize,
      { name: 'x' },
      md,
      { deadline: Date.now() + 3000 },
      (err) => {
        c.close();
        resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' });
      },
    ),
  );
}

/** The SHA-256 fingerprint of the certificate a TLS server at `address` presents now (a new connection). */
function servedFingerprint(address: string, pki: TestPki, client: CertFiles): Promise<string> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = tlsConnect(
      {
        host,
        port,
        servername: 'localhost',
        ca: readFileSync(pki.caCert),
        cert: readFileSync(client.cert),
        key: readFileSync(client.key),
        ALPNProtocols: ['h2'],
      },
      () => {
        const fp = s.getPeerCertificate().fingerprint256;
        s.destroy();
        resolve(fp);
      },
    );
    s.on('error', reject);
  });
}

/** Whether node `id` logged a line whose msg starts with `msg` and that mentions `text`. */
function logged(cluster: ProcessCluster, id: string, msg: string, text: string): boolean {
  return cluster
    .log(id)
    .split('\n')
    .some((line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string };
        return !!rec.msg?.startsWith(msg) && line.includes(text);
      } catch {
        return false;
      }
    });
}

function fingerprintOf(file: string): string {
  return new X509Certificate(readFileSync(file)).fingerprint256;
}

describe('mutual TLS (real processes, test-made certificates)', function () {
  this.timeout(90_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  let root: CertFiles;
  let leaderId: string;
  const clients: LockClient[] = [];

  const rootCreds = () => pki.channelCredentials(root);
  const tlsClient = (endpoints: string[]) => {
    const c = new LockClient({ endpoints, cacert: pki.caCert, cert: root.cert, key: root.key, timeoutMs: 10_000 });
    clients.push(c);
    return c;
  };

  before(async () => {
    pki = TestPki.create();
    root = pki.client('root');
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true });
    leaderId = await cluster.waitForLeader();
  });
  after(async function () {
    for (const c of clients) c.close();
    const failed = this.currentTest?.state === 'failed' || this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });

  it('serves a client with a certificate of the cluster CA on any node; followers forward to the leader over mTLS; only client addresses are shown', async () => {
    const follower = cluster.nodes.find((n) => n.id !== leaderId)!;
    const c = tlsClient([follower.address]);
    const st = await c.status();
    expect(st.leaderAddress).to.equal(cluster.node(leaderId).address);
    expect(st.members.map((m) => m.address).sort()).to.deep.equal(cluster.nodes.map((n) => n.address).sort());
    // Acquire through the follower alone: a forwarded write.
    const d = new LockClient({
      endpoints: [follower.address],
      cacert: readFileSync(pki.caCert),
      cert: readFileSync(root.cert),
      key: readFileSync(root.key),
      watchLocks: false,
    });
    clients.push(d);
    const lease = await d.grantLease(5000);
    const info = await d.inspect('nobody-holds-this');
    expect(info.held).to.equal(false);
    await lease.revoke();
  });

  it('refuses a plaintext client, a client without a certificate, and a certificate from another CA', async () => {
    const n1 = cluster.node('n1').address;
    expect((await statusVia(n1, grpc.credentials.createInsecure())).code).to.equal(grpc.status.UNAVAILABLE);
    expect((await statusVia(n1, pki.channelCredentials())).code).to.equal(grpc.status.UNAVAILABLE);
    const other = TestPki.create();
    try {
      const mallory = other.client('root'); // same CN, wrong CA
      expect((await statusVia(n1, grpc.credentials.createSsl(readFileSync(pki.caCert), readFileSync(mallory.key), readFileSync(mallory.cert)))).code).to.equal(
        grpc.status.UNAVAILABLE,
      );
    } finally {
      other.remove();
    }
    // The control: the same call with the cluster's root certificate succeeds.
    expect((await statusVia(n1, rootCreds())).code).to.equal(grpc.status.OK);
  });

  it('refuses a valid CLIENT certificate on the peer port, for Raft streams and forwarded calls alike', async () => {
    const n1 = cluster.node('n1');
    const raft = await raftStreamVia(n1.peerAddress, rootCreds(), cluster.clusterId, 'n2');
    expect(raft.code).to.equal(grpc.status.UNAUTHENTICATED);
    expect(raft.details).to.contain('names no peer');
    const fwd = await forwardedInspectVia(n1.peerAddress, rootCreds(), cluster.clusterId, 'n2');
    expect(fwd.code).to.equal(grpc.status.UNAUTHENTICATED);
    // No certificate at all: the TLS handshake itself fails.
    expect((await raftStreamVia(n1.peerAddress, pki.channelCredentials(), cluster.clusterId, 'n2')).code).to.equal(grpc.status.UNAVAILABLE);
    // The control: n2's own certificate opens the stream.
    const n2Creds = pki.channelCredentials(pki.nodeFiles('n2'));
    expect(await raftStreamVia(n1.peerAddress, n2Creds, cluster.clusterId, 'n2')).to.deep.equal({ code: grpc.status.OK, details: 'accepted' });
  });

  it('refuses (and logs) a peer certificate that names another member than the one it claims', async () => {
    const n1 = cluster.node('n1');
    const asN3 = pki.channelCredentials(pki.nodeFiles('n3'));
    const r = await raftStreamVia(n1.peerAddress, asN3, cluster.clusterId, 'n2');
    expect(r.code).to.equal(grpc.status.UNAUTHENTICATED);
    expect(r.details).to.contain('names peer n3, not n2');
    expect((await forwardedInspectVia(n1.peerAddress, asN3, cluster.clusterId, 'n2')).code).to.equal(grpc.status.UNAUTHENTICATED);
    await waitFor('the refusal in n1.log', () => (logged(cluster, 'n1', 'refused peer stream', 'names peer n3, not n2') ? true : undefined), 5000);
  });

  it('a member stating a malformed client address is refused, and what clients are told does not change', async () => {
    const n1 = cluster.node('n1');
    const asN2 = pki.channelCredentials(pki.nodeFiles('n2'));
    for (const bad of ['not an address', `evil.example:${'9'.repeat(6)}`, `${'a'.repeat(300)}:1`]) {
      const r = await raftStreamVia(n1.peerAddress, asN2, cluster.clusterId, 'n2', { 'lockd-client-address': bad });
      expect(r.code, bad).to.equal(grpc.status.INVALID_ARGUMENT);
    }
    const st = await tlsClient([n1.address]).status();
    expect(st.members.find((m) => m.id === 'n2')?.address).to.equal(cluster.node('n2').address);
  });

  it('a member stating a good client address with a malformed HTTP address is refused, and neither is recorded', async () => {
    const n1 = cluster.node('n1');
    const asN2 = pki.channelCredentials(pki.nodeFiles('n2'));
    const r = await raftStreamVia(n1.peerAddress, asN2, cluster.clusterId, 'n2', {
      'lockd-client-address': '127.0.0.1:1',
      'lockd-http-address': 'not an address',
    });
    expect(r.code).to.equal(grpc.status.INVALID_ARGUMENT);
    const st = await tlsClient([n1.address]).status();
    expect(st.members.find((m) => m.id === 'n2')?.address).to.equal(cluster.node('n2').address);
  });

  it('the peer port does not serve lockd.v1 and the client port does not serve raft.v1', async () => {
    const n1 = cluster.node('n1');
    const onPeer = await statusVia(n1.peerAddress, rootCreds());
    expect(onPeer.code).to.equal(grpc.status.UNIMPLEMENTED);
    const onClient = await raftStreamVia(n1.address, pki.channelCredentials(pki.nodeFiles('n2')), cluster.clusterId, 'n2');
    expect(onClient.code).to.equal(grpc.status.UNIMPLEMENTED);
  });

  it('a node refuses to start with a certificate that does not name it (exit 2, a clear message)', async () => {
    const n2 = pki.nodeFiles('n2');
    const r = await cluster.runToExit(cluster.argsFor('n1', { '--tls-cert': n2.cert, '--tls-key': n2.key, '--data-dir': `${cluster.baseDir}/refused` }));
    expect(r.code).to.equal(2);
    expect(r.output).to.contain('cannot serve member n1').and.to.contain('DNS:n1.peer.lockd');
  });

  it('SIGHUP reloads a rotated certificate: new connections get it, open ones and peers keep working; unusable files change nothing', async () => {
    const n1 = cluster.node('n1');
    const c = tlsClient([n1.address]);
    const lease = await c.grantLease(3000, { keepAliveIntervalMs: 200 });
    const before = await servedFingerprint(n1.address, pki, root);
    const files = pki.node('n1'); // a new key and certificate, written over the old files
    const rotated = fingerprintOf(files.cert);
    expect(rotated).to.not.equal(before);
    const reloads = () => cluster.log('n1').split('"tls reloaded"').length - 1;
    const seen = reloads();
    cluster.signal('n1', 'SIGHUP');
    await waitFor('n1 to reload its certificates', () => (reloads() > seen ? true : undefined), 5000);
    expect(await servedFingerprint(n1.address, pki, root)).to.equal(rotated);
    // The client's open connection still works, and so does a new one; the lease never lapsed.
    expect((await c.timeToLive(lease.id)).remainingMs).to.be.greaterThan(0);
    expect((await statusVia(n1.address, rootCreds())).code).to.equal(grpc.status.OK);
    // Peers dial n1 anew with the rotated certificate: n2's fresh stream is accepted (it names n1).
    expect(await raftStreamVia(n1.peerAddress, pki.channelCredentials(pki.nodeFiles('n2')), cluster.clusterId, 'n2')).to.deep.equal({
      code: grpc.status.OK,
      details: 'accepted',
    });

    // A broken rotation (a key that does not fit) is refused and logged; n1 keeps serving the good one.
    const goodKey = readFileSync(files.key);
    writeFileSync(files.key, readFileSync(pki.client('stray').key));
    try {
      cluster.signal('n1', 'SIGHUP');
      await waitFor(
        'the refused reload in n1.log',
        () => (logged(cluster, 'n1', 'SIGHUP: kept the current certificates', 'is not the key of') ? true : undefined),
        5000,
      );
      expect(await servedFingerprint(n1.address, pki, root)).to.equal(rotated);
    } finally {
      writeFileSync(files.key, goodKey);
    }
    expect((await c.timeToLive(lease.id)).remainingMs).to.be.greaterThan(0);
    await lease.revoke();
  });

  it('a node dialing a member checks the member id in the server certificate, whatever answers at its address', async () => {
    // Stand a TLS server at n3's peer address in place of n3: with a certificate naming n9 (same CA),
    // n1 and n2 must hang up before sending a single byte; with n3's own certificate they talk.
    const n3 = cluster.node('n3');
    await cluster.kill('n3');
    const [host, port] = [n3.peerAddress.split(':')[0], Number(n3.peerAddress.split(':')[1])];
    const impostor = async (cert: CertFiles): Promise<{ connections: number; bytes: number; close(): Promise<void> }> => {
      const seen = { connections: 0, bytes: 0 };
      const sockets = new Set<Socket>();
      const server = createTlsServer(
        { cert: readFileSync(cert.cert), key: readFileSync(cert.key), ca: readFileSync(pki.caCert), requestCert: true, ALPNProtocols: ['h2'] },
        (sock) => {
          sock.on('data', (d) => (seen.bytes += d.length)); // application data: HTTP/2 from a dialer that accepted us
          sock.on('error', () => {});
        },
      );
      server.on('connection', (s: Socket) => {
        seen.connections++; // TCP: a dialer tried
        sockets.add(s);
      });
      server.on('tlsClientError', () => {});
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      const close = async () => {
        for (const s of sockets) s.destroy(); // dialers that accepted us hold their connections open
        await new Promise((r) => server.close(r));
      };
      return Object.assign(seen, { close });
    };
    const wrong = await impostor(pki.node('n3', 'n9', 'n3-as-n9'));
    try {
      await waitFor('n1/n2 to try the impostor', () => (wrong.connections >= 2 ? true : undefined), 15_000);
      expect(wrong.bytes).to.equal(0);
    } finally {
      await wrong.close();
    }
    const right = await impostor(pki.nodeFiles('n3'));
    try {
      await waitFor('n1/n2 to talk to the real n3 certificate', () => (right.bytes > 0 ? true : undefined), 15_000);
    } finally {
      await right.close();
    }
  });
});
