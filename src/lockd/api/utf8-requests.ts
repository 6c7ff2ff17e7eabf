// Request strings are UTF-8, checked on the bytes. protobufjs decodes a `string` field lossily:
// every invalid sequence becomes U+FFFD, so lock names b"u8\xff" and b"u8\xfe" would both arrive as
// "u8\ufffd" and name one lock. A U+FFFD in the decoded text cannot tell them apart (a client may
// send a real U+FFFD, which is valid UTF-8), so each public request's deserializer walks the raw
// message by its descriptor and checks the bytes of every string field, nested messages and
// Session batches included. A message with an invalid one is still decoded (so every other rule
// answers as before), and marked with the field's path; the service's handlers refuse a marked
// request INVALID_ARGUMENT naming the field before anything else reads it. A Session stream's
// requests are checked per operation (session-service.ts), so a batch answers its bad element only.
// Cost: one pass over the message without allocating, bytes < 0x80 checked in JS and only a string
// with other bytes handed to buffer.isUtf8.
import { isUtf8 } from 'node:buffer';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';

const INVALID = Symbol('request string field that is not UTF-8');

interface Descriptor {
  readonly field: ReadonlyArray<{ readonly name: string; readonly number: number; readonly label: string; readonly type: string; readonly typeName: string }>;
}

/** What the walk does with one field of a message. */
interface FieldPlan {
  /** camelCase, as decoded (src/proto/load.ts keepCase: false). */
  readonly key: string;
  /** snake_case, as the proto names it, for messages. */
  readonly protoName: string;
  readonly repeated: boolean;
  /** 'string' checked, 'message' walked with `message`, 'other' skipped as its declared type. */
  readonly kind: 'string' | 'message' | 'other';
  /** The wire type protobufjs reads the field as, whatever the tag says (2 also for a packed repeated scalar). */
  readonly wire: number;
  message?: MessagePlan;
}

interface MessagePlan {
  /** By field number (a dense array: lockd.v1 numbers its fields from 1 up to a few dozen). */
  readonly fields: Array<FieldPlan | undefined>;
  /** Some field, at any depth, is a string: if not, the walk is skipped. */
  hasStrings: boolean;
}

const plans = new Map<string, MessagePlan>();
const FIXED64 = new Set(['TYPE_FIXED64', 'TYPE_SFIXED64', 'TYPE_DOUBLE']);
const FIXED32 = new Set(['TYPE_FIXED32', 'TYPE_SFIXED32', 'TYPE_FLOAT']);

function typeDescriptor(typeName: string): Descriptor {
  const short = typeName.replace(/^\.?lockd\.v1\./, '');
  const def = (lockdProto.lockd.v1 as unknown as Record<string, { type?: Descriptor } | undefined>)[short];
  if (!def?.type) throw new Error(`utf8-requests: no lockd.v1 message ${typeName}`);
  return def.type;
}

/** The walk plan of a lockd.v1 message, hasStrings settled (built once per type; recursive types share theirs). */
function planOf(typeName: string): MessagePlan {
  const known = plans.get(typeName);
  if (known) return known;
  const plan = buildPlan(typeName);
  settleHasStrings();
  return plan;
}

function buildPlan(typeName: string): MessagePlan {
  const known = plans.get(typeName);
  if (known) return known;
  const fields: Array<FieldPlan | undefined> = [];
  const plan: MessagePlan = { fields, hasStrings: false };
  plans.set(typeName, plan);
  for (const f of typeDescriptor(typeName).field) {
    const kind = f.type === 'TYPE_STRING' ? 'string' : f.type === 'TYPE_MESSAGE' ? 'message' : 'other';
    const wire = kind !== 'other' || f.type === 'TYPE_BYTES' ? 2 : FIXED64.has(f.type) ? 1 : FIXED32.has(f.type) ? 5 : 0;
    fields[f.number] = { key: f.name, protoName: f.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), repeated: f.label === 'LABEL_REPEATED', kind, wire };
  }
  for (const d of typeDescriptor(typeName).field) if (fields[d.number]!.kind === 'message') fields[d.number]!.message = buildPlan(d.typeName);
  return plan;
}

/** Fill hasStrings (a fixpoint: recursive types such as SessionRequest point at themselves). */
function settleHasStrings(): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const p of plans.values()) {
      if (p.hasStrings) continue;
      for (const f of p.fields)
        if (f && (f.kind === 'string' || f.message?.hasStrings)) {
          p.hasStrings = true;
          changed = true;
          break;
        }
    }
  }
}

