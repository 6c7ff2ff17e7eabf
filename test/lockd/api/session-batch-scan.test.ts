// The Session.Open pre-decode scan (session-batch-scan.ts) on its own: it counts batch elements at
// every depth without decoding, refuses what is over the bounds or malformed with a reason (never
// throws), and never accepts a message that protobufjs decodes into more elements than it counted.
import { expect } from 'chai';
import type * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { SessionRequest, SessionRequest__Output } from '../../../src/proto/gen/lockd/v1/SessionRequest.js';
import { MAX_BATCH } from '../../../src/lockd/api/session-batch.js';
import { MAX_BATCH_DEPTH, refusedBeforeDecoding, scanSessionRequest, scanSessionRequests } from '../../../src/lockd/api/session-batch-scan.js';

const type = lockdProto.lockd.v1.SessionRequest as unknown as { serialize(m: SessionRequest): Buffer; deserialize(b: Buffer): SessionRequest__Output };
const encode = (m: SessionRequest): Buffer => type.serialize(m);
const op = (id: number): SessionRequest => ({ id, acquire: { name: `lock-${id}`, leaseId: 7, wait: true }, timeoutMs: 1000 });
/** Elements decoded at every depth, and the deepest batch level (1: the message's own batch). */
function decodedShape(m: SessionRequest__Output, level = 1): { elements: number; depth: number } {
  let elements = 0;
  let depth = m.batch.length > 0 ? level : 0;
  for (const e of m.batch) {
    const inner = decodedShape(e, level + 1);
    elements += 1 + inner.elements;
    depth = Math.max(depth, inner.depth);
  }
  return { elements, depth };
}
/** A batch nested `levels` deep: { batch: [{ id, batch: [ ... { id: 1, acquire } ] }] }. */
function nested(levels: number): SessionRequest {
  let m: SessionRequest = op(1);
  for (let k = 0; k < levels; k++) m = k === levels - 1 ? { batch: [m] } : { id: 100 + k, batch: [m] };
  return m;
}
/** `levels` batches, each the only element of the one around it, built on the wire (protobufjs will not encode past its depth limit). */
function nestedBytes(levels: number): Buffer {
  let b = encode(op(1));
  for (let k = 0; k < levels; k++) b = Buffer.concat([Buffer.from([0xf2, 0x01]), varint(b.length), b]);
  return b;
}
function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.from(out);
}
/** A deterministic byte generator (xorshift32). */
function bytes(seed: number, n: number): Buffer {
  const out = Buffer.alloc(n);
  let x = seed | 1;
  for (let k = 0; k < n; k++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[k] = x & 0xff;
  }
  return out;
}

