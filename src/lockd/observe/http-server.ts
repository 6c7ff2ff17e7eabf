// The node's HTTP endpoint (--http-listen HOST:PORT), plain node:http: /metrics (Prometheus text
// format), /livez and /readyz (200 or 503 with a one-line reason), /events (server-sent events).
// Requests are GET/HEAD only, with bounded headers and time; anything else is 404/405.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { EventStreams } from './event-stream.js';
import type { NodeHealth, Verdict } from './health.js';
import type { NodeMetrics } from './metrics.js';

export interface HttpParts {
  readonly metrics: NodeMetrics;
  readonly health: NodeHealth;
  readonly events: EventStreams;
  readonly logger: Logger;
}

export async function listenHttp(address: string, parts: HttpParts): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('only GET and HEAD\n');
      return;
    }
    const probe = (v: Verdict) => {
      res.writeHead(v.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`${v.reason}\n`);
    };
    switch (path) {
      case '/metrics':
        parts.metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': parts.metrics.registry.contentType });
            res.end(text);
          },
          (e: unknown) => {
            parts.logger.error({ event: 'metrics failed', err: e }, 'collecting metrics failed');
            res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
            res.end('collecting metrics failed\n');
          },
        );
        return;
      case '/livez':
        return probe(parts.health.live());
      case '/readyz':
        return probe(parts.health.ready());
      case '/events':
        if (req.method === 'HEAD') {
          res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
          res.end();
          return;
        }
        return parts.events.serve(req, res);
      default:
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('not found: try /metrics, /livez, /readyz or /events\n');
    }
  });
  // Bounds on what a client may hold: the request's headers and body must arrive in time (an
  // /events response may run for hours; these limit only the request), and connections are capped.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.maxHeadersCount = 64;
  server.maxConnections = 256;
  const { host, port } = splitHostPort(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

function splitHostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}