/** One step of the path to a bad string: a field, and its element if repeated. */
interface Step {
  readonly field: FieldPlan;
  readonly index: number;
}

class Malformed extends Error {}

interface Cursor {
  readonly buf: Uint8Array;
  pos: number;
}

/** A tag or a length (protobufjs reads these as uint32: more than 5 bytes is refused, where the readers could disagree). */
function varint32(c: Cursor, end: number): number {
  if (c.pos >= end) throw new Malformed();
  const b0 = c.buf[c.pos++];
  if (b0 < 0x80) return b0; // almost every tag and length
  let value = b0 & 0x7f;
  for (let k = 1; k < 5; k++) {
    if (c.pos >= end) throw new Malformed();
    const b = c.buf[c.pos++];
    value += (b & 0x7f) * 2 ** (7 * k);
    if (b < 0x80) return value;
  }
  throw new Malformed();
}

function skip(c: Cursor, end: number, wire: number): void {
  let groups = 0;
  for (;;) {
    if (wire === 0) {
      for (let k = 0; ; k++) {
        if (k === 10 || c.pos >= end) throw new Malformed();
        if (c.buf[c.pos++] < 0x80) break;
      }
    } else if (wire === 1 || wire === 5 || wire === 2) {
      const len = wire === 1 ? 8 : wire === 5 ? 4 : varint32(c, end);
      if (len > end - c.pos) throw new Malformed();
      c.pos += len;
    } else if (wire === 3) groups++;
    else if (wire === 4 && groups > 0) groups--;
    else throw new Malformed();
    if (groups === 0) return;
    wire = varint32(c, end) & 7;
  }
}

function utf8(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] >= 0x80) return isUtf8(buf.subarray(start, end));
  return true;
}

/**
 * The path to the first string field of `plan`'s message in buf[c.pos, end) that is not UTF-8, or
 * undefined. A known string or message field is read as length-delimited whatever its wire type, as
 * protobufjs reads it.
 */
function firstInvalid(plan: MessagePlan, c: Cursor, end: number): Step[] | undefined {
  const start = c.pos;
  while (c.pos < end) {
    const at = c.pos;
    const tag = varint32(c, end);
    const f = plan.fields[tag >>> 3];
    const wire = tag & 7;
    if (!f) {
      skip(c, end, wire);
      continue;
    }
    if (f.kind === 'other' || !(f.kind === 'string' || f.message!.hasStrings)) {
      skip(c, end, readAs(f, wire));
      continue;
    }
    const len = varint32(c, end);
    if (len > end - c.pos) throw new Malformed();
    const stop = c.pos + len;
    const inner = f.kind === 'string' ? (utf8(c.buf, c.pos, stop) ? undefined : []) : firstInvalid(f.message!, c, stop);
    // The element's index is counted only on the way out of a refusal: a valid message pays nothing for it.
    if (inner) return [{ field: f, index: f.repeated ? occurrences(plan, c.buf, start, at, tag >>> 3) : 0 }, ...inner];
    c.pos = stop;
  }
  return undefined;
}

/** The wire type protobufjs reads a field as: a known one by its declared type (a repeated scalar may come packed), an unknown one by its tag. */
function readAs(f: FieldPlan | undefined, wire: number): number {
  if (!f) return wire;
  return f.repeated && f.kind === 'other' && wire === 2 ? 2 : f.wire;
}

/** How often field `num` occurs in `plan`'s message buf[start, end) (walked before, so well formed). */
function occurrences(plan: MessagePlan, buf: Uint8Array, start: number, end: number, num: number): number {
  const c: Cursor = { buf, pos: start };
  let n = 0;
  while (c.pos < end) {
    const tag = varint32(c, end);
    if (tag >>> 3 === num) n++;
    skip(c, end, readAs(plan.fields[tag >>> 3], tag & 7));
  }
  return n;
}

function pathText(steps: readonly Step[]): string {
  return steps.map((s) => (s.field.repeated ? `${s.field.protoName}[${s.index}]` : s.field.protoName)).join('.');
}

