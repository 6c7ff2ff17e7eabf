// The server side of raft.v1.Raft/Stream: check who is talking, reassemble snapshots, and hand
// each message to the node in the order it was sent.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Message, NodeId } from '../../raft/types.js';
import type { Envelope__Output } from '../../proto/gen/raft/v1/Envelope.js';
import type { RaftHandlers } from '../../proto/gen/raft/v1/Raft.js';
import { ProtocolError, messageFromProto } from './convert.js';
import { decodeMessage } from './frame-codec.js';
import {
  CLIENT_ADDRESS_HEADER,
  CLUSTER_ID_HEADER,
  HTTP_ADDRESS_HEADER,
  NODE_ID_HEADER,
  REMOVED_TRAILER,
  VERSION_HEADER,
  statedIn,
  type StatedAddresses,
} from './metadata.js';
import { SnapshotAssembler } from './snapshot-chunks.js';

/**
 * Where refusals go, counted per interval rather than a line each (observe/log-limiter.ts is one):
 * a stranger that opens streams in a loop must not flood the log. `kind` is from a bounded set.
 */
export interface RefusalPort {
  note(kind: string, level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string): void;
}

/** Without a RefusalPort: a line per refusal (tests of the transport alone). */
export function refusalsTo(logger: Logger): RefusalPort {
  return { note: (_kind, level, fields, msg) => logger[level](fields, msg) };
}

export interface ReceiverOptions {
  readonly clusterId: string;
  readonly selfId: NodeId;
  /** Whether a node id may talk to us (a member this node knows the address of). */
  readonly isPeer: (id: NodeId) => boolean;
  /** Whether this node committed the removal of `id`: its stream is refused with REMOVED_TRAILER, also mid-stream. */
  readonly isRemoved: (id: NodeId) => boolean;
  readonly logger: Logger;
  /** Refused streams are logged here (rate-limited). */
  readonly refusals: RefusalPort;
  readonly onMessage: (m: Message) => void;
  /** Largest snapshot accepted, in bytes. */
  readonly maxSnapshotBytes: number;
  /** Why the caller may not act as member `sender` (its TLS certificate), or undefined if it may. */
  readonly authenticate: (call: grpc.ServerReadableStream<Envelope__Output, unknown>, sender: NodeId) => string | undefined;
  /** This node's client address, stated in the response metadata ('' for none). */
  readonly clientAddress: string;
  /** The same for the HTTP address (HTTP_ADDRESS_HEADER). */
  readonly httpAddress: string;
  /** This node's build line, stated the same way (VERSION_HEADER; '' for none). */
  readonly build?: string;
  /** Record the addresses `sender` stated (both or neither); false: one is unusable, the stream is refused. */
  readonly onAddresses: (sender: NodeId, stated: StatedAddresses) => boolean;
}

export function raftHandlers(opts: ReceiverOptions): RaftHandlers {
  return { Stream: (call, callback) => serveStream(opts, call, callback) };
}

/** How one stream ends: refused with a status (once), or completed; `done` after either, or a break. */
interface StreamEnd {
  done: boolean;
  refuse(reason: string, fields?: Record<string, unknown>, code?: grpc.status, metadata?: grpc.Metadata): void;
  refuseRemoved(): void;
}

function serveStream(
  opts: ReceiverOptions,
  call: grpc.ServerReadableStream<Envelope__Output, unknown>,
  callback: grpc.sendUnaryData<{ envelopes: number }>,
): void {
  const cluster = String(call.metadata.get(CLUSTER_ID_HEADER)[0] ?? '');
  const sender = String(call.metadata.get(NODE_ID_HEADER)[0] ?? '');
  const log = opts.logger.child({ peer: sender || undefined, remote: call.getPeer() });
  const assembler = new SnapshotAssembler(opts.maxSnapshotBytes);
  let envelopes = 0;
  const end = streamEnd(opts, call, callback, sender);
  if (refusedAtOpen(opts, call, sender, cluster, end)) return;
  call.sendMetadata(acceptedMetadata(opts)); // tells the sender the stream is accepted: peer up

  call.on('data', (env: Envelope__Output) => {
    if (end.done) return;
    envelopes++;
    receiveEnvelope(opts, sender, assembler, end, env);
  });
  call.on('end', () => {
    if (end.done) return;
    end.done = true;
    callback(null, { envelopes });
  });
  call.on('error', (err) => {
    end.done = true;
    log.debug({ err: err.message }, 'peer stream broke');
  });
}

