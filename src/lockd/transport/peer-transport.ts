// Raft messages between the nodes of one cluster over gRPC (proto/raft.proto): one long-lived
// stream to each peer for sending, the raft.v1.Raft service for receiving.
//
// Callbacks (onMessage, onUnreachable, onSnapshotStatus) run on I/O events or synchronously inside
// send(); a driver that must not touch its Raft node between ready() and advance() queues them.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Message, NodeId } from '../../raft/types.js';
import type { Envelope } from '../../proto/gen/raft/v1/Envelope.js';
import { raftService } from './envelope-codec.js';
import { encodeMessage } from './frame-codec.js';
import { type Backoff, PeerStream, type PeerState } from './peer-stream.js';
import { MAX_CLIENT_ADDRESS_LENGTH, type StatedAddresses } from './metadata.js';
import { raftHandlers, refusalsTo, type RefusalPort } from './receiver.js';
import { DEFAULT_CHUNK_BYTES, snapshotEnvelopes } from './snapshot-chunks.js';

export interface PeerTransportOptions {
  readonly clusterId: string;
  readonly selfId: NodeId;
  /** Every other node: id → host:port of its gRPC server. */
  readonly peers: ReadonlyMap<NodeId, string>;
  readonly logger: Logger;
  /** Refusals and protocol errors, rate-limited (default: a line each on `logger`). */
  readonly refusals?: RefusalPort;
  /** A message from a peer, whole (snapshots reassembled), in the order the peer sent it. */
  readonly onMessage: (m: Message) => void;
  /** Messages to `id` were dropped (peer down or backed up): tell the core (reportUnreachable). */
  readonly onUnreachable: (id: NodeId) => void;
  /** A Snap message to `id` left this process (ok) or was dropped (not ok): tell the core (reportSnapshot). */
  readonly onSnapshotStatus?: (id: NodeId, ok: boolean) => void;
  /** Snapshot chunk size in bytes (default 1 MiB). */
  readonly chunkBytes?: number;
  /** Reconnect backoff (default 50 ms doubling to 1 s). */
  readonly backoff?: Backoff;
  /** Envelopes buffered toward one peer beyond which messages are dropped (default 4096). */
  readonly maxQueued?: number;
  /** Largest snapshot accepted from a peer, in bytes (default 1 GiB). */
  readonly maxSnapshotBytes?: number;
  /** How to dial a peer (default: insecure). */
  readonly channel?: (peerId: NodeId) => { credentials: grpc.ChannelCredentials; options: grpc.ChannelOptions };
  /** Why a stream's caller may not act as member `sender` (TLS identity); default: any caller may. */
  readonly authenticate?: (call: grpc.ServerReadableStream<unknown, unknown>, sender: NodeId) => string | undefined;
  /** This node's client address, stated to every peer on both sides of each stream (default: none). */
  readonly clientAddress?: string;
  /** The same for this node's HTTP address (--advertise-http; default: none). */
  readonly httpAddress?: string;
  /** This node's build line (node/versions.ts), stated the same way (metadata.ts VERSION_HEADER; default: none). */
  readonly build?: string;
  /**
   * A peer stated its client and/or HTTP address: record them and return true, or return false and
   * record neither when one is unusable (the stream it came on is then refused).
   */
  readonly onAddresses?: (peerId: NodeId, stated: StatedAddresses) => boolean;
  /** Who may open a stream to us (default: the peers we send to). */
  readonly isPeer?: (id: NodeId) => boolean;
  /** Ids whose removal this node committed: their streams are refused and told so (default: none). */
  readonly isRemoved?: (id: NodeId) => boolean;
  /** A peer refused our stream because it committed our removal: this node must stop. */
  readonly onRemoved?: (byPeer: NodeId) => void;
}

/**
 * How soon gRPC may resolve a peer's DNS name again. grpc-js resolves a name when the channel
 * starts and again whenever its connection is lost, but by default at most every 30 s: a member
 * restarted at a new address under its old name (a rescheduled Kubernetes pod) would stay
 * unreachable that long. An IP address is never resolved, so this costs nothing there.
 */
export const DNS_RERESOLVE_MS = 1000;

/** Channel options for peer clients: fast failure detection and reconnects within the backoff cap. */
export function peerChannelOptions(backoff: Backoff): grpc.ChannelOptions {
  return {
    'grpc.dns_min_time_between_resolutions_ms': DNS_RERESOLVE_MS,
    'grpc.keepalive_time_ms': 1000, // a stopped or partitioned peer is noticed within ~2 s
    'grpc.keepalive_timeout_ms': 1000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.initial_reconnect_backoff_ms': backoff.initialMs,
    'grpc.max_reconnect_backoff_ms': backoff.maxMs,
    'grpc.enable_retries': 0, // Raft retransmits; no hidden buffering for replays
  };
}

/** Server options the node's grpc.Server needs for peer traffic (whole messages up to 64 MiB). */
export const PEER_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
  // Fixed, whatever --max-streams-per-connection says of the client port: members spread what they
  // forward over a few connections (api/forwarder.ts), and the peer port serves members only.
  'grpc.max_concurrent_streams': 4096,
};

export class PeerTransport {
  private readonly streams = new Map<NodeId, PeerStream>();
  private readonly chunkBytes: number;
  private readonly warnedUnknown = new Set<NodeId>();
  private readonly backoff: Backoff;
  private readonly refusals: RefusalPort;
  private closed = false;

