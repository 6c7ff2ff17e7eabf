// Test clients of a node's observation endpoints: HTTP GET, a Prometheus text scrape read by
// name and labels, a server-sent events reader, and grpc.health.v1 Check.
import { get as httpGet, type ClientRequest } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

export async function getText(url: string, init: RequestInit = {}): Promise<{ status: number; body: string; type: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(3000) });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** The value of metric `name` whose labels include `labels` (undefined when absent). */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => have.includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return undefined;
}

export async function scrape(base: string): Promise<string> {
  const r = await getText(`${base}/metrics`);
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return r.body;
}

export interface SseEvent {
  readonly event: string;
  readonly id?: string;
  readonly data: string;
}

/** Reads a text/event-stream, keeping every event received. */
export class SseReader {
  readonly events: SseEvent[] = [];
  status = 0;
  private buf = '';
  private readonly req: ClientRequest;
  readonly opened: Promise<void>;

  constructor(url: string) {
    let ok!: () => void;
    let fail!: (e: Error) => void;
    this.opened = new Promise((res, rej) => ((ok = res), (fail = rej)));
    this.req = httpGet(url, (res) => {
      this.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.buf += chunk;
        this.parse();
        ok();
      });
    });
    this.req.on('error', fail);
  }

  private parse(): void {
    let end;
    while ((end = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, end);
      this.buf = this.buf.slice(end + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) this.events.push({ event, id, data: data.join('\n') });
    }
  }

  close(): void {
    this.req.destroy();
  }
}

export type HealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

const HealthClient = grpc.makeClientConstructor(healthService as unknown as grpc.ServiceDefinition, 'Health');

export class HealthCheck {
  private readonly client: grpc.Client & {
    check: (req: { service: string }, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: { status: HealthStatus }) => void) => void;
  };

  constructor(address: string) {
    this.client = new HealthClient(address, grpc.credentials.createInsecure()) as unknown as HealthCheck['client'];
  }

  check(service: string): Promise<HealthStatus> {
    return new Promise((resolve, reject) => this.client.check({ service }, { deadline: Date.now() + 2000 }, (e, r) => (e ? reject(e) : resolve(r!.status))));
  }

  close(): void {
    this.client.close();
  }
}
