// A gRPC call as a stranger on the wire makes it (raw HTTP/2, no gRPC client): for tests that a
// node judges a request by its headers and 5-byte length prefix before reading any body.
import type { ClientHttp2Session } from 'node:http2';

/**
 * Open `path`, send only a length prefix announcing `length` bytes (the body never comes) and
 * answer the grpc-status the node replies with, or 'no answer' if none arrives within `ms`.
 */
export function announce(
  session: ClientHttp2Session,
  path: string,
  length: number,
  ms: number,
  headers: Record<string, string> = {},
): Promise<number | 'no answer'> {
  return new Promise((resolve) => {
    const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(length, 1);
    req.write(prefix); // and nothing more
    const timer = setTimeout(() => finish('no answer'), ms);
    // The status arrives with the response headers (trailers-only) or the trailers; the client never
    // ends its side, so the stream need not close.
    const finish = (r: number | 'no answer') => {
      clearTimeout(timer);
      req.close();
      resolve(r);
    };
    const take = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) finish(Number(h['grpc-status']));
    };
    req.on('response', take);
    req.on('trailers', take);
    req.on('data', () => {});
    req.on('error', () => {}); // the status (or its absence) is what is judged
    req.on('close', () => finish('no answer'));
  });
}