  constructor(private readonly opts: PeerTransportOptions) {
    this.refusals = opts.refusals ?? refusalsTo(opts.logger);
    if (!opts.clusterId) throw new Error('PeerTransport: clusterId must not be empty');
    if (opts.peers.has(opts.selfId)) throw new Error(`PeerTransport: peers must not include self (${opts.selfId})`);
    this.chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    const backoff = opts.backoff ?? { initialMs: 50, maxMs: 1000 };
    if (!(backoff.initialMs > 0 && backoff.maxMs >= backoff.initialMs)) throw new Error(`PeerTransport: bad backoff ${JSON.stringify(backoff)}`);
    this.backoff = backoff;
    for (const [peerId, address] of opts.peers) this.addPeer(peerId, address);
  }

  /** Start sending to a new member (a membership change told its address). A known id keeps its stream. */
  addPeer(peerId: NodeId, address: string): void {
    if (this.closed || peerId === this.opts.selfId || this.streams.has(peerId)) return;
    const opts = this.opts;
    const backoff = this.backoff;
    const channelOptions = peerChannelOptions(backoff);
    const channel = opts.channel?.(peerId) ?? { credentials: grpc.credentials.createInsecure(), options: {} };
    const stream = new PeerStream({
      clusterId: opts.clusterId,
      selfId: opts.selfId,
      peerId,
      address,
      logger: opts.logger,
      backoff,
      maxQueued: opts.maxQueued ?? 4096,
      channelOptions: { ...channelOptions, ...channel.options },
      credentials: channel.credentials,
      clientAddress: opts.clientAddress ?? '',
      httpAddress: opts.httpAddress ?? '',
      build: opts.build ?? '',
      onAddresses: (stated) => {
        if (!this.record(peerId, stated))
          this.refusals.note(
            'unusable peer addresses',
            'warn',
            { peer: peerId, client: stated.client?.slice(0, 80), http: stated.http?.slice(0, 80) },
            'peer stated an unusable address; ignored',
          );
      },
      onDown: () => opts.onUnreachable(peerId),
      onRemoved: () => opts.onRemoved?.(peerId),
    });
    this.streams.set(peerId, stream);
    this.warnedUnknown.delete(peerId);
  }

  /** Stop sending to a member whose removal committed. */
  removePeer(peerId: NodeId): void {
    this.streams.get(peerId)?.close();
    this.streams.delete(peerId);
  }

  /** Serve raft.v1.Raft on `server` (before it starts); create it with PEER_SERVER_OPTIONS. */
  addToServer(server: grpc.Server): void {
    server.addService(
      raftService,
      raftHandlers({
        clusterId: this.opts.clusterId,
        selfId: this.opts.selfId,
        isPeer: (id) => this.opts.isPeer?.(id) ?? this.streams.has(id),
        isRemoved: (id) => this.opts.isRemoved?.(id) ?? false,
        logger: this.opts.logger,
        refusals: this.refusals,
        onMessage: this.opts.onMessage,
        maxSnapshotBytes: this.opts.maxSnapshotBytes ?? 1024 * 1024 * 1024,
        authenticate: (call, sender) => this.opts.authenticate?.(call, sender),
        clientAddress: this.opts.clientAddress ?? '',
        httpAddress: this.opts.httpAddress ?? '',
        build: this.opts.build ?? '',
        onAddresses: (sender, stated) => this.record(sender, stated),
      }),
    );
  }

  /** Both sides of a stream: bounded here, checked and recorded (both or neither) by the caller. */
  private record(peerId: NodeId, stated: StatedAddresses): boolean {
    if ((stated.client?.length ?? 0) > MAX_CLIENT_ADDRESS_LENGTH || (stated.http?.length ?? 0) > MAX_CLIENT_ADDRESS_LENGTH) return false;
    return this.opts.onAddresses?.(peerId, stated) ?? true;
  }

  /** Queue messages for sending, in order per peer. Never throws for a down peer: it drops and reports. */
  send(messages: readonly Message[]): void {
    const unreachable = new Set<NodeId>();
    const tag = { clusterId: this.opts.clusterId, senderId: this.opts.selfId };
    for (const m of messages) {
      if (m.from !== this.opts.selfId) throw new Error(`PeerTransport.send: message from ${m.from}, this node is ${this.opts.selfId}`);
      const stream = this.streams.get(m.to);
      if (!stream) {
        if (!this.warnedUnknown.has(m.to)) this.opts.logger.warn({ to: m.to, type: m.type }, 'message to a node with no known address dropped');
        this.warnedUnknown.add(m.to);
        continue;
      }
      const snap = m.type === 'Snap';
      // An object literal, not a spread of `tag`: V8 builds a spread copy an order of magnitude slower.
      const envelopes: Envelope[] = snap
        ? snapshotEnvelopes(m, tag, this.chunkBytes)
        : [{ clusterId: tag.clusterId, senderId: tag.senderId, frame: encodeMessage(m) }];
      const onWritten = snap && this.opts.onSnapshotStatus ? (ok: boolean) => this.opts.onSnapshotStatus?.(m.to, ok) : undefined;
      if (stream.write(envelopes, onWritten)) continue;
      unreachable.add(m.to);
      if (snap) this.opts.onSnapshotStatus?.(m.to, false);
    }
    for (const id of unreachable) this.opts.onUnreachable(id);
  }

  /** The sending stream's state toward a peer. */
  peerState(id: NodeId): PeerState | undefined {
    return this.streams.get(id)?.state;
  }

  /** Close every outgoing stream. (The server is the caller's to shut down.) */
  close(): void {
    this.closed = true;
    for (const s of this.streams.values()) s.close();
  }
}
