// A forwarded call on the peer port is judged on its metadata, before its request is read. The peer
// port takes whole Raft messages (64 MiB) and its TLS handshake admits any certificate of the
// cluster's CA — a client's too — so if the member check waited for the request (a unary handler
// runs once the message has arrived whole), a client could make a node buffer 64 MiB per stream,
// on thousands of streams, before being refused.
import { connect, type ClientHttp2Session } from 'node:http2';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ProcessCluster } from '../support/process-cluster.js';
import { TestPki, type CertFiles } from '../support/test-pki.js';
import { announce } from '../support/raw-grpc.js';

describe('peer port: forwarded calls are refused from their metadata (real processes, mTLS)', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let cluster: ProcessCluster;
  let alice: CertFiles;
  let session: ClientHttp2Session | undefined;

  before(async () => {
    pki = TestPki.create();
    alice = pki.client('alice');
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true });
    await cluster.waitForLeader();
  });
  afterEach(() => session?.close());
  after(async () => {
    await cluster?.stop();
    pki?.remove();
  });

  it('a client certificate announcing a 32 MiB forwarded request is refused UNAUTHENTICATED at once, without its body being awaited', async () => {
    const [by, to] = cluster.nodes;
    session = connect(`https://${to.peerAddress}`, {
      ca: readFileSync(pki.caCert),
      cert: readFileSync(alice.cert),
      key: readFileSync(alice.key),
      servername: 'localhost',
    });
    session.on('error', () => {});
    const headers = { 'lockd-forwarded': by.id, 'lockd-cluster-id': cluster.clusterId };
    // 5 s: a refusal from the metadata takes milliseconds; a node waiting for the 32 MiB body never answers.
    expect(await announce(session, '/lockd.forwarded.v1.Lock/Inspect', 32 * 1024 * 1024, 5000, headers)).to.equal(grpc.status.UNAUTHENTICATED);
    // The same answer for a wrong cluster id and for an id that is no member: a client certificate
    // learns neither whether its guess of the cluster id is right nor which ids are members.
    expect(await announce(session, '/lockd.forwarded.v1.Lease/Grant', 32 * 1024 * 1024, 5000, { ...headers, 'lockd-cluster-id': 'a-guess' })).to.equal(
      grpc.status.UNAUTHENTICATED,
    );
    expect(await announce(session, '/lockd.forwarded.v1.Lease/Grant', 32 * 1024 * 1024, 5000, { ...headers, 'lockd-forwarded': 'n77' })).to.equal(
      grpc.status.UNAUTHENTICATED,
    );
  });
});
