import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { type Entry, type Message, type MessageType, message } from '../../../src/raft/types.js';
import { raftProto } from '../../../src/proto/raft-package.js';
import { ProtocolError, messageToProto } from '../../../src/lockd/transport/convert.js';
import { FRAME_VERSION, MAX_CONTEXT_BYTES, MAX_ID_BYTES, decodeMessage, encodeMessage } from '../../../src/lockd/transport/frame-codec.js';
import { deserializeEnvelope, serializeEnvelope } from '../../../src/lockd/transport/envelope-codec.js';
import { CLUSTER_ID_HEADER, NODE_ID_HEADER } from '../../../src/lockd/transport/metadata.js';
import { startCluster, stopNode, waitFor, type TestNode } from './harness.js';

// A seeded generator, so a failure names a case that reproduces.
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const EDGE = [0, 1, 127, 128, 16_383, 16_384, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 49, Number.MAX_SAFE_INTEGER];
const TYPES: MessageType[] = ['App', 'AppResp', 'Vote', 'VoteResp', 'PreVote', 'PreVoteResp', 'Heartbeat', 'HeartbeatResp', 'TimeoutNow'];

function randomMessage(r: () => number): Message {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const uint = (): number => (r() < 0.5 ? pick(EDGE) : Math.floor(r() * Number.MAX_SAFE_INTEGER));
  const str = (max: number, min = 0): string => {
    const n = min + Math.floor(r() * (max - min + 1));
    let s = '';
    for (let i = 0; i < n; i++) s += r() < 0.9 ? String.fromCharCode(0x21 + Math.floor(r() * 94)) : pick(['é', '€', '😀']);
    while (Buffer.byteLength(s) > max) s = Array.from(s).slice(0, -1).join(''); // whole code points
    return s || 'x'.repeat(min);
  };
  const entries: Entry[] = [];
  const n = pick([0, 0, 1, 3, 20]);
  for (let i = 0; i < n; i++) {
    const data = new Uint8Array(pick([0, 1, 100, 5000]));
    for (let j = 0; j < data.length; j++) data[j] = Math.floor(r() * 256);
    entries.push(r() < 0.2 ? { term: uint(), index: uint(), data, type: 'config' } : { term: uint(), index: uint(), data });
  }
  return message({
    type: pick(TYPES),
    from: r() < 0.1 ? 'f'.repeat(MAX_ID_BYTES) : str(64, 1),
    to: str(64, 1),
    term: uint(),
    logTerm: uint(),
    index: uint(),
    commit: uint(),
    rejectHint: uint(),
    reject: r() < 0.5,
    context: r() < 0.1 ? 'c'.repeat(MAX_CONTEXT_BYTES) : r() < 0.5 ? '' : str(40),
    entries,
  });
}

const sample = (): Message =>
  message({
    type: 'App',
    from: 'n1',
    to: 'n2',
    term: 3,
    logTerm: 2,
    index: 9,
    commit: 8,
    context: 'ri-1',
    entries: [{ term: 3, index: 10, data: new Uint8Array([1, 2, 3]) }],
  });

function refuses(frame: Uint8Array, pattern: RegExp | string): void {
  expect(() => decodeMessage(frame)).to.throw(ProtocolError, pattern);
}

/** A frame built by hand: header fields given, the rest a valid empty App from n1 to n2. */
function handFrame({
  version = FRAME_VERSION,
  type = 1,
  uints = [[3], [2], [9], [8], [0]],
  flags = 0,
  strs = [[2, 0x6e, 0x31], [2, 0x6e, 0x32], [0]],
  tail = [0],
}: {
  version?: number;
  type?: number;
  uints?: number[][];
  flags?: number;
  strs?: number[][];
  tail?: number[];
}): Uint8Array {
  return Uint8Array.from([version, type, ...uints.flat(), flags, ...strs.flat(), ...tail]);
}

