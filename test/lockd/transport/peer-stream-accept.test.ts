// A peer stream that is never accepted (the dial's packets vanish, or the far end never speaks
// HTTP/2) is given up after ACCEPT_TIMEOUT_MS and the next attempt dials on a NEW channel: a new
// connection, and for a DNS name a new resolution. grpc-js alone would wait on the first dial for
// the kernel's connect timeout (minutes). The far end here is a TCP server that accepts and stays
// silent; what the test counts is the connections it receives.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { createServer, type Socket } from 'node:net';
import { pino } from 'pino';
import { ACCEPT_TIMEOUT_MS, PeerStream } from '../../../src/lockd/transport/peer-stream.js';
import { waitFor } from './harness.js';

describe('PeerStream: a stream never accepted', function () {
  this.timeout(20_000);

  it('is given up after ACCEPT_TIMEOUT_MS and re-dialed on a new connection', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s)); // accepts, never answers the HTTP/2 preface
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    let downs = 0;
    const t0 = Date.now();
    const stream = new PeerStream({
      clusterId: 'c',
      selfId: 'n1',
      peerId: 'n2',
      address: `localhost:${port}`,
      logger: pino({ level: 'silent' }),
      backoff: { initialMs: 50, maxMs: 200 },
      maxQueued: 16,
      channelOptions: {},
      credentials: grpc.credentials.createInsecure(),
      clientAddress: '',
      httpAddress: '',
      onAddresses: () => {},
      onDown: () => downs++,
    });
    try {
      await waitFor('a first connection', () => sockets.length >= 1, 5000);
      expect(stream.state).to.equal('connecting');
      await waitFor('the stream given up and a second connection dialed', () => sockets.length >= 2 && downs >= 1, 3 * ACCEPT_TIMEOUT_MS);
      expect(Date.now() - t0).to.be.at.least(ACCEPT_TIMEOUT_MS);
    } finally {
      stream.close();
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
