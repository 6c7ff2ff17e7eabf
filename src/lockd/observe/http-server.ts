// The node's HTTP endpoint (--http-listen HOST:PORT), plain node:http, or node:https with TLS on:
// /metrics (Prometheus text format), /livez and /readyz (200 or 503 with a one-line reason),
// /events (server-sent events), /state and /cluster (JSON), and the study dashboard at / (static
// files). Requests are GET/HEAD only, with bounded headers and time; anything else is 404/405.
// With TLS, who may read which path is http-access.ts'.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { DashboardFiles } from './dashboard-files.js';
import type { EventStreams } from './event-stream.js';
import type { NodeHealth, Verdict } from './health.js';
import { readRefusal, requestPrincipal } from './http-access.js';
import type { ViewFilter } from '../state-machine/index.js';
import type { NodeMetrics } from './metrics.js';
import type { ClusterView, StateSnapshot } from './state-snapshot.js';

export interface HttpParts {
  readonly metrics: NodeMetrics;
  readonly health: NodeHealth;
  readonly events: EventStreams;
  readonly dashboard: DashboardFiles;
  /** The node's state at this instant; `only`: what this reader may see (undefined: everything). */
  readonly snapshot: (only?: ViewFilter) => StateSnapshot;
  readonly cluster: () => ClusterView;
  readonly logger: Logger;
  /** Whether a (certificate-verified) principal may read /metrics, /events, /state, /cluster and the dashboard. */
  readonly mayRead: (principal: string) => boolean;
  /** What a principal may see of the state, name by name (undefined: everything). */
  readonly viewFilter: (principal: string) => ViewFilter | undefined;
  /** With TLS: the server's context (node certificate, CA for client certificates); undefined = plain HTTP. */
  readonly tls?: SecureContextOptions;
}

export interface HttpEndpoint {
  readonly server: Server;
  readonly port: number;
  /** With TLS: switch to new certificates (SIGHUP); connections already open keep theirs. */
  setSecureContext(ctx: SecureContextOptions): void;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
// The page loads only its own files and talks (fetch, EventSource) to this and the other members'
// endpoints, whose ports it learns at run time: connect-src is the scheme, nothing else is allowed.
const csp = (scheme: string) =>
  `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${scheme}:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** One request: refused (method, certificate, rules), or one of the endpoints. */
function requestHandler(parts: HttpParts, tls: boolean): (req: IncomingMessage, res: ServerResponse) => void {
  const scheme = tls ? 'https' : 'http';
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': TEXT });
      res.end('only GET and HEAD\n');
      return;
    }
    const refusal = readRefusal(req, path, tls, parts.mayRead);
    if (refusal) {
      // With the members' CORS headers, so the dashboard (a page of another member) can read the
      // 403 and say "certificate needed" instead of seeing a network error and drawing the node down.
      res.writeHead(refusal.status, { ...cors(req, parts.cluster(), scheme), 'content-type': TEXT, 'cache-control': 'no-store' });
      res.end(`${refusal.message}\n`);
      return;
    }
    const principal = requestPrincipal(req, tls);
    const only = () => (principal === undefined ? undefined : parts.viewFilter(principal));
    const probe = (v: Verdict) => {
      res.writeHead(v.ok ? 200 : 503, { 'content-type': TEXT, 'cache-control': 'no-store' });
      res.end(`${v.reason}\n`);
    };
    const json = (value: unknown) => {
      res.writeHead(200, { ...cors(req, parts.cluster(), scheme), 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(value));
    };
    switch (path) {
      case '/metrics':
        return serveMetrics(parts, res);
      case '/livez':
        return probe(parts.health.live());
      case '/readyz':
        return probe(parts.health.ready());
      case '/state':
        return json(parts.snapshot(only()));
      case '/cluster':
        return json(parts.cluster());
      case '/events':
        if (req.method === 'HEAD') {
          res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
          res.end();
          return;
        }
        return parts.events.serve(
          req,
          res,
          cors(req, parts.cluster(), scheme),
          principal === undefined ? undefined : { only, mayRead: () => parts.mayRead(principal) },
        );
      default:
        return serveFile(parts, req, res, path, scheme);
    }
  };
}

function serveMetrics(parts: HttpParts, res: ServerResponse): void {
  parts.metrics.registry.metrics().then(
    (text) => {
      res.writeHead(200, { 'content-type': parts.metrics.registry.contentType });
      res.end(text);
    },
    (e: unknown) => {
      parts.logger.error({ event: 'metrics failed', err: e }, 'collecting metrics failed');
      res.writeHead(500, { 'content-type': TEXT });
      res.end('collecting metrics failed\n');
    },
  );
}

/** A dashboard file, or 404 (saying why there is no dashboard, or what there is). */
function serveFile(parts: HttpParts, req: IncomingMessage, res: ServerResponse, path: string, scheme: string): void {
  const file = parts.dashboard.get(path);
  if (file) {
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      'cache-control': 'no-cache',
      'content-security-policy': csp(scheme),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return;
  }
  res.writeHead(404, { 'content-type': TEXT });
  if (path === '/' && parts.dashboard.problem) res.end(`no dashboard here: ${parts.dashboard.problem}\n`);
  else res.end('not found: try / (the dashboard), /metrics, /livez, /readyz, /events, /state or /cluster\n');
}

export async function listenHttp(address: string, parts: HttpParts): Promise<HttpEndpoint> {
  const tls = parts.tls !== undefined;
  const handler = requestHandler(parts, tls);

  // With TLS a client certificate is asked for but not required at the handshake (probes have
  // none); readRefusal() requires a verified one on every path but the probes'. A handshake must
  // finish within 10 s, like the request's headers.
  const server: Server = parts.tls
    ? createHttpsServer({ ...parts.tls, requestCert: true, rejectUnauthorized: false, handshakeTimeout: 10_000 }, handler)
    : createServer(handler);
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
  return {
    server,
    port: (server.address() as AddressInfo).port,
    setSecureContext: (ctx) => {
      if (tls) (server as unknown as { setSecureContext(c: SecureContextOptions): void }).setSecureContext(ctx);
    },
  };
}

/**
 * CORS for the dashboard: a page served by one member reads the others' /events and /cluster. Only
 * the members' own HTTP origins are allowed (never `*`: any web page a user visits could otherwise
 * read the cluster through the user's browser); with TLS, credentials (the client certificate) too.
 */
function cors(req: IncomingMessage, cluster: ClusterView, scheme: string): Record<string, string> {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !cluster.members.some((m) => m.http !== '' && origin === originOf(scheme, m.http))) return { vary: 'Origin' };
  return { 'access-control-allow-origin': origin, vary: 'Origin', ...(scheme === 'https' ? { 'access-control-allow-credentials': 'true' } : {}) };
}

/** The origin a browser states for a page at `address` (HOST:PORT): host in lower case, no default port. */
function originOf(scheme: string, address: string): string {
  try {
    return new URL(`${scheme}://${address}`).origin;
  } catch {
    return ''; // not reached: addresses are checked when learned
  }
}

function splitHostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}
