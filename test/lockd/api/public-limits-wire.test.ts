// The public 4 MiB request limit as a stranger meets it on the wire (raw HTTP/2, no gRPC client):
// a message that only DECLARES more than 4 MiB in its length prefix, or a compressed message that
// inflates past 4 MiB, must be refused without the node buffering or inflating the rest. Before
// the limit reached the decoder, the node's decoder took the peer service's 64 MiB: it waited for
// (and held) up to 64 MiB per stream, 4,096 streams per connection, and inflated a 64 KiB gzip body
// to 64 MiB before the marker refused it.
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ProcessCluster } from '../../support/process-cluster.js';
import { MAX_REQUEST_BYTES } from '../../../src/lockd/api/public-limits.js';

const MiB = 1024 * 1024;

interface Outcome {
  status?: string;
  message?: string;
}

/** Send `body` (already framed) on a raw gRPC call to `path` and report how the call ended, within `timeoutMs`. */
function rawCall(
  h2: ClientHttp2Session,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
  end = false,
): Promise<Outcome | 'no answer'> {
  return new Promise((resolve) => {
    const req = h2.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    const timer = setTimeout(() => {
      req.close(constants.NGHTTP2_CANCEL);
      resolve('no answer');
    }, timeoutMs);
    const out: Outcome = {};
    const done = (): void => {
      clearTimeout(timer);
      resolve(out);
      req.close(constants.NGHTTP2_CANCEL); // our half may still be open
    };
    // The status comes in the trailers (or, for an immediate refusal, the headers).
    const take = (h: Record<string, unknown>): void => {
      if (h['grpc-message'] !== undefined) out.message = decodeURIComponent(String(h['grpc-message']));
      if (h['grpc-status'] === undefined) return;
      out.status = String(h['grpc-status']);
      done();
    };
    req.on('response', take);
    req.on('trailers', take);
    req.on('data', () => {});
    req.on('error', () => {});
    req.on('close', done);
    // Unless `end`, the stream stays open: the client may still be "sending the rest".
    if (end) req.end(body);
    else req.write(body);
  });
}

function frame(compressed: boolean, declaredLength: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(compressed ? 1 : 0, 0);
  head.writeUInt32BE(declaredLength, 1);
  return Buffer.concat([head, payload]);
}

describe('public message limit on the wire (real processes, raw HTTP/2)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let leader: string;
  let h2: ClientHttp2Session;

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    leader = await cluster.waitForLeader();
  });
  beforeEach(() => {
    h2 = connect(`http://${cluster.node(leader).address}`);
    h2.on('error', () => {});
  });
  afterEach(() => h2?.close());
  after(async () => {
    await cluster?.stop();
  });

  it('refuses a message whose length prefix declares more than 4 MiB at once, before its body is sent', async () => {
    // Only the 5-byte prefix of a 5 MiB Inspect: a node that waits for the body holds the stream
    // (and, as the body arrives, up to 64 MiB) for as long as the client likes.
    const outcome = await rawCall(h2, '/lockd.v1.Lock/Inspect', frame(false, 5 * MiB, Buffer.alloc(0)), {}, 5000);
    expect(outcome, 'the node waited for the body of an oversized message').to.not.equal('no answer');
    expect((outcome as Outcome).status).to.equal('8'); // RESOURCE_EXHAUSTED
  });

  it('refuses the same on a Session stream', async () => {
    const outcome = await rawCall(h2, '/lockd.v1.Session/Open', frame(false, MAX_REQUEST_BYTES + 1, Buffer.alloc(1024)), {}, 5000);
    expect(outcome, 'the node waited for the body of an oversized message').to.not.equal('no answer');
    expect((outcome as Outcome).status).to.equal('8');
  });

  it('stops inflating a gzip message at 4 MiB: a small body that inflates to 60 MiB is refused by the 4 MiB limit', async () => {
    const inflated = Buffer.alloc(60 * MiB); // zeros: ~60 KiB compressed
    const gz = gzipSync(inflated);
    expect(gz.length).to.be.below(MAX_REQUEST_BYTES);
    const outcome = await rawCall(h2, '/lockd.v1.Lock/Inspect', frame(true, gz.length, gz), { 'grpc-encoding': 'gzip' }, 10_000, true);
    expect(outcome).to.not.equal('no answer');
    const o = outcome as Outcome;
    expect(o.status).to.equal('8');
    // The refusal names the public limit and no size past it: the inflation stopped at 4 MiB
    // (a node that inflates all 60 MiB first reports "62914560 bytes exceeds the limit").
    expect(o.message).to.include(String(MAX_REQUEST_BYTES));
    expect(o.message).to.not.include(String(inflated.length));
  });

  it('still answers a small request, plain and gzip', async () => {
    // Inspect{name: "a"}: field 1, length 1.
    const msg = Buffer.from([0x0a, 0x01, 0x61]);
    const plain = await rawCall(h2, '/lockd.v1.Lock/Inspect', frame(false, msg.length, msg), {}, 5000, true);
    const gz = gzipSync(msg);
    const zipped = await rawCall(h2, '/lockd.v1.Lock/Inspect', frame(true, gz.length, gz), { 'grpc-encoding': 'gzip' }, 5000, true);
    for (const o of [plain, zipped]) expect(o, JSON.stringify(o)).to.deep.include({ status: '0' }); // OK: the lock is free
  });
});