function streamEnd(
  opts: ReceiverOptions,
  call: grpc.ServerReadableStream<Envelope__Output, unknown>,
  callback: grpc.sendUnaryData<{ envelopes: number }>,
  sender: NodeId,
): StreamEnd {
  const end: StreamEnd = {
    done: false,
    // Ends the stream with an error status; the sender sees it, logs it and retries with backoff.
    // `reason` goes to the sender, so it must not reveal anything a stranger could use: the details
    // (what was expected, who asked) go only to our own log.
    refuse: (reason, fields = {}, code = grpc.status.FAILED_PRECONDITION, metadata) => {
      if (end.done) return;
      end.done = true;
      // One kind per reason (cut short): it may carry the caller's text, so the limiter's cap on kinds is what bounds them.
      opts.refusals.note(
        `refused peer streams: ${reason.slice(0, 100)}`,
        'warn',
        { peer: sender.slice(0, 64) || undefined, remote: call.getPeer(), ...fields, reason, code: grpc.status[code] },
        'refused peer stream',
      );
      callback({ code, details: `node ${opts.selfId} refuses the stream: ${reason}`, ...(metadata ? { metadata } : {}) });
    },
    refuseRemoved: () => {
      const md = new grpc.Metadata();
      md.set(REMOVED_TRAILER, '1');
      end.refuse(
        `${sender} was removed from the cluster (ids are never reused: wipe its data dir and add it under a new id)`,
        {},
        grpc.status.PERMISSION_DENIED,
        md,
      );
    },
  };
  return end;
}

/** The checks of a new stream, in order: true if one refused it (the refusal is sent). */
function refusedAtOpen(
  opts: ReceiverOptions,
  call: grpc.ServerReadableStream<Envelope__Output, unknown>,
  sender: NodeId,
  cluster: string,
  { refuse, refuseRemoved }: StreamEnd,
): boolean {
  // With TLS the certificate is checked first: a caller that cannot prove it is the member it
  // claims gets one answer, whatever id it claims (a member's, a removed one's or none) and whatever
  // cluster id it sent, so a client certificate of the cluster's CA learns neither which ids are
  // members nor whether its guess of the cluster id is right. (Without TLS this checks nothing.)
  const authProblem = opts.authenticate(call, sender);
  if (authProblem) refuse(`the caller cannot act as ${sender.slice(0, 64)}: ${authProblem}`, {}, grpc.status.UNAUTHENTICATED);
  // Never echo our cluster id: it is all a stranger needs to open a peer stream. Nor log it (the
  // operator knows it; logs travel): what the caller sent is logged, cut short (it is the caller's).
  else if (cluster !== opts.clusterId) refuse('wrong cluster id', { remoteClusterId: cluster.slice(0, 64) });
  // Only after the credentials check: a stranger must not learn which ids were removed, nor be told to stop.
  else if (opts.isRemoved(sender)) refuseRemoved();
  else if (!opts.isPeer(sender)) refuse(`"${sender}" is not a configured peer`);
  else {
    const stated = statedIn(call.metadata);
    if (opts.onAddresses(sender, stated)) return false;
    const said = [
      stated.client !== undefined && `${CLIENT_ADDRESS_HEADER} "${stated.client.slice(0, 80)}"`,
      stated.http !== undefined && `${HTTP_ADDRESS_HEADER} "${stated.http.slice(0, 80)}"`,
    ].filter(Boolean);
    refuse(`${said.join(', ')}: each must be a HOST:PORT`, {}, grpc.status.INVALID_ARGUMENT);
  }
  return true;
}

/** This node's addresses and build, stated to the sender as the stream is accepted. */
function acceptedMetadata(opts: ReceiverOptions): grpc.Metadata {
  const accepted = new grpc.Metadata();
  if (opts.clientAddress) accepted.set(CLIENT_ADDRESS_HEADER, opts.clientAddress);
  if (opts.httpAddress) accepted.set(HTTP_ADDRESS_HEADER, opts.httpAddress);
  if (opts.build) accepted.set(VERSION_HEADER, opts.build);
  return accepted;
}

/** One envelope of an admitted stream: checked, decoded (a snapshot reassembled from its chunks), handed on. */
function receiveEnvelope(
  opts: ReceiverOptions,
  sender: NodeId,
  assembler: SnapshotAssembler,
  { refuse, refuseRemoved }: StreamEnd,
  env: Envelope__Output,
): void {
  if (env.clusterId !== opts.clusterId) return refuse(`envelope tagged with cluster id "${env.clusterId}"`, { remoteClusterId: env.clusterId });
  if (env.senderId !== sender) return refuse(`envelope from "${env.senderId}" on the stream of "${sender}"`);
  if (opts.isRemoved(sender)) return refuseRemoved(); // removed while its stream was open
  let m: Message | undefined;
  try {
    if (env.body === 'frame' && env.frame) m = decodeMessage(env.frame);
    else if (env.message) m = messageFromProto(env.message);
    else if (env.snapshotChunk) m = assembler.add(env.snapshotChunk);
    else throw new ProtocolError('empty envelope');
  } catch (e) {
    if (e instanceof ProtocolError) return refuse(e.message);
    throw e;
  }
  if (!m) return; // more snapshot chunks to come
  if (m.from !== sender || m.to !== opts.selfId) return refuse(`message ${m.from}→${m.to} on the stream ${sender}→${opts.selfId}`);
  opts.onMessage(m);
}
