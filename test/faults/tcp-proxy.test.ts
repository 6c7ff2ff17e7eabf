// The link proxy on real sockets: forwards, hangs (bytes held, connection open), delays (bytes held in
// the proxy, then delivered in order), and resets.
import { expect } from 'chai';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { LinkProxy } from './tcp-proxy.js';
import { ProxyMesh, ringLinks, splitLinks } from './network.js';
import { waitFor } from '../support/process-cluster.js';

function echoServer(): Promise<{ server: Server; address: string }> {
  const server = createServer((s) => {
    s.on('error', () => undefined); // a reset by the proxy
    s.pipe(s);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, address: `127.0.0.1:${(server.address() as { port: number }).port}` })),
  );
}

function dial(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let data = '';
    let closed = false;
    const socket = connect({ host: '127.0.0.1', port }, () => resolve({ socket, received: () => data, closed: () => closed }));
    socket.on('data', (d) => (data += d));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    socket.once('error', reject);
  });
}

/** Check `assertion` every 10 ms for `ms`: for what must NOT happen, failing at its first sign. */
async function holdsFor(ms: number, assertion: () => void): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    assertion();
    if (Date.now() >= until) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('faults: TCP link proxy', function () {
  this.timeout(10_000);
  let server: Server | undefined;
  let proxy: LinkProxy | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await proxy?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = proxy = undefined;
  });

  it('forwards, holds bytes while hanging without closing, delivers them when up again', async () => {
    const echo = await echoServer();
    server = echo.server;
    proxy = await LinkProxy.start(echo.address);
    const c = await dial(proxy.port);
    sockets.push(c.socket);
    c.socket.write('one');
    await waitFor('echo through the proxy', () => (c.received() === 'one' ? true : undefined), 3000, 10);

    proxy.setMode('hang');
    // Once the bytes have left the client (the write's callback), a hang is silence: watched every
    // 10 ms for 300 ms, nothing arrives and nothing closes (the first sign of either fails at once).
    await new Promise<void>((resolve, reject) => c.socket.write('two', (e) => (e ? reject(e) : resolve())));
    await holdsFor(300, () => {
      expect(c.received()).to.equal('one');
      expect(c.closed()).to.equal(false);
    });

    proxy.setMode('up');
    await waitFor('held bytes delivered after the hang', () => (c.received() === 'onetwo' ? true : undefined), 3000, 10);
  });

  it('delay: holds every chunk for the delay, both ways, and delivers them in order', async () => {
    const echo = await echoServer();
    server = echo.server;
    proxy = await LinkProxy.start(echo.address);
    const c = await dial(proxy.port);
    sockets.push(c.socket);
    const delayMs = 300;
    proxy.setMode('delay', delayMs);
    const sent = performance.now();
    // Several chunks, apart in time: each one is held on the way out and again on the way back.
    for (const part of ['one', 'two', 'three']) {
      c.socket.write(part);
      await new Promise((r) => setTimeout(r, 20));
    }
    await waitFor('held bytes, then all of them in order', () => (c.received() === 'onetwothree' ? true : undefined), 5000, 5);
    // Node timers may fire up to a millisecond early; the round trip crossed the delay twice.
    expect(performance.now() - sent).to.be.at.least(2 * delayMs - 5);
    expect(c.closed()).to.equal(false);
    expect(proxy.heldBytes).to.equal(0);
  });

  it('delay: what is held is released at once, in order, when the link is up again; a reset drops it', async () => {
    const echo = await echoServer();
    server = echo.server;
    proxy = await LinkProxy.start(echo.address);
    const c = await dial(proxy.port);
    sockets.push(c.socket);
    proxy.setMode('delay', 60_000);
    c.socket.write('late-');
    c.socket.write('duplicate');
    await waitFor('bytes held in the proxy', () => (proxy!.heldBytes === 'late-duplicate'.length ? true : undefined), 3000, 5);
    expect(c.received()).to.equal('');
    proxy.setMode('up');
    // Within 3 s, not the 60 s of the delay: released at once.
    await waitFor('held bytes delivered on release', () => (c.received() === 'late-duplicate' ? true : undefined), 3000, 5);
    // Forwarding is direct again.
    c.socket.write('!');
    await waitFor('direct forwarding after the delay', () => (c.received() === 'late-duplicate!' ? true : undefined), 3000, 5);

    proxy.setMode('delay', 60_000);
    c.socket.write('never');
    await waitFor('bytes held again', () => (proxy!.heldBytes > 0 ? true : undefined), 3000, 5);
    proxy.setMode('reset');
    await waitFor('the connection reset', () => (c.closed() ? true : undefined), 3000, 5);
    expect(c.received()).to.equal('late-duplicate!');
    expect(proxy.heldBytes).to.equal(0);
    expect(() => proxy!.setMode('delay', 0)).to.throw(/delay must be/);
  });

  it('resets open connections and refuses new ones while in reset mode', async () => {
    const echo = await echoServer();
    server = echo.server;
    proxy = await LinkProxy.start(echo.address);
    const c = await dial(proxy.port);
    sockets.push(c.socket);
    proxy.setMode('reset');
    await waitFor('reset of the open connection', () => (c.closed() ? true : undefined), 3000, 10);
    // A new connection is reset at once: the connect itself fails, or the socket closes right after.
    const d = await dial(proxy.port).catch((e: Error) => e);
    if (!(d instanceof Error)) {
      sockets.push(d.socket);
      await waitFor('a new connection reset at once', () => (d.closed() ? true : undefined), 3000, 10);
    } else expect(d.message).to.match(/ECONNRESET/);
    proxy.setMode('up');
    const e = await dial(proxy.port);
    sockets.push(e.socket);
    e.socket.write('back');
    await waitFor('forwarding after the reset ends', () => (e.received() === 'back' ? true : undefined), 3000, 10);
  });

  it('a mesh gives each node its own --peers, and cuts exactly the links asked for', async () => {
    const addrs = new Map([
      ['n1', '127.0.0.1:1001'],
      ['n2', '127.0.0.1:1002'],
      ['n3', '127.0.0.1:1003'],
    ]);
    const mesh = await ProxyMesh.start(addrs);
    try {
      const peers = mesh.peersFlagFor('n2').split(',');
      expect(peers[1]).to.equal('n2=127.0.0.1:1002');
      expect(peers[0]).to.equal(`n1=${mesh.link('n2', 'n1').address}`);
      mesh.cut(splitLinks([['n1'], ['n2', 'n3']]), 'hang');
      expect(mesh.cutLinks().sort()).to.deep.equal(['n1→n2', 'n1→n3', 'n2→n1', 'n3→n1']);
      mesh.heal();
      mesh.cutClients(['n3'], 'delay', 500);
      expect(mesh.cutLinks()).to.deep.equal(['clients→n3']);
      expect(mesh.clientAddress('n3')).to.equal(mesh.clientLink('n3').address);
      mesh.heal();
      expect(mesh.cutLinks()).to.deep.equal([]);
    } finally {
      await mesh.close();
    }
    const ring = ringLinks(['a', 'b', 'c', 'd', 'e']).map(([x, y]) => x + y);
    expect(ring.sort()).to.deep.equal(['ac', 'ad', 'bd', 'be', 'ca', 'ce', 'da', 'db', 'eb', 'ec']);
  });
});
