// The client port's own listener (node/public-port.ts) with a bare gRPC server: every connection is
// asked of admission before gRPC sees it, a refused one is closed, and one that sends nothing
// within the first-byte bound is reset while a working one stays.
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { PublicPort } from '../../../src/lockd/node/public-port.js';
import type { PublicAdmission } from '../../../src/lockd/node/public-admission.js';

describe('the client port listener', function () {
  this.timeout(20_000);
  const server = new grpc.Server();
  const accepted: Socket[] = [];
  let refuseNext = false;
  const admission: PublicAdmission = {
    admitConnection: (s) => {
      if (refuseNext) return (refuseNext = false);
      accepted.push(s);
      return true;
    },
    admitCall: () => ({ release: () => {} }),
  };
  const port = new PublicPort(server, () => admission, 200);
  let address = '';
  let client: grpc.Client;
  const call = () =>
    new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest(
        '/x.Y/Z',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        { deadline: Date.now() + 5000 },
        (e) => resolve(e),
      ),
    );
  const raw = () =>
    new Promise<Socket>((resolve) => {
      const [host, p] = address.split(':');
      const s = connect({ host, port: Number(p) }, () => resolve(s));
      s.on('error', () => {});
    });
  const gone = (s: Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

  before(async () => {
    address = `127.0.0.1:${await port.listen('127.0.0.1:0', grpc.ServerCredentials.createInsecure())}`;
    client = new grpc.Client(address, grpc.credentials.createInsecure());
  });
  after(() => {
    client?.close();
    port.destroy();
    server.forceShutdown();
  });

  it('serves gRPC on what admission admits and closes what it refuses before a byte is read', async () => {
    expect((await call())?.code, 'served (no such method)').to.equal(grpc.status.UNIMPLEMENTED);
    refuseNext = true;
    const refused = await raw();
    await gone(refused);
    expect(accepted.length).to.equal(1);
  });

  it('resets a connection that sends nothing within the first-byte bound, and keeps one that works', async () => {
    const silent = await raw(); // accepted after the client's: its bound passes last
    await gone(silent);
    expect((await call())?.code).to.equal(grpc.status.UNIMPLEMENTED);
    expect(accepted.length, 'the client did not have to reconnect').to.equal(2);
    expect(accepted[0].destroyed).to.equal(false);
  });
});
