// InstallSnapshot over a stream: a Snap message becomes a run of SnapshotChunk envelopes (the
// message itself rides in the first one, without its data), and the receiver puts it back together.
import type { Message } from '../../raft/types.js';
import type { Envelope } from '../../proto/gen/raft/v1/Envelope.js';
import type { SnapshotChunk__Output } from '../../proto/gen/raft/v1/SnapshotChunk.js';
import { ProtocolError, messageFromProto, messageToProto } from './convert.js';

export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/** The envelopes that carry Snap message m, in order. Always at least one (the last). */
export function snapshotEnvelopes(m: Message, tag: Pick<Envelope, 'clusterId' | 'senderId'>, chunkBytes: number): Envelope[] {
  if (m.type !== 'Snap' || !m.snapshot) throw new Error(`snapshotEnvelopes: not a Snap message with a snapshot: ${m.type}`);
  if (!(chunkBytes > 0)) throw new Error(`snapshotEnvelopes: chunk size must be positive, got ${chunkBytes}`);
  const data = m.snapshot.data;
  const out: Envelope[] = [];
  for (let offset = 0; offset === 0 || offset < data.length; offset += chunkBytes) {
    const end = Math.min(offset + chunkBytes, data.length);
    out.push({
      ...tag,
      snapshotChunk: {
        message: offset === 0 ? messageToProto(m, true) : null,
        offset,
        totalBytes: data.length,
        data: data.subarray(offset, end),
        last: end === data.length,
      },
    });
  }
  return out;
}

/** Reassembles the chunks of one stream; chunks of one snapshot are contiguous on a stream. */
export class SnapshotAssembler {
  private pending: { first: SnapshotChunk__Output; buf: Buffer; filled: number } | undefined;

  constructor(private readonly maxBytes: number) {}

  /** Feed the next chunk; returns the whole Snap message once its last chunk arrives. */
  add(chunk: SnapshotChunk__Output): Message | undefined {
    if (chunk.offset === 0) {
      if (this.pending)
        throw new ProtocolError(`new snapshot began before the previous one (${this.pending.filled} of ${this.pending.buf.length} bytes) ended`);
      if (!chunk.message) throw new ProtocolError('first snapshot chunk carries no message');
      if (chunk.totalBytes > this.maxBytes) throw new ProtocolError(`snapshot of ${chunk.totalBytes} bytes exceeds the limit of ${this.maxBytes}`);
      this.pending = { first: chunk, buf: Buffer.allocUnsafe(chunk.totalBytes), filled: 0 };
    }
    const p = this.pending;
    if (!p) throw new ProtocolError(`snapshot chunk at offset ${chunk.offset} without a first chunk`);
    if (chunk.offset !== p.filled) throw new ProtocolError(`snapshot chunk at offset ${chunk.offset}, expected ${p.filled}`);
    if (chunk.totalBytes !== p.buf.length) throw new ProtocolError(`snapshot chunk says ${chunk.totalBytes} bytes in all, first said ${p.buf.length}`);
    if (p.filled + chunk.data.length > p.buf.length) throw new ProtocolError(`snapshot chunk overruns ${p.buf.length} bytes`);
    chunk.data.copy(p.buf, p.filled);
    p.filled += chunk.data.length;
    if (!chunk.last) return undefined;
    this.pending = undefined;
    if (p.filled !== p.buf.length) throw new ProtocolError(`last snapshot chunk leaves ${p.filled} of ${p.buf.length} bytes`);
    return messageFromProto(p.first.message!, new Uint8Array(p.buf.buffer, p.buf.byteOffset, p.buf.length));
  }

  /** Bytes of an unfinished snapshot held (0 if none). */
  get pendingBytes(): number {
    return this.pending?.filled ?? 0;
  }
}
