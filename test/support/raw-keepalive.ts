// A Lease.KeepAlive stream written as raw HTTP/2 frames, for floods: one write carries any number of
// requests, where grpc-js would send one message per event-loop turn (and buffer the rest for retries),
// so a test can put more keepalives on the wire than the leader handles in one lease-clock interval.
import http2 from 'node:http2';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

function readVarint(b: Buffer, at: number): [number, number] {
  let n = 0;
  let mul = 1;
  for (;;) {
    const byte = b[at++];
    n += (byte & 0x7f) * mul;
    if (byte < 0x80) return [n, at];
    mul *= 0x80;
  }
}

/** Length-prefixed LeaseKeepAliveRequest messages (field 1, lease_id). */
export function keepAliveFrames(leaseIds: readonly number[]): Buffer {
  const parts: Buffer[] = [];
  for (const id of leaseIds) {
    const body = Buffer.from([0x08, ...varint(id)]);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(body.length, 1);
    parts.push(head, body);
  }
  return Buffer.concat(parts);
}

/** Every whole LeaseKeepAliveResponse in `buf` (gRPC framing) to `answer`; returns the bytes of an unfinished one. */
export function readKeepAliveAnswers(buf: Buffer, answer: (leaseId: number, ttlMs: number) => void): Buffer {
  while (buf.length >= 5) {
    const len = buf.readUInt32BE(1);
    if (buf.length < 5 + len) break;
    const msg = buf.subarray(5, 5 + len);
    buf = buf.subarray(5 + len);
    let leaseId = 0;
    let ttlMs = 0;
    for (let at = 0; at < msg.length;) {
      const [tag, next] = readVarint(msg, at);
      const [v, after] = readVarint(msg, next);
      at = after;
      if (tag === 0x08) leaseId = v;
      else if (tag === 0x10) ttlMs = v;
    }
    answer(leaseId, ttlMs);
  }
  return buf;
}

export class RawKeepAlive {
  /** Every response so far, in order: [lease_id, ttl_ms]. */
  readonly answers: [number, number][] = [];
  private readonly session: http2.ClientHttp2Session;
  private readonly stream: http2.ClientHttp2Stream;
  private buf: Buffer = Buffer.alloc(0);

  constructor(address: string) {
    this.session = http2.connect(`http://${address}`);
    this.session.on('error', () => {});
    this.stream = this.session.request({ ':method': 'POST', ':path': '/lockd.v1.Lease/KeepAlive', 'content-type': 'application/grpc', te: 'trailers' });
    this.stream.on('error', () => {});
    this.stream.on('data', (d: Buffer) => this.read(d));
  }

  send(leaseIds: readonly number[]): void {
    this.stream.write(keepAliveFrames(leaseIds));
  }

  private read(d: Buffer): void {
    this.buf = readKeepAliveAnswers(Buffer.concat([this.buf, d]), (leaseId, ttlMs) => this.answers.push([leaseId, ttlMs]));
  }

  close(): void {
    this.stream.close();
    this.session.close();
  }
}
