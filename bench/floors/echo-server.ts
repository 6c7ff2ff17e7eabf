// The echo server, run as its own process: `node --import tsx bench/floors/echo-server.ts PORT`.
import * as grpc from '@grpc/grpc-js';
import { Echo } from './echo-proto.js';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: echo-server.ts PORT\n');
  process.exit(2);
}
const server = new grpc.Server();
server.addService(Echo.service, {
  Unary: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => cb(null, call.request),
  Stream: (call: grpc.ServerDuplexStream<unknown, unknown>) => {
    call.on('data', (m) => call.write(m));
    call.on('end', () => call.end());
  },
});
server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    process.stderr.write(`echo-server: ${err.message}\n`);
    process.exit(1);
  }
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
