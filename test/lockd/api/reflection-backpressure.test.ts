// The reflection service's one hostile-input guard that a cluster cannot show from outside: a
// client that sends requests and never reads the answers is not read any further, so the server
// does not queue answers for it without bound. The service is registered, as on a node, through
// registerReflection on a real grpc-js server in this process, whose registry counts the answers
// the service writes.
import { expect } from 'chai';
import { connect } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import type { ServiceRegistry } from '../../../src/lockd/node/listeners.js';
import { registerReflection } from '../../../src/lockd/api/reflection-service.js';

describe('reflection: backpressure on a client that does not read', function () {
  const server = new grpc.Server();
  let address = '';
  let written = 0;

  before(async () => {
    const counting: ServiceRegistry = {
      addPublic: (service, impl) => {
        const handlers: grpc.UntypedServiceImplementation = {};
        for (const [name, handler] of Object.entries(impl)) {
          handlers[name] = ((call: grpc.ServerDuplexStream<unknown, unknown>) => {
            const write = call.write.bind(call) as (m: unknown) => boolean;
            call.write = ((m: unknown) => (written++, write(m))) as typeof call.write;
            (handler as (c: typeof call) => void)(call);
          }) as grpc.UntypedHandleCall;
        }
        server.addService(service, handlers);
      },
      addForwardable: () => {
        throw new Error('reflection is public only');
      },
      setAdmission: () => {
        throw new Error('reflection sets no admission control');
      },
    };
    registerReflection(counting);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    address = `127.0.0.1:${port}`;
  });
  after(() => {
    server.forceShutdown();
  });

  it('a client that stops reading (HTTP/2 window closed) is not read further; once it reads, everything is answered', async () => {
    const session = connect(`http://${address}`);
    session.on('error', () => {});
    const path = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo';
    const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    req.on('error', () => {});
    req.pause(); // not reading: no WINDOW_UPDATE, the server's answers stop at its 64 KiB window
    // ServerReflectionRequest { file_containing_symbol (4): "lockd.v1.Lock" }, gRPC-framed: ~20 bytes
    // for an answer of a whole file descriptor (kilobytes).
    const symbol = Buffer.from('lockd.v1.Lock');
    const body = Buffer.concat([Buffer.from([0x22, symbol.length]), symbol]);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
    const requests = 20_000;
    req.write(Buffer.concat(Array.from({ length: requests }, () => frame)));
    try {
      // A few answers fill the window, a few more the server's stream buffer; then it must stop
      // reading. Watched for 2 s, failing at the first sign it reads on.
      const until = Date.now() + 2000;
      while (Date.now() < until) {
        expect(written, 'answers written for a client that reads none').to.be.below(1000);
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(written).to.be.above(0);
      // Reading lets the server read on: every request is answered.
      req.resume();
      req.on('data', () => {});
      const deadline = Date.now() + 30_000;
      while (written < requests && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
      expect(written).to.equal(requests);
    } finally {
      req.close();
      session.close();
    }
  });
});