describe('Session pre-decode scan', () => {
  it('accepts a plain request, a full batch, and a batch with a small nested batch', () => {
    expect(scanSessionRequest(encode(op(1)))).to.equal(undefined);
    expect(scanSessionRequest(Buffer.alloc(0))).to.equal(undefined);
    expect(scanSessionRequest(encode({ batch: Array.from({ length: MAX_BATCH }, (_, k) => op(k + 1)) }))).to.equal(undefined);
    const withNested = { batch: [...Array.from({ length: MAX_BATCH - 2 }, (_, k) => op(k + 1)), { id: 999, batch: [op(1000)] }] };
    expect(scanSessionRequest(encode(withNested))).to.equal(undefined);
  });

  it(`refuses more than ${MAX_BATCH} elements, counting nested ones`, () => {
    expect(scanSessionRequest(encode({ batch: Array.from({ length: MAX_BATCH + 1 }, (_, k) => op(k + 1)) }))).to.match(/at most 256 requests/);
    const hidden = { batch: [...Array.from({ length: 200 }, (_, k) => op(k + 1)), { id: 999, batch: Array.from({ length: 57 }, (_, k) => op(1000 + k)) }] };
    expect(scanSessionRequest(encode(hidden))).to.match(/at most 256 requests, nested ones included/);
  });

  it(`allows batches nested ${MAX_BATCH_DEPTH} deep and refuses one more`, () => {
    expect(decodedShape(type.deserialize(encode(nested(MAX_BATCH_DEPTH)))).depth).to.equal(MAX_BATCH_DEPTH);
    expect(scanSessionRequest(encode(nested(MAX_BATCH_DEPTH)))).to.equal(undefined);
    expect(scanSessionRequest(encode(nested(MAX_BATCH_DEPTH + 1)))).to.match(/nest at most 8 deep/);
    // Past protobufjs' own limit (100) decoding throws ("maximum nesting depth exceeded"): refused before.
    expect(decodedShape(type.deserialize(nestedBytes(MAX_BATCH_DEPTH + 1))).depth).to.equal(MAX_BATCH_DEPTH + 1);
    expect(scanSessionRequest(nestedBytes(MAX_BATCH_DEPTH + 1))).to.match(/nest at most 8 deep/);
    expect(() => type.deserialize(nestedBytes(120))).to.throw(/nesting depth/);
    expect(scanSessionRequest(nestedBytes(120))).to.match(/nest at most/);
  });

  it('refuses a known field sent with another wire type (protobufjs would read what follows as more fields)', () => {
    // Field 1 (id, a varint) sent length-delimited around 300 empty elements: protobufjs reads the
    // length as the id and decodes the "payload" as 300 batch elements.
    const payload = Buffer.concat(Array.from({ length: 300 }, () => Buffer.from([0xf2, 0x01, 0x00])));
    const sneaky = Buffer.concat([Buffer.from([0x0a, 0x84, 0x07]), payload]);
    expect(type.deserialize(sneaky).batch).to.have.length(300);
    expect(scanSessionRequest(sneaky)).to.match(/field 1 has wire type 2/);
    expect(scanSessionRequest(Buffer.from([0xf0, 0x01, 0x00]))).to.match(/field 30 has wire type 0/);
  });

  it('refuses truncated and malformed bytes with a reason, without throwing', () => {
    const full = encode({ batch: [op(1), { id: 2, batch: [op(3)] }, op(4)] });
    for (let n = 0; n < full.length; n++) expect(() => scanSessionRequest(full.subarray(0, n))).not.to.throw();
    expect(scanSessionRequest(full.subarray(0, full.length - 1))).to.match(/^malformed session request: /);
    expect(scanSessionRequest(Buffer.from([0xf2, 0x01, 0x05, 0x00]))).to.match(/runs past its end/); // element longer than the message
    expect(scanSessionRequest(Buffer.from([0xf2, 0x01, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00]))).to.match(/length longer than 5 bytes/);
    expect(scanSessionRequest(Buffer.from([0x7b]))).to.match(/truncated tag/); // a group (field 15) never ended
    expect(scanSessionRequest(Buffer.from([0x7c]))).to.match(/end of a group never started/);
    expect(scanSessionRequest(Buffer.from([0x7e]))).to.match(/invalid wire type 6/);
    // An unknown group is skipped whole, as protobufjs does, even with a field-30 tag inside it.
    const group = Buffer.from([0x7b, 0xf2, 0x01, 0x00, 0x7c]);
    expect(type.deserialize(group).batch).to.have.length(0);
    expect(scanSessionRequest(group)).to.equal(undefined);
  });

  it('never accepts bytes that protobufjs decodes past the bounds (random and mutated messages)', () => {
    const base = encode({ batch: [op(1), { id: 2, batch: [op(3), { id: 4, batch: [op(5)] }] }, op(6)] });
    let accepted = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const noise = bytes(seed, 1 + (seed % 97));
      // Half pure noise, half a valid message with a few bytes overwritten.
      const input = seed % 2 === 0 ? noise : Buffer.from(base).fill(noise[0], seed % base.length, Math.min(base.length, (seed % base.length) + 1 + (seed % 3)));
      let why: string | undefined;
      expect(() => (why = scanSessionRequest(input)), `seed ${seed}`).not.to.throw();
      if (why !== undefined) continue;
      let decoded: SessionRequest__Output;
      try {
        decoded = type.deserialize(input);
      } catch {
        continue; // the deserializer refuses it (scanSessionRequests turns that into a refusal too)
      }
      accepted++;
      const shape = decodedShape(decoded);
      expect(shape.elements, `seed ${seed}`).to.be.at.most(MAX_BATCH);
      expect(shape.depth, `seed ${seed}`).to.be.at.most(MAX_BATCH_DEPTH);
    }
    expect(accepted, 'inputs that passed the scan and decoded').to.be.above(100);
  });

  it("makes Open's deserializer yield a refusal, never throw, and pass a good message through", () => {
    const service = scanSessionRequests(lockdProto.lockd.v1.Session.service as grpc.ServiceDefinition);
    const deserialize = (b: Buffer) => (service.Open as grpc.MethodDefinition<unknown, unknown>).requestDeserialize(b);
    expect(refusedBeforeDecoding(deserialize(encode({ batch: Array.from({ length: MAX_BATCH + 1 }, (_, k) => op(k + 1)) })))).to.match(/at most 256/);
    // Passes the scan (field 2, grant, is just skipped there) but its inner message does not decode.
    const badInner = Buffer.from([0x12, 0x02, 0x08, 0x80]); // grant { ttl_ms: a varint cut short }
    expect(() => type.deserialize(badInner)).to.throw();
    expect(refusedBeforeDecoding(deserialize(badInner))).to.match(/^malformed session request: /);
    const good = deserialize(encode(op(3))) as SessionRequest__Output;
    expect(refusedBeforeDecoding(good)).to.equal(undefined);
    expect(good.acquire).to.include({ name: 'lock-3', leaseId: 7 });
  });
});
