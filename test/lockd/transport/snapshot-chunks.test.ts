import { expect } from 'chai';
import { type Message, message } from '../../../src/raft/types.js';
import { SnapshotAssembler, snapshotEnvelopes } from '../../../src/lockd/transport/snapshot-chunks.js';
import type { Envelope } from '../../../src/proto/gen/raft/v1/Envelope.js';
import type { SnapshotChunk__Output } from '../../../src/proto/gen/raft/v1/SnapshotChunk.js';
import type { Message__Output } from '../../../src/proto/gen/raft/v1/Message.js';

const TAG = { clusterId: 'c1', senderId: 'n1' };

function snapMsg(bytes: number): Message {
  const data = Uint8Array.from({ length: bytes }, (_, i) => i % 251);
  return message({ type: 'Snap', from: 'n1', to: 'n2', term: 2, snapshot: { metadata: { index: 9, term: 2, voters: ['n1', 'n2'] }, data } });
}

/** What the receiver would decode: the loader's output shape (defaults filled, Buffers). */
function decoded(env: Envelope): SnapshotChunk__Output {
  const c = env.snapshotChunk!;
  const m = c.message as Message__Output | null;
  return {
    message: m && ({ ...m, snapshot: m.snapshot && { ...m.snapshot, data: Buffer.alloc(0) } } as Message__Output),
    offset: Number(c.offset),
    totalBytes: Number(c.totalBytes),
    data: Buffer.from(c.data as Uint8Array),
    last: Boolean(c.last),
  };
}

describe('snapshot chunks', () => {
  for (const [bytes, chunk, count] of [
    [0, 4, 1],
    [8, 4, 2],
    [9, 4, 3],
    [3, 4, 1],
  ] as const) {
    it(`splits ${bytes} bytes into ${count} chunk(s) of ${chunk} and reassembles them`, () => {
      const m = snapMsg(bytes);
      const envs = snapshotEnvelopes(m, TAG, chunk);
      expect(envs).to.have.length(count);
      expect(envs.map((e) => Boolean(e.snapshotChunk?.last))).to.deep.equal(envs.map((_, i) => i === count - 1));
      expect(envs.slice(1).every((e) => e.snapshotChunk?.message === null)).to.equal(true);
      const asm = new SnapshotAssembler(1024);
      const outs = envs.map((e) => asm.add(decoded(e)));
      expect(outs.slice(0, -1).every((o) => o === undefined)).to.equal(true);
      const got = outs[outs.length - 1]!;
      expect(Array.from(got.snapshot!.data)).to.deep.equal(Array.from(m.snapshot!.data));
      expect(got.snapshot!.metadata).to.deep.equal(m.snapshot!.metadata);
      expect(asm.pendingBytes).to.equal(0);
    });
  }

  it('refuses chunks out of order, without a first chunk, or over the size limit', () => {
    const envs = snapshotEnvelopes(snapMsg(12), TAG, 4).map(decoded);
    expect(() => new SnapshotAssembler(1024).add(envs[1])).to.throw(/without a first chunk/);
    const asm = new SnapshotAssembler(1024);
    asm.add(envs[0]);
    expect(() => asm.add(envs[2])).to.throw(/offset 8, expected 4/);
    expect(() => new SnapshotAssembler(11).add(envs[0])).to.throw(/exceeds the limit of 11/);
  });
});