/** Mark `msg` and each decoded message on the path with the rest of the path. */
function mark(msg: unknown, steps: readonly Step[]): void {
  let at = msg;
  for (let k = 0; k < steps.length && typeof at === 'object' && at !== null; k++) {
    Object.defineProperty(at, INVALID, { value: pathText(steps.slice(k)), enumerable: false });
    const v = (at as Record<string, unknown>)[steps[k].field.key];
    at = steps[k].field.repeated ? (Array.isArray(v) ? v[steps[k].index] : undefined) : v;
  }
}

/** The path of `message`'s bad string field (a refusal), '' for a message the walk could not read, or undefined. */
export function invalidUtf8Field(message: unknown): string | undefined {
  return typeof message === 'object' && message !== null ? (message as { [INVALID]?: string })[INVALID] : undefined;
}

/** The refusal of a marked request, or undefined. */
export function invalidUtf8Status(message: unknown): grpc.StatusObject | undefined {
  const field = invalidUtf8Field(message);
  if (field === undefined) return undefined;
  return { code: grpc.status.INVALID_ARGUMENT, details: invalidUtf8Message(field), metadata: new grpc.Metadata() };
}

/** The refusal's text for invalidUtf8Field's answer. */
export function invalidUtf8Message(field: string): string {
  if (field === '') return 'the request message does not decode consistently (a tag or length over 5 bytes, or truncated)';
  return `${field} is not valid UTF-8 (string fields must be; invalid bytes are refused, never replaced)`;
}

/** Check the string fields of one message of type `typeName` (e.g. 'AcquireRequest'); marks `decoded`. Exported for tests and measurement. */
export function checkUtf8(typeName: string, bytes: Uint8Array, decoded: unknown): void {
  const plan = planOf(typeName);
  if (!plan.hasStrings) return;
  let steps: Step[] | undefined;
  try {
    steps = firstInvalid(plan, { buf: bytes, pos: 0 }, bytes.length);
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
    // protobufjs decoded what this walk cannot read: refuse rather than guess.
    steps = undefined;
    if (typeof decoded === 'object' && decoded !== null) Object.defineProperty(decoded, INVALID, { value: '', enumerable: false });
  }
  if (steps) mark(decoded, steps);
}

type Handler = (call: { request?: unknown; emit(e: 'error', s: grpc.StatusObject): boolean }, callback?: grpc.sendUnaryData<unknown>) => void;

/**
 * `service` with every request's strings checked on its bytes, and `impl` with every handler of a
 * single-request method refusing a marked request. A request-streaming method must have no string
 * fields, or be named in `checkedPerMessage` (its handler checks each message: Session.Open).
 */
export function checkRequestStrings<S extends grpc.ServiceDefinition>(
  service: S,
  impl: grpc.UntypedServiceImplementation,
  checkedPerMessage: readonly string[] = [],
): { service: S; impl: grpc.UntypedServiceImplementation } {
  const outService: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const outImpl: grpc.UntypedServiceImplementation = { ...impl };
  for (const [name, method] of Object.entries(service) as Array<
    [string, grpc.MethodDefinition<unknown, unknown> & { requestType?: { type?: { name?: string } } }]
  >) {
    const implName = impl[name] ? name : (method.originalName ?? name);
    const typeName = method.requestType?.type?.name;
    if (!typeName) throw new Error(`utf8-requests: ${method.path} has no request descriptor`);
    const plan = planOf(typeName);
    const inner = method.requestDeserialize;
    outService[name] = plan.hasStrings
      ? {
          ...method,
          requestDeserialize: (bytes: Buffer) => {
            const decoded = inner(bytes);
            checkUtf8(typeName, bytes, decoded);
            return decoded;
          },
        }
      : method;
    if (!plan.hasStrings) continue;
    if (method.requestStream) {
      if (!checkedPerMessage.includes(name)) throw new Error(`utf8-requests: ${method.path} streams requests with string fields; its handler must check each`);
      continue;
    }
    const handler = impl[implName] as unknown as Handler | undefined;
    if (!handler) continue;
    outImpl[implName] = (method.responseStream
      ? (call: Parameters<Handler>[0]) => {
          const refused = invalidUtf8Status(call.request);
          if (refused) call.emit('error', refused);
          else handler(call);
        }
      : (call: Parameters<Handler>[0], callback: grpc.sendUnaryData<unknown>) => {
          const refused = invalidUtf8Status(call.request);
          if (refused) callback(refused);
          else handler(call, callback);
        }) as unknown as grpc.UntypedHandleCall;
  }
  return { service: outService as S, impl: outImpl };
}
