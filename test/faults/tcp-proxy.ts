// One directed network link as a TCP proxy on 127.0.0.1: node i dials this port to reach node j, and
// the proxy forwards bytes both ways. The nemesis sets its mode:
//  - up:    forward;
//  - hang:  a blackhole — stop forwarding but keep every socket open (bytes wait, unread, in the
//           kernel's buffers; new connections are accepted and left hanging) until the link is up again;
//  - reset: send RST on every connection of the link, and on each new one, until the link is up again.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type LinkMode = 'up' | 'hang' | 'reset';

interface Pair {
  readonly down: Socket; // from the dialing node
  up: Socket | undefined; // to the target node (opened while the link is up)
  readonly pending: Buffer[]; // bytes from `down` read before `up` was connected
}

export class LinkProxy {
  private modeNow: LinkMode = 'up';
  private readonly pairs = new Set<Pair>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly target: string,
  ) {}

  /** Listen on a free port of 127.0.0.1, forwarding to `target` (host:port). */
  static async start(target: string): Promise<LinkProxy> {
    const server = createServer({ pauseOnConnect: true, noDelay: true });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    const proxy = new LinkProxy(server, port, target);
    server.on('connection', (s) => proxy.accept(s));
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get mode(): LinkMode {
    return this.modeNow;
  }

  get connections(): number {
    return this.pairs.size;
  }

  setMode(mode: LinkMode): void {
    if (this.closed || mode === this.modeNow) return;
    this.modeNow = mode;
    for (const p of [...this.pairs]) this.apply(p);
  }

  private accept(down: Socket): void {
    if (this.closed) return void down.destroy();
    const pair: Pair = { down, up: undefined, pending: [] };
    this.pairs.add(pair);
    down.on('error', () => this.drop(pair));
    down.on('close', () => this.drop(pair));
    down.on('data', (chunk: Buffer) => {
      if (!pair.up || pair.up.connecting) {
        pair.pending.push(chunk);
        return;
      }
      if (!pair.up.write(chunk)) down.pause();
    });
    this.apply(pair);
  }

  /** Bring one connection in line with the link's mode. */
  private apply(pair: Pair): void {
    const { down } = pair;
    switch (this.modeNow) {
      case 'reset':
        reset(down);
        if (pair.up) reset(pair.up);
        this.drop(pair);
        return;
      case 'hang':
        down.pause();
        pair.up?.pause();
        return;
      case 'up':
        if (!pair.up) this.openUpstream(pair);
        else {
          down.resume();
          pair.up.resume();
        }
        return;
    }
  }

  private openUpstream(pair: Pair): void {
    const [host, port] = splitAddress(this.target);
    const up = connect({ host, port, noDelay: true });
    pair.up = up;
    up.on('connect', () => {
      for (const chunk of pair.pending.splice(0)) up.write(chunk);
      if (this.modeNow === 'up') pair.down.resume();
    });
    up.on('data', (chunk: Buffer) => {
      if (!pair.down.write(chunk)) up.pause();
    });
    up.on('drain', () => this.modeNow === 'up' && pair.down.resume());
    pair.down.on('drain', () => this.modeNow === 'up' && up.resume());
    // The target is down or went away: the dialer sees its connection fail, as it would without us.
    up.on('error', () => this.drop(pair, true));
    up.on('close', () => this.drop(pair, true));
    if (this.modeNow !== 'up') up.pause();
  }

  private drop(pair: Pair, reseting = false): void {
    if (!this.pairs.delete(pair)) return;
    if (reseting) reset(pair.down);
    else pair.down.destroy();
    pair.up?.destroy();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of [...this.pairs]) this.drop(p);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function reset(s: Socket): void {
  if (s.destroyed) return;
  if (typeof s.resetAndDestroy === 'function' && !s.connecting) s.resetAndDestroy();
  else s.destroy();
}

function splitAddress(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  const port = Number(address.slice(i + 1));
  if (i <= 0 || !Number.isInteger(port)) throw new Error(`tcp proxy: bad target address ${JSON.stringify(address)}`);
  return [address.slice(0, i), port];
}
