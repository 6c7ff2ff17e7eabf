// The control's store: a plain in-memory key → value map served by the runner over HTTP on
// 127.0.0.1. Writes are unconditional — the writer is trusted to hold the lock, as most code that
// uses a lock service does. Under client pauses this is where lost updates show.
import { createServer, type Server } from 'node:http';

const MAX_BODY = 1 << 20;

export class PlainStore {
  private constructor(
    private readonly server: Server,
    readonly address: string,
    readonly values: Map<string, Buffer>,
  ) {}

  static async start(): Promise<PlainStore> {
    const values = new Map<string, Buffer>();
    const server = createServer((req, res) => {
      const key = decodeURIComponent((req.url ?? '').replace(/^\/kv\//, ''));
      if (!req.url?.startsWith('/kv/') || key === '') {
        res.writeHead(404).end();
        return;
      }
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(values.get(key) ?? Buffer.alloc(0));
        return;
      }
      if (req.method !== 'PUT') {
        res.writeHead(405).end();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) req.destroy();
        else chunks.push(c);
      });
      req.on('end', () => {
        values.set(key, Buffer.concat(chunks));
        res.writeHead(204).end();
      });
    });
    server.keepAliveTimeout = 30_000;
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    return new PlainStore(server, `127.0.0.1:${port}`, values);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Client side (workload process). Errors after the request may have been sent are unknown outcomes. */
export async function plainRead(address: string, key: string, timeoutMs: number): Promise<Buffer> {
  const res = await fetch(`http://${address}/kv/${encodeURIComponent(key)}`, { signal: AbortSignal.timeout(timeoutMs) });
  if (res.status !== 200) throw new Error(`plain store: GET ${key} answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

export async function plainWrite(address: string, key: string, value: Buffer, timeoutMs: number): Promise<void> {
  const res = await fetch(`http://${address}/kv/${encodeURIComponent(key)}`, {
    method: 'PUT',
    body: new Uint8Array(value),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status !== 204) throw new Error(`plain store: PUT ${key} answered ${res.status}`);
}