describe('peer frame codec (frame-codec.ts)', () => {
  it('round-trips 2000 random messages of every type, with edge values (0, 2^53 - 1, empty and big data, longest ids and context)', () => {
    const r = rng(15);
    for (let i = 0; i < 2000; i++) {
      const m = randomMessage(r);
      const got = decodeMessage(encodeMessage(m));
      expect(got, `case ${i}`).to.deep.equal(m);
    }
  });

  it('round-trips an App carrying a 4 MiB entry and one carrying 10,000 entries', () => {
    const big = new Uint8Array(4 * 1024 * 1024).map((_, i) => i & 0xff);
    const m1 = { ...sample(), entries: [{ term: 1, index: 1, data: big }] };
    expect(decodeMessage(encodeMessage(m1))).to.deep.equal(m1);
    const many = Array.from({ length: 10_000 }, (_, i): Entry => ({ term: 2, index: i + 1, data: new Uint8Array(0) }));
    const m2 = { ...sample(), entries: many };
    expect(decodeMessage(encodeMessage(m2))).to.deep.equal(m2);
  });

  it('hands out entry data as plain Uint8Array views of the frame (no copy), so they compare equal to what was sent', () => {
    const frame = encodeMessage(sample());
    const e = decodeMessage(frame).entries[0];
    expect(Object.getPrototypeOf(e.data)).to.equal(Uint8Array.prototype);
    expect(e.data.buffer).to.equal(frame.buffer);
  });

  it('refuses to encode a Snap message (it travels in snapshot chunks), a number beyond 2^53 - 1, and an id or context the receiver would refuse', () => {
    const snap = message({
      type: 'Snap',
      from: 'n1',
      to: 'n2',
      term: 1,
      snapshot: { metadata: { index: 1, term: 1, voters: ['n1'] }, data: new Uint8Array(0) },
    });
    expect(() => encodeMessage(snap)).to.throw(/snapshot chunks/);
    expect(() => encodeMessage({ ...sample(), term: 2 ** 53 })).to.throw(RangeError);
    expect(() => encodeMessage({ ...sample(), index: -1 })).to.throw(RangeError);
    expect(() => encodeMessage({ ...sample(), from: 'f'.repeat(MAX_ID_BYTES + 1) })).to.throw(RangeError, /from is longer than 255 bytes/);
    expect(() => encodeMessage({ ...sample(), context: 'é'.repeat(MAX_CONTEXT_BYTES / 2 + 1) })).to.throw(RangeError, /context is longer than 4096 bytes/);
  });

  it('refuses every strict prefix of a valid frame (truncated)', () => {
    const frame = encodeMessage(sample());
    for (let n = 0; n < frame.length; n++) refuses(frame.subarray(0, n), /truncated|cannot fit|without from/);
  });

  it('refuses trailing bytes', () => {
    const frame = encodeMessage(sample());
    refuses(Buffer.concat([frame, Buffer.from([0])]), /1 trailing bytes after the message/);
  });

  it('refuses another version', () => {
    refuses(handFrame({ version: 0 }), /version 0 is not supported/);
    refuses(handFrame({ version: 2 }), /version 2 is not supported/);
    expect(decodeMessage(handFrame({})).type).to.equal('App'); // the hand-built frame itself is valid
  });

  it('refuses an unknown message type, and Snap (never a frame)', () => {
    for (const t of [0, 9, 11, 255]) refuses(handFrame({ type: t }), `unknown message type ${t}`);
  });

  it('refuses a uint above 2^53 - 1, longer than 8 bytes, or not minimally encoded', () => {
    // 2^53 = 2^(7·7) · 16: seven 0x80 groups, then 0x10.
    refuses(handFrame({ uints: [[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10], [2], [9], [8], [0]] }), /term: 9007199254740992 exceeds 2\^53 - 1/);
    refuses(handFrame({ uints: [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [2], [9], [8], [0]] }), /longer than 8 bytes/);
    refuses(handFrame({ uints: [[0x83, 0x00], [2], [9], [8], [0]] }), /non-minimal/);
    // 2^53 - 1 itself is accepted.
    const max = handFrame({ uints: [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f], [2], [9], [8], [0]] });
    expect(decodeMessage(max).term).to.equal(Number.MAX_SAFE_INTEGER);
  });

  it('refuses unknown flags', () => {
    refuses(handFrame({ flags: 2 }), /unknown flags 2/);
  });

  it('refuses an empty or oversize id, an oversize context, and malformed UTF-8', () => {
    refuses(handFrame({ strs: [[0], [2, 0x6e, 0x32], [0]] }), /without from\/to/);
    const long = [0x80, 0x02, ...new Array<number>(256).fill(0x61)]; // 256 bytes
    refuses(handFrame({ strs: [long, [2, 0x6e, 0x32], [0]] }), /from is 256 bytes; the limit is 255/);
    const ctx = [0x81, 0x20, ...new Array<number>(4097).fill(0x61)]; // 4097 bytes
    refuses(handFrame({ strs: [[2, 0x6e, 0x31], [2, 0x6e, 0x32], ctx] }), /context is 4097 bytes; the limit is 4096/);
    refuses(handFrame({ strs: [[2, 0xc3, 0x28], [2, 0x6e, 0x32], [0]] }), /from is not valid UTF-8/);
  });

  it('refuses an entry count the frame cannot hold without allocating for it, an unknown entry type, and data overrunning the frame', () => {
    // 2^40 entries claimed in a frame of a few bytes.
    refuses(handFrame({ tail: [0x80, 0x80, 0x80, 0x80, 0x80, 0x20] }), /1099511627776 entries cannot fit/);
    refuses(handFrame({ tail: [1, 3, 10, 2, 0] }), /unknown entry type 2/);
    refuses(handFrame({ tail: [1, 3, 10, 0, 5, 1, 2] }), /entry data says 5 bytes, 2 remain/);
  });
});

