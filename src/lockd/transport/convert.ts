// Message <-> raft.v1.Message. The proto side uses the shared loader options (camelCase fields,
// uint64 as number, enums as names, bytes as Buffer).
import type { Entry, Message, MessageType, Snapshot, SnapshotMetadata } from '../../raft/types.js';
import type { Entry as ProtoEntryIn, Entry__Output as ProtoEntry } from '../../proto/gen/raft/v1/Entry.js';
import type { Message as ProtoMessageIn, Message__Output as ProtoMessage } from '../../proto/gen/raft/v1/Message.js';
import type { MessageType__Output as ProtoType } from '../../proto/gen/raft/v1/MessageType.js';
import type { Snapshot__Output as ProtoSnapshot } from '../../proto/gen/raft/v1/Snapshot.js';
import type { SnapshotMetadata as ProtoSnapshotMetadataIn } from '../../proto/gen/raft/v1/SnapshotMetadata.js';

/** A peer sent something that is not a valid message: the stream is refused. */
export class ProtocolError extends Error {}

const TO_PROTO: Record<MessageType, ProtoType> = {
  App: 'MESSAGE_TYPE_APP',
  AppResp: 'MESSAGE_TYPE_APP_RESP',
  Vote: 'MESSAGE_TYPE_VOTE',
  VoteResp: 'MESSAGE_TYPE_VOTE_RESP',
  PreVote: 'MESSAGE_TYPE_PRE_VOTE',
  PreVoteResp: 'MESSAGE_TYPE_PRE_VOTE_RESP',
  Heartbeat: 'MESSAGE_TYPE_HEARTBEAT',
  HeartbeatResp: 'MESSAGE_TYPE_HEARTBEAT_RESP',
  Snap: 'MESSAGE_TYPE_SNAP',
  TimeoutNow: 'MESSAGE_TYPE_TIMEOUT_NOW',
};
const FROM_PROTO = new Map<string, MessageType>(Object.entries(TO_PROTO).map(([k, v]) => [v, k as MessageType]));

/** The proto form of m. With omitSnapshotData, a Snap message's snapshot goes without its data (sent in chunks). */
export function messageToProto(m: Message, omitSnapshotData = false): ProtoMessageIn {
  return {
    type: TO_PROTO[m.type],
    from: m.from,
    to: m.to,
    term: m.term,
    logTerm: m.logTerm,
    index: m.index,
    entries: m.entries.map((e): ProtoEntryIn => ({
      term: e.term,
      index: e.index,
      data: e.data,
      type: e.type === 'config' ? 'ENTRY_TYPE_CONFIG' : 'ENTRY_TYPE_NORMAL',
    })),
    commit: m.commit,
    reject: m.reject,
    rejectHint: m.rejectHint,
    snapshot: m.snapshot ? { metadata: metadataToProto(m.snapshot.metadata), data: omitSnapshotData ? undefined : m.snapshot.data } : null,
    context: m.context,
  };
}

/** The core's form of a received message; snapshotData replaces the (chunked, hence empty) snapshot data. */
export function messageFromProto(p: ProtoMessage, snapshotData?: Uint8Array): Message {
  const type = FROM_PROTO.get(p.type);
  if (type === undefined) throw new ProtocolError(`unknown message type ${JSON.stringify(p.type)}`);
  if (!p.from || !p.to) throw new ProtocolError(`${type} message without from/to`);
  const snapshot = p.snapshot ? snapshotFromProto(p.snapshot, snapshotData) : undefined;
  if (type === 'Snap' && !snapshot) throw new ProtocolError('Snap message without a snapshot');
  return {
    type,
    from: p.from,
    to: p.to,
    term: p.term,
    logTerm: p.logTerm,
    index: p.index,
    entries: p.entries.map(entryFromProto),
    commit: p.commit,
    reject: p.reject,
    rejectHint: p.rejectHint,
    ...(snapshot ? { snapshot } : {}),
    context: p.context,
  };
}

function entryFromProto(e: ProtoEntry): Entry {
  if (e.type !== 'ENTRY_TYPE_NORMAL' && e.type !== 'ENTRY_TYPE_CONFIG') throw new ProtocolError(`unknown entry type ${JSON.stringify(e.type)}`);
  return { term: e.term, index: e.index, data: view(e.data), ...(e.type === 'ENTRY_TYPE_CONFIG' ? { type: 'config' as const } : {}) };
}

function metadataToProto(md: SnapshotMetadata): ProtoSnapshotMetadataIn {
  return {
    index: md.index,
    term: md.term,
    voters: [...md.voters],
    learners: [...(md.learners ?? [])],
    removed: [...(md.removed ?? [])],
    configIndex: md.configIndex ?? 0,
  };
}

/** A plain Uint8Array over a received Buffer's bytes (no copy), so received values compare equal to sent ones. */
function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function snapshotFromProto(s: ProtoSnapshot, data?: Uint8Array): Snapshot {
  if (!s.metadata) throw new ProtocolError('snapshot without metadata');
  const { index, term, voters, learners, removed, configIndex } = s.metadata;
  if (configIndex > index) throw new ProtocolError(`snapshot at ${index} carries the configuration of entry ${configIndex}`);
  // Empty lists and a zero index mean "none" (as in a snapshot from before membership changes).
  const membership = {
    ...(learners.length > 0 ? { learners } : {}),
    ...(removed.length > 0 ? { removed } : {}),
    ...(configIndex > 0 ? { configIndex } : {}),
  };
  return { metadata: { index, term, voters, ...membership }, data: data ?? view(s.data) };
}
