// One directed network link as a TCP proxy on 127.0.0.1: node i dials this port to reach node j (or
// a client dials it to reach node j), and the proxy forwards bytes both ways. The nemesis sets its mode:
//  - up:    forward;
//  - hang:  a blackhole — stop forwarding but keep every socket open (bytes wait, unread, in the
//           kernel's buffers; new connections are accepted and left hanging) until the link is up again;
//  - delay: keep reading, but hold every chunk in the proxy for `delayMs` before passing it on, in
//           order, in both directions (the sender's TCP sees its bytes acknowledged, as behind a slow
//           path or a stalled middlebox). A request whose caller timed out and retried elsewhere
//           still lands, late — a delayed duplicate on real TCP. Leaving the mode releases every
//           held chunk at once, in order (to 'up' or 'hang'; 'reset' drops them);
//  - reset: send RST on every connection of the link, and on each new one, until the link is up again.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type LinkMode = 'up' | 'hang' | 'delay' | 'reset';

/** Bytes a connection may hold in one direction in delay mode before its sender is paused (a bound, not a drop). */
const MAX_HELD_BYTES = 8 << 20;

interface Held {
  readonly at: number; // performance.now() at which the chunk may go
  readonly chunk: Buffer;
}

/** One direction of a connection: chunks held back (delay mode, or still draining after it). */
interface Lane {
  readonly held: Held[];
  bytes: number;
  timer: NodeJS.Timeout | undefined;
}

interface Pair {
  readonly down: Socket; // from the dialing side
  up: Socket | undefined; // to the target (opened while the link is up or delayed)
  readonly pending: Buffer[]; // bytes from `down` read before `up` was connected
  readonly toUp: Lane;
  readonly toDown: Lane;
}

const lane = (): Lane => ({ held: [], bytes: 0, timer: undefined });

export class LinkProxy {
  private modeNow: LinkMode = 'up';
  private delayNow = 0;
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

  /** Bytes currently held back by delay mode, over all connections and both directions. */
  get heldBytes(): number {
    let n = 0;
    for (const p of this.pairs) n += p.toUp.bytes + p.toDown.bytes;
    return n;
  }

  /** Set the mode; `delayMs` (delay mode only, 1..60000) is how long each chunk is held. */
  setMode(mode: LinkMode, delayMs = 0): void {
    if (mode === 'delay' && !(Number.isInteger(delayMs) && delayMs >= 1 && delayMs <= 60_000))
      throw new Error(`tcp proxy: delay must be an integer in [1, 60000] ms, got ${delayMs}`);
    if (this.closed || (mode === this.modeNow && (mode !== 'delay' || delayMs === this.delayNow))) return;
    const wasDelay = this.modeNow === 'delay';
    this.modeNow = mode;
    this.delayNow = mode === 'delay' ? delayMs : 0;
    for (const p of [...this.pairs]) {
      // Out of delay mode, what was held goes now (in order); a reset drops it with the connection.
      if (wasDelay && mode !== 'delay' && mode !== 'reset')
        for (const l of [p.toUp, p.toDown]) l.held.splice(0, l.held.length, ...l.held.map((h) => ({ at: 0, chunk: h.chunk })));
      this.apply(p);
      if (this.pairs.has(p) && mode !== 'hang') {
        this.flush(p, 'up');
        this.flush(p, 'down');
      }
    }
  }

  private accept(down: Socket): void {
    if (this.closed) return void down.destroy();
    const pair: Pair = { down, up: undefined, pending: [], toUp: lane(), toDown: lane() };
    this.pairs.add(pair);
    down.on('error', () => this.drop(pair));
    down.on('close', () => this.drop(pair));
    down.on('data', (chunk: Buffer) => this.forward(pair, 'up', chunk));
    this.apply(pair);
  }

  /** A chunk read from one side, for the other: straight through, or held (delay mode, or behind held chunks). */
  private forward(pair: Pair, to: 'up' | 'down', chunk: Buffer): void {
    const l = to === 'up' ? pair.toUp : pair.toDown;
    if (this.modeNow === 'delay' || l.held.length) {
      l.held.push({ at: performance.now() + this.delayNow, chunk });
      l.bytes += chunk.length;
      if (l.bytes > MAX_HELD_BYTES) (to === 'up' ? pair.down : pair.up)?.pause();
      this.flush(pair, to);
      return;
    }
    this.write(pair, to, chunk);
  }

  private write(pair: Pair, to: 'up' | 'down', chunk: Buffer): void {
    if (to === 'down') {
      if (!pair.down.write(chunk)) pair.up?.pause();
      return;
    }
    if (!pair.up || pair.up.connecting) {
      pair.pending.push(chunk);
      return;
    }
    if (!pair.up.write(chunk)) pair.down.pause();
  }

  /** Pass on the held chunks that are due, in order; wake up for the next one. */
  private flush(pair: Pair, to: 'up' | 'down'): void {
    const l = to === 'up' ? pair.toUp : pair.toDown;
    if (l.timer) clearTimeout(l.timer);
    l.timer = undefined;
    if (!this.pairs.has(pair) || this.modeNow === 'hang' || this.modeNow === 'reset') return;
    const now = performance.now();
    while (l.held.length && l.held[0].at <= now) {
      const h = l.held.shift()!;
      l.bytes -= h.chunk.length;
      this.write(pair, to, h.chunk);
    }
    if (l.held.length) l.timer = setTimeout(() => this.flush(pair, to), Math.max(1, l.held[0].at - now));
    else if (l.bytes <= MAX_HELD_BYTES) (to === 'up' ? pair.down : pair.up)?.resume();
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
      case 'delay':
        if (!pair.up) this.openUpstream(pair);
        else {
          down.resume();
          pair.up.resume();
        }
        return;
    }
  }

  private get flowing(): boolean {
    return this.modeNow === 'up' || this.modeNow === 'delay';
  }

  private openUpstream(pair: Pair): void {
    const [host, port] = splitAddress(this.target);
    const up = connect({ host, port, noDelay: true });
    pair.up = up;
    up.on('connect', () => {
      for (const chunk of pair.pending.splice(0)) up.write(chunk);
      if (this.flowing) pair.down.resume();
    });
    up.on('data', (chunk: Buffer) => this.forward(pair, 'down', chunk));
    up.on('drain', () => this.flowing && pair.down.resume());
    pair.down.on('drain', () => this.flowing && up.resume());
    // The target is down or went away: the dialer sees its connection fail, as it would without us.
    up.on('error', () => this.drop(pair, true));
    up.on('close', () => this.drop(pair, true));
    if (!this.flowing) up.pause();
  }

  private drop(pair: Pair, reseting = false): void {
    if (!this.pairs.delete(pair)) return;
    for (const l of [pair.toUp, pair.toDown]) {
      if (l.timer) clearTimeout(l.timer);
      l.held.length = 0;
      l.bytes = 0;
    }
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
