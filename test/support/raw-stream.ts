// A gRPC stream opened on raw HTTP/2 by a client that never reads: its stream window is 0, so the
// server can send it no DATA at all and whatever the server answers stays on the server. For tests
// of what a node holds for a slow reader (api/admission/outbound-budget.ts), independent of how
// large a real client's receive window is.
import { connect, type ClientHttp2Session } from 'node:http2';

/** A client HTTP/2 session whose streams receive nothing (stream window 0), from `localAddress` if given. */
export function nonReadingSession(address: string, localAddress?: string): ClientHttp2Session {
  const session = connect(`http://${address}`, { settings: { initialWindowSize: 0 }, ...(localAddress ? { localAddress } : {}) });
  session.on('error', () => {}); // the tests judge statuses, not socket errors
  return session;
}

export interface RawStream {
  /** Send one gRPC message (already serialized). */
  send(message: Buffer): void;
  /** The call's grpc-status and grpc-message, once the server ends it (trailers or trailers-only headers). */
  readonly status: Promise<{ code: number; details: string }>;
  close(): void;
}

/** Open `path` on `session` (gRPC framing: a 5-byte prefix per message). */
export function rawStream(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): RawStream {
  const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
  req.on('error', () => {});
  const status = new Promise<{ code: number; details: string }>((resolve) => {
    const take = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) resolve({ code: Number(h['grpc-status']), details: decodeURIComponent(String(h['grpc-message'] ?? '')) });
    };
    req.on('response', take);
    req.on('trailers', take);
    req.on('close', () => resolve({ code: -1, details: 'stream closed without a status' }));
  });
  return {
    send(message) {
      const prefix = Buffer.alloc(5);
      prefix.writeUInt32BE(message.length, 1);
      req.write(Buffer.concat([prefix, message]));
    },
    status,
    close: () => req.close(),
  };
}
