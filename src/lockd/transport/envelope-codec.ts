// raft.v1.Raft/Stream with a hand-written serializer for the envelope lockd sends on every message,
// {cluster_id, sender_id, frame}: the protobuf encoding of proto/raft.proto's Envelope written
// directly (fields 1, 2 and 5, length-delimited), without protobufjs's object conversion. Any other
// envelope (a snapshot chunk, a protobuf `message`, unknown fields) goes through the generated
// (protobufjs) serializer, so what is on the wire is always a valid Envelope either way.
import * as grpc from '@grpc/grpc-js';
import type { Envelope } from '../../proto/gen/raft/v1/Envelope.js';
import type { Envelope__Output } from '../../proto/gen/raft/v1/Envelope.js';
import type { RaftClient } from '../../proto/gen/raft/v1/Raft.js';
import { raftProto } from '../../proto/raft-package.js';
import { copyInto } from '../codec/binary.js';

const generated = raftProto.raft.v1.Raft.service.Stream;

// Tags: field number << 3 | wire type 2 (length-delimited).
const CLUSTER_ID = (1 << 3) | 2;
const SENDER_ID = (2 << 3) | 2;
const FRAME = (5 << 3) | 2;

const varintBytes = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[pos++] = n;
  return pos;
}

export function serializeEnvelope(env: Envelope): Buffer {
  const frame = env.frame;
  if (!(frame instanceof Uint8Array) || env.message || env.snapshotChunk) return generated.requestSerialize(env);
  const cluster = env.clusterId ?? '';
  const sender = env.senderId ?? '';
  const cl = Buffer.byteLength(cluster, 'utf8');
  const sl = Buffer.byteLength(sender, 'utf8');
  // Proto3 leaves an empty string out; a frame (bytes in a oneof) is written even when empty.
  const size = (cl ? 1 + varintBytes(cl) + cl : 0) + (sl ? 1 + varintBytes(sl) + sl : 0) + 1 + varintBytes(frame.length) + frame.length;
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  if (cl) {
    buf[pos++] = CLUSTER_ID;
    pos = writeVarint(buf, pos, cl);
    pos += buf.write(cluster, pos, 'utf8');
  }
  if (sl) {
    buf[pos++] = SENDER_ID;
    pos = writeVarint(buf, pos, sl);
    pos += buf.write(sender, pos, 'utf8');
  }
  buf[pos++] = FRAME;
  pos = writeVarint(buf, pos, frame.length);
  copyInto(frame, buf, pos);
  return buf;
}

/**
 * An envelope of fields 1, 2 and 5 only (each at most once, lengths within the buffer) is read here;
 * anything else, malformed input included, goes to the generated deserializer, which also decides
 * what is an error.
 */
export function deserializeEnvelope(buf: Buffer): Envelope__Output {
  let clusterId = '';
  let senderId = '';
  let frame: Buffer | undefined;
  let pos = 0;
  while (pos < buf.length) {
    const tag = buf[pos++];
    if (tag !== CLUSTER_ID && tag !== SENDER_ID && tag !== FRAME) return generated.requestDeserialize(buf) as Envelope__Output;
    // A length below 2^28 (4 varint bytes) or the generated path (which refuses a message of 64 MiB+ anyway).
    let len = 0;
    let shift = 0;
    let b: number;
    do {
      if (pos >= buf.length || shift > 21) return generated.requestDeserialize(buf) as Envelope__Output;
      b = buf[pos++];
      len |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (len > buf.length - pos) return generated.requestDeserialize(buf) as Envelope__Output;
    const end = pos + len;
    if (tag === FRAME) {
      if (frame) return generated.requestDeserialize(buf) as Envelope__Output;
      frame = buf.subarray(pos, end);
    } else if (tag === CLUSTER_ID) clusterId = buf.toString('utf8', pos, end);
    else senderId = buf.toString('utf8', pos, end);
    pos = end;
  }
  if (!frame) return generated.requestDeserialize(buf) as Envelope__Output;
  return { clusterId, senderId, frame, message: null, snapshotChunk: null, body: 'frame' };
}

/** raft.v1.Raft's service definition with the envelope codec above (server and client alike). */
export const raftService: grpc.ServiceDefinition = {
  Stream: { ...generated, requestSerialize: serializeEnvelope, requestDeserialize: deserializeEnvelope },
};

const RaftClientCtor = grpc.makeClientConstructor(raftService, 'raft.v1.Raft');

export function newRaftClient(address: string, credentials: grpc.ChannelCredentials, options: grpc.ChannelOptions): RaftClient {
  return new RaftClientCtor(address, credentials, options) as unknown as RaftClient;
}
