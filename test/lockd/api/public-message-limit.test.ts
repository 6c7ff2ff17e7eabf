// The public port's message limit is the transport's, not only the decoder's: since the split of the
// listeners, nothing on the public port needs the peer service's 64 MiB messages, so a
// request announcing more than MAX_REQUEST_BYTES is refused as soon as its 5-byte gRPC prefix is read.
// Before, the public server took the peer limit and refused an oversized request only once it had
// buffered all of it: any client (no certificate needed without --client-cert-auth) could make a node
// hold up to 64 MiB per stream, on thousands of streams per connection, by sending slowly.
import { connect, type ClientHttp2Session } from 'node:http2';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { MAX_REQUEST_BYTES } from '../../../src/lockd/api/public-limits.js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import { ProcessCluster } from '../../support/process-cluster.js';
import { announce } from '../../support/raw-grpc.js';

describe('public port: the request size limit holds at the transport (real processes)', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let session: ClientHttp2Session | undefined;

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader(); // every node listening
  });
  afterEach(() => session?.close());
  after(async () => {
    await cluster?.stop();
  });

  it(`refuses a request announcing ${MAX_REQUEST_BYTES + 1} bytes at once (RESOURCE_EXHAUSTED), without waiting for its body`, async () => {
    session = connect(`http://${cluster.nodes[0].address}`);
    session.on('error', () => {});
    // 5 s: a refusal takes milliseconds; a server that waits for the 4 MiB body never answers.
    expect(await announce(session, '/lockd.v1.Lock/Inspect', MAX_REQUEST_BYTES + 1, 5000)).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(await announce(session, '/lockd.v1.Lease/KeepAlive', 32 * 1024 * 1024, 5000)).to.equal(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('a forwarded call on the peer port (whose transport takes 64 MiB Raft messages) is still held to the public limit', async () => {
    const [from, to] = cluster.nodes;
    const c = new grpc.Client(to.peerAddress, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set('lockd-forwarded', from.id);
    md.set('lockd-cluster-id', cluster.clusterId);
    const m = lockdProto.lockd.v1.Lock.service.Inspect;
    const err = await new Promise<grpc.ServiceError | null>((resolve) =>
      c.makeUnaryRequest(
        '/lockd.forwarded.v1.Lock/Inspect',
        m.requestSerialize,
        m.responseDeserialize,
        { name: 'x'.repeat(MAX_REQUEST_BYTES + 1) },
        md,
        { deadline: Date.now() + 10_000 },
        (e) => resolve(e),
      ),
    );
    c.close();
    expect(err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(err?.details).to.match(/exceeds the limit of 4194304 bytes/);
  });

  it('a service limited below the transport on the public port (grpc.health.v1, 1 KiB) still refuses a larger request, and answers a small one', async () => {
    const c = new grpc.Client(cluster.nodes[0].address, grpc.credentials.createInsecure());
    const ser = (service: string) => Buffer.concat([Buffer.from([0x0a, ...varint(Buffer.byteLength(service))]), Buffer.from(service)]); // HealthCheckRequest{service}
    const check = (service: string) =>
      new Promise<grpc.ServiceError | null>((resolve) =>
        c.makeUnaryRequest(
          '/grpc.health.v1.Health/Check',
          ser,
          (b: Buffer) => b,
          service,
          new grpc.Metadata(),
          { deadline: Date.now() + 10_000 },
          (e) => resolve(e),
        ),
      );
    const big = await check('x'.repeat(2000));
    expect(big?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(big?.details).to.match(/exceeds the limit of 1024 bytes/);
    expect(await check('lockd.v1.Lock')).to.equal(null);
    c.close();
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}