describe('peer envelope serializer (envelope-codec.ts)', () => {
  const generated = raftProto.raft.v1.Raft.service.Stream;

  it('writes the protobuf encoding of Envelope{cluster_id, sender_id, frame}: the generated decoder reads it back', () => {
    const frame = encodeMessage(sample());
    for (const [clusterId, senderId] of [
      ['c1', 'n1'],
      ['', ''],
      ['é'.repeat(200), 'n'.repeat(64)],
    ]) {
      const wire = serializeEnvelope({ clusterId, senderId, frame });
      expect(generated.requestDeserialize(wire)).to.deep.equal({ clusterId, senderId, frame: Buffer.from(frame), body: 'frame' });
      const fast = deserializeEnvelope(wire);
      expect([fast.clusterId, fast.senderId, fast.body]).to.deep.equal([clusterId, senderId, 'frame']);
      expect(Buffer.from(fast.frame!).equals(frame)).to.equal(true);
    }
  });

  it('reads an envelope the generated encoder wrote, and leaves any other envelope (message, unknown field, malformed) to it', () => {
    const frame = encodeMessage(sample());
    const viaGenerated = generated.requestSerialize({ clusterId: 'c1', senderId: 'n1', frame });
    expect(decodeMessage(deserializeEnvelope(viaGenerated).frame!)).to.deep.equal(sample());
    const proto = generated.requestSerialize({ clusterId: 'c1', senderId: 'n1', message: messageToProto(sample()) });
    expect(deserializeEnvelope(proto)).to.deep.equal(generated.requestDeserialize(proto));
    expect(serializeEnvelope({ clusterId: 'c1', senderId: 'n1', message: messageToProto(sample()) })).to.deep.equal(proto);
    const unknownField = Buffer.concat([viaGenerated, Buffer.from([(9 << 3) | 0, 1])]);
    expect(deserializeEnvelope(unknownField).body).to.equal('frame');
    expect(() => deserializeEnvelope(Buffer.from([(5 << 3) | 2, 50, 1]))).to.throw(); // length overruns: protobufjs refuses
  });
});

describe('peer streams refuse a malformed frame', () => {
  let nodes: TestNode[] = [];
  afterEach(() => {
    for (const n of nodes) stopNode(n);
    nodes = [];
  });

  it('ends the stream with FAILED_PRECONDITION naming the problem, and delivers nothing after it', async () => {
    nodes = await startCluster(['n1', 'n2']);
    const n2 = nodes[1];
    await waitFor('n1 stream up', () => nodes[0].transport.peerState('n2') === 'up');
    const client = new raftProto.raft.v1.Raft(`127.0.0.1:${n2.port}`, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set(CLUSTER_ID_HEADER, 'c1');
      md.set(NODE_ID_HEADER, 'n1');
      const good = encodeMessage(sample());
      const err = await new Promise<grpc.ServiceError | null>((resolve) => {
        const call = client.Stream(md, (e) => resolve(e));
        call.write({ clusterId: 'c1', senderId: 'n1', frame: good });
        call.write({ clusterId: 'c1', senderId: 'n1', frame: Buffer.concat([good, Buffer.from([7])]) });
        call.write({ clusterId: 'c1', senderId: 'n1', frame: good });
      });
      expect(err?.code).to.equal(grpc.status.FAILED_PRECONDITION);
      expect(err?.details).to.include('malformed peer frame: 1 trailing bytes after the message');
      expect(n2.received).to.deep.equal([sample()]);
    } finally {
      client.close();
    }
  });
});
