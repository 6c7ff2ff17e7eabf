// The peer frame: a raft.v1 Message (any type but Snap, which travels in SnapshotChunks) as the bytes
// of Envelope.frame (proto/raft.proto). It replaces the protobuf Message on the hot path: no
// intermediate objects, no Long values, entry data sliced out of the received buffer uncopied.
//
// Layout (primitives in codec/binary.ts: uint = minimal LEB128 ≤ 2^53 - 1, str/bytes = uint length + bytes):
//   u8 FRAME_VERSION (1)
//   u8 type            the MessageType enum number of raft.proto (1..10, never 9 = Snap)
//   uint term, uint log_term, uint index, uint commit, uint reject_hint
//   u8 flags           bit 0: reject; every other bit 0
//   str from, str to   non-empty, at most MAX_ID_BYTES each
//   str context        at most MAX_CONTEXT_BYTES
//   uint n             entry count (each entry takes at least 4 bytes, so n is bounded by the frame)
//   n × { uint term, uint index, u8 type (0 normal, 1 config), bytes data }
// and nothing after. Anything else is refused with a ProtocolError (the stream ends, nothing is
// delivered): a peer is authenticated, but its bytes are still bounded and checked.
import type { Entry, Message, MessageType } from '../../raft/types.js';
import { MAX_UINT_BYTES, Reader, Writer, maxStrBytes } from '../codec/binary.js';
import { ProtocolError } from './convert.js';

export const FRAME_VERSION = 1;
/** Longest node id in a frame, in bytes (ids are 1-64 characters: node/config.ts NODE_ID_PATTERN). */
export const MAX_ID_BYTES = 255;
/** Longest ReadIndex context in a frame, in bytes. */
export const MAX_CONTEXT_BYTES = 4096;

const TYPES: readonly (MessageType | undefined)[] = [
  undefined,
  'App',
  'AppResp',
  'Vote',
  'VoteResp',
  'PreVote',
  'PreVoteResp',
  'Heartbeat',
  'HeartbeatResp',
  undefined, // Snap: chunked, never a frame
  'TimeoutNow',
];
const CODE = new Map<MessageType, number>(TYPES.flatMap((t, i) => (t ? [[t, i] as [MessageType, number]] : [])));

const MIN_ENTRY_BYTES = 4; // term, index, type, data length: one byte each at least
const FIXED_BYTES = 2 + 5 * MAX_UINT_BYTES + 1 + MAX_UINT_BYTES;
const ENTRY_FIXED_BYTES = 3 * MAX_UINT_BYTES + 1;

/** The frame of m. Throws (a bug in the caller, not a peer's fault) for a Snap message or a field out of the bounds above. */
export function encodeMessage(m: Message): Buffer {
  const code = CODE.get(m.type);
  if (code === undefined) throw new Error(`encodeMessage: ${m.type} messages travel as snapshot chunks, not frames`);
  // The receiver's bounds, checked here too: a frame it must refuse would end the stream every time.
  bounded('from', m.from, MAX_ID_BYTES);
  bounded('to', m.to, MAX_ID_BYTES);
  bounded('context', m.context, MAX_CONTEXT_BYTES);
  let size = FIXED_BYTES + maxStrBytes(m.from) + maxStrBytes(m.to) + maxStrBytes(m.context);
  for (const e of m.entries) size += ENTRY_FIXED_BYTES + e.data.length;
  const w = new Writer(size);
  w.u8(FRAME_VERSION);
  w.u8(code);
  w.uint(m.term);
  w.uint(m.logTerm);
  w.uint(m.index);
  w.uint(m.commit);
  w.uint(m.rejectHint);
  w.u8(m.reject ? 1 : 0);
  w.str(m.from);
  w.str(m.to);
  w.str(m.context);
  w.uint(m.entries.length);
  for (const e of m.entries) {
    w.uint(e.term);
    w.uint(e.index);
    w.u8(e.type === 'config' ? 1 : 0);
    w.bytes(e.data);
  }
  return w.result();
}

function bounded(what: string, s: string, maxBytes: number): void {
  if (s.length * 3 > maxBytes && Buffer.byteLength(s, 'utf8') > maxBytes) throw new RangeError(`encodeMessage: ${what} is longer than ${maxBytes} bytes`);
}

const refuse = (detail: string): ProtocolError => new ProtocolError(`malformed peer frame: ${detail}`);

/** The message in a frame; entry data are views into `frame` (no copy). Throws ProtocolError on anything encodeMessage cannot produce. */
export function decodeMessage(frame: Uint8Array): Message {
  // A plain Uint8Array over the bytes (a received Buffer's too), so received entries compare equal to sent ones.
  const r = new Reader(new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength), refuse);
  const version = r.u8('version');
  if (version !== FRAME_VERSION) throw refuse(`version ${version} is not supported (this build speaks ${FRAME_VERSION})`);
  const code = r.u8('type');
  const type = TYPES[code];
  if (type === undefined) throw refuse(`unknown message type ${code}`);
  const term = r.uint('term');
  const logTerm = r.uint('log_term');
  const index = r.uint('index');
  const commit = r.uint('commit');
  const rejectHint = r.uint('reject_hint');
  const flags = r.u8('flags');
  if (flags > 1) throw refuse(`unknown flags ${flags}`);
  const from = r.str('from', MAX_ID_BYTES);
  const to = r.str('to', MAX_ID_BYTES);
  if (!from || !to) throw refuse(`${type} message without from/to`);
  const context = r.str('context', MAX_CONTEXT_BYTES);
  const n = r.uint('entry count');
  if (n * MIN_ENTRY_BYTES > r.remaining) throw refuse(`${n} entries cannot fit in the ${r.remaining} bytes that remain`);
  const entries: Entry[] = []; // grown as entries decode: a hostile count allocates nothing
  for (let i = 0; i < n; i++) {
    const eTerm = r.uint('entry term');
    const eIndex = r.uint('entry index');
    const eType = r.u8('entry type');
    if (eType > 1) throw refuse(`unknown entry type ${eType}`);
    const data = r.bytes('entry data', r.remaining);
    entries.push(eType === 1 ? { term: eTerm, index: eIndex, data, type: 'config' } : { term: eTerm, index: eIndex, data });
  }
  r.end('message');
  return { type, from, to, term, logTerm, index, entries, commit, reject: flags === 1, rejectHint, context };
}
