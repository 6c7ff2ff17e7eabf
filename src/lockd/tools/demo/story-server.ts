// Story mode's server: the demo's own Story (story.ts) as server-sent events on a loopback port,
// for the dashboard (`?story=http://127.0.0.1:PORT` on any node's page). It takes no input: GET
// /story only, nothing read from the request but its path and Origin, a bounded number of
// connections, and only the cluster members' own dashboard origins may read it cross-origin — so
// no byte from the network reaches the cluster or the demo, and the page's input is this demo's.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Story } from './story.js';

/** Pages reading at once (a student has one or two open). */
const MAX_STREAMS = 8;

export class StoryServer {
  private readonly streams = new Set<ServerResponse>();
  private connected: (() => void) | undefined;
  private readonly firstPage: Promise<void>;

  private constructor(
    private readonly server: Server,
    private readonly story: Story,
    /** Origins allowed to read (the members' dashboards, `http://HOST:PORT`). */
    private readonly origins: ReadonlySet<string>,
  ) {
    this.firstPage = new Promise((resolve) => (this.connected = resolve));
    server.on('request', (req, res) => this.handle(req, res));
    story.subscribe((e) => {
      for (const res of this.streams) res.write(`data: ${JSON.stringify({ story: story.id, ...e })}\n\n`);
    });
  }

  /** Listen on 127.0.0.1:port (0, or a port taken: any free one). */
  static async listen(story: Story, port: number, origins: readonly string[]): Promise<StoryServer> {
    const server = createServer();
    server.maxConnections = MAX_STREAMS * 2;
    server.headersTimeout = 5_000;
    server.requestTimeout = 10_000;
    const bind = (p: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(p, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    try {
      await bind(port);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw e;
      await bind(0);
    }
    return new StoryServer(server, story, new Set(origins));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves when a page has connected, or after timeoutMs (false), or on abort (false). */
  async waitForPage(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      signal.addEventListener('abort', () => resolve(false), { once: true });
    });
    try {
      return await Promise.race([this.firstPage.then(() => true), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    for (const res of this.streams) res.end();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    const cors: Record<string, string> =
      typeof origin === 'string' && this.origins.has(origin) ? { 'access-control-allow-origin': origin, vary: 'Origin' } : { vary: 'Origin' };
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/story') {
      res.writeHead(req.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('only GET /story (server-sent events of this demo)\n');
      return;
    }
    if (this.streams.size >= MAX_STREAMS) {
      res.writeHead(503, { ...cors, 'content-type': 'text/plain; charset=utf-8' });
      res.end(`at most ${MAX_STREAMS} pages read a story at once\n`);
      return;
    }
    res.writeHead(200, { ...cors, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    // retry: the page reconnects fast to the next demo started on this port.
    res.write(`retry: 500\nevent: replay\ndata: ${JSON.stringify({ story: this.story.id, cut: this.story.cut, events: this.story.all() })}\n\n`);
    this.streams.add(res);
    res.on('close', () => this.streams.delete(res));
    this.connected?.();
  }
}
