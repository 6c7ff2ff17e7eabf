// Counting a Session message's batch elements before it is decoded. Why: protobufjs turns every
// element of SessionRequest.batch (field 30) into an object before session-service.ts can count
// them, and 4 MiB of empty elements (3 bytes each) is 1.3 million objects: ~1 s of the leader's CPU
// and ~280 MB of heap, in one synchronous call on its event loop, for one message. So Session.Open's
// request deserializer first walks the bytes tag by tag (allocating nothing), counting field-30
// elements at every depth, and refuses a message with more than MAX_BATCH of them in all, or batches
// nested deeper than MAX_BATCH_DEPTH, before protobufjs sees it. A refusal is a marker object the
// request handler turns into INVALID_ARGUMENT (a deserializer that throws ends the call INTERNAL,
// its message lost); so is a message protobufjs cannot decode.
// The walk must never count fewer elements than protobufjs decodes. protobufjs reads a known field
// by its declared type whatever the wire type says (a uint64 field sent length-delimited is read as
// a varint, and the "payload" after it is then parsed as more fields), so a known field with the
// wrong wire type is refused here. So is a tag or length longer than 5 bytes (protobufjs takes 5
// and then skips 5 more unread) and a varint over 10: where the two readers could disagree, refuse.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import { MAX_BATCH } from './session-batch.js';

/**
 * Batch levels a message may have: 1 is a batch, 2 a batch in one of its elements (answered
 * INVALID_ARGUMENT per element, as the proto promises), and so on. Far below protobufjs' nesting
 * limit of 100 (over it, decoding throws and the call would end INTERNAL).
 */
export const MAX_BATCH_DEPTH = 8;

/** Group nesting protobufjs skips before it gives up (Reader.recursionLimit). */
const MAX_GROUP_DEPTH = 100;

const BATCH_FIELD = 30;

/** Wire type of each of SessionRequest's fields, from its descriptor (a field added to the proto is covered). */
const WIRE_TYPES: ReadonlyMap<number, number> = (() => {
  const fixed64 = new Set(['TYPE_FIXED64', 'TYPE_SFIXED64', 'TYPE_DOUBLE']);
  const fixed32 = new Set(['TYPE_FIXED32', 'TYPE_SFIXED32', 'TYPE_FLOAT']);
  const delimited = new Set(['TYPE_MESSAGE', 'TYPE_STRING', 'TYPE_BYTES']);
  const desc = (lockdProto.lockd.v1.SessionRequest as unknown as { type: { field: Array<{ number: number; type: string }> } }).type;
  return new Map(desc.field.map((f) => [f.number, delimited.has(f.type) ? 2 : fixed64.has(f.type) ? 1 : fixed32.has(f.type) ? 5 : 0]));
})();

/** Why a Session message is refused before decoding, or undefined if it may be decoded. */
export function scanSessionRequest(bytes: Uint8Array): string | undefined {
  const s: Scan = { buf: bytes, pos: 0, elements: 0 };
  try {
    return walk(s, bytes.length, 1);
  } catch (e) {
    if (e instanceof Malformed) return `malformed session request: ${e.message}`;
    throw e;
  }
}

interface Scan {
  readonly buf: Uint8Array;
  pos: number;
  /** field-30 elements met so far, at every depth */
  elements: number;
}

class Malformed extends Error {}

/** One SessionRequest in buf[s.pos, end) at batch level `depth` (1: the message itself). */
function walk(s: Scan, end: number, depth: number): string | undefined {
  while (s.pos < end) {
    const tag = varint32(s, end, 'tag');
    const field = tag >>> 3;
    const wire = tag & 7;
    const expected = WIRE_TYPES.get(field);
    if (expected !== undefined && wire !== expected) throw new Malformed(`field ${field} has wire type ${wire}, not ${expected}`);
    if (field !== BATCH_FIELD) {
      skip(s, end, wire);
      continue;
    }
    if (++s.elements > MAX_BATCH) return `a session batch holds at most ${MAX_BATCH} requests, nested ones included; got more`;
    if (depth > MAX_BATCH_DEPTH) return `session batches nest at most ${MAX_BATCH_DEPTH} deep (a nested one is refused per element)`;
    const len = varint32(s, end, 'length');
    if (len > end - s.pos) throw new Malformed('a batch element runs past its end');
    const stop = s.pos + len;
    const refused = walk(s, stop, depth + 1);
    if (refused) return refused;
  }
  if (s.pos !== end) throw new Malformed('a field runs past its end');
  return undefined;
}

/** A tag or a length: protobufjs reads these as uint32, 5 bytes at most. */
function varint32(s: Scan, end: number, what: string): number {
  let value = 0;
  for (let k = 0; k < 5; k++) {
    if (s.pos >= end) throw new Malformed(`truncated ${what}`);
    const b = s.buf[s.pos++];
    value += (b & 0x7f) * 2 ** (7 * k);
    if (b < 0x80) return value;
  }
  throw new Malformed(`${what} longer than 5 bytes`);
}

/** Skip one field's value, as protobufjs' Reader.skipType does (groups without recursion). */
function skip(s: Scan, end: number, wire: number): void {
  let groups = 0;
  for (;;) {
    switch (wire) {
      case 0:
        for (let k = 0; ; k++) {
          if (k === 10) throw new Malformed('varint longer than 10 bytes');
          if (s.pos >= end) throw new Malformed('truncated varint');
          if (s.buf[s.pos++] < 0x80) break;
        }
        break;
      case 1:
      case 5:
      case 2: {
        const len = wire === 1 ? 8 : wire === 5 ? 4 : varint32(s, end, 'length');
        if (len > end - s.pos) throw new Malformed('a field runs past its end');
        s.pos += len;
        break;
      }
      case 3:
        if (++groups > MAX_GROUP_DEPTH) throw new Malformed('groups nested too deep');
        break;
      case 4:
        if (groups === 0) throw new Malformed('end of a group never started');
        groups--;
        break;
      default:
        throw new Malformed(`invalid wire type ${wire}`);
    }
    if (groups === 0) return;
    wire = varint32(s, end, 'tag') & 7;
  }
}

const REFUSED = Symbol('session request refused before decoding');

/** What Session.Open's deserializer yields for a refused message: session-service.ts ends the stream with it. */
export interface RefusedRequest {
  readonly [REFUSED]: string;
}

/** The reason `req` was refused before decoding, if it was. */
export function refusedBeforeDecoding(req: unknown): string | undefined {
  return typeof req === 'object' && req !== null ? (req as Partial<RefusedRequest>)[REFUSED] : undefined;
}

/** The Session service with Open's requests scanned before decoding, and a decoding error made a refusal (not INTERNAL). */
export function scanSessionRequests<S extends grpc.ServiceDefinition>(service: S): S {
  const open = service.Open as grpc.MethodDefinition<unknown, unknown>;
  const refuse = (why: string): RefusedRequest => ({ [REFUSED]: why });
  const requestDeserialize = (bytes: Buffer): unknown => {
    const why = scanSessionRequest(bytes);
    if (why) return refuse(why);
    try {
      return open.requestDeserialize(bytes);
    } catch (e) {
      return refuse(`malformed session request: ${(e as Error).message}`);
    }
  };
  return { ...service, Open: { ...open, requestDeserialize } };
}
