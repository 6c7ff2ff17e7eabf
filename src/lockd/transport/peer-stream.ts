// The sending side toward one peer: one long-lived client stream, written in order. While the peer
// is down (or its stream is backed up) messages are dropped, since Raft retransmits; the stream is
// re-opened with capped exponential backoff. Up/down is logged once per transition.
//
// A stream the peer has not accepted within ACCEPT_TIMEOUT_MS is given up with its channel, and the
// next attempt dials on a new one. grpc-js has no connect timeout: a dial whose SYNs vanish (the
// peer's old IP address, after it came back elsewhere under its DNS name; a host that went off
// without a reset) waits for the kernel's own, about two minutes, and the channel resolves the name
// again only after that attempt failed. A new channel resolves the name at once and dials anew.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { NodeId } from '../../raft/types.js';
import type { Envelope } from '../../proto/gen/raft/v1/Envelope.js';
import type { RaftClient } from '../../proto/gen/raft/v1/Raft.js';
import { newRaftClient } from './envelope-codec.js';
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

export interface Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

export interface PeerStreamOptions {
  readonly clusterId: string;
  readonly selfId: NodeId;
  readonly peerId: NodeId;
  readonly address: string;
  readonly logger: Logger;
  readonly backoff: Backoff;
  /** Envelopes buffered in the stream beyond which new messages are dropped (a stalled peer). */
  readonly maxQueued: number;
  readonly channelOptions: grpc.ChannelOptions;
  /** How to dial this peer (TLS that checks the server is this member, or insecure). */
  readonly credentials: grpc.ChannelCredentials;
  /** This node's client address, stated in the stream's metadata ('' to state none). */
  readonly clientAddress: string;
  /** This node's HTTP address ('' for none), stated the same way. */
  readonly httpAddress: string;
  /** This node's build line (VERSION_HEADER; '' to state none). */
  readonly build?: string;
  /** The peer accepted the stream and stated its addresses (unchecked: the caller validates). */
  readonly onAddresses: (stated: StatedAddresses) => void;
  /** The stream to this peer failed or could not be opened (called once per transition to down). */
  readonly onDown: () => void;
  /** The peer refused the stream because its committed configuration removed this node. */
  readonly onRemoved?: () => void;
}

export type PeerState = 'connecting' | 'up' | 'down';

/** A peer accepts a stream as soon as it reads its metadata (receiver.ts): milliseconds, even loaded. */
export const ACCEPT_TIMEOUT_MS = 2000;

export class PeerStream {
  private client: RaftClient;
  private readonly log: Logger;
  private call: grpc.ClientWritableStream<Envelope> | undefined;
  private accepted = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private acceptTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private reported: 'up' | 'down' | undefined;
  private closed = false;

  constructor(private readonly opts: PeerStreamOptions) {
    this.log = opts.logger.child({ peer: opts.peerId, address: opts.address });
    this.client = this.newClient();
    this.delayMs = opts.backoff.initialMs;
    this.open();
  }

  get state(): PeerState {
    if (!this.call) return 'down';
    return this.accepted ? 'up' : 'connecting';
  }

  /**
   * Write envelopes in order, all or none. Returns false if they were dropped: no stream (the peer
   * is down) or the stream is backed up. `onWritten` reports whether the last one left this process.
   */
  write(envelopes: readonly Envelope[], onWritten?: (ok: boolean) => void): boolean {
    const call = this.call;
    if (!call || call.writableLength + envelopes.length > this.opts.maxQueued) return false;
    envelopes.forEach((env, i) => {
      const last = i === envelopes.length - 1;
      call.write(env, last && onWritten ? (err?: Error | null) => onWritten(!err) : undefined);
    });
    return true;
  }

  private newClient(): RaftClient {
    return newRaftClient(this.opts.address, this.opts.credentials, this.opts.channelOptions);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.acceptTimer);
    this.call?.end();
    this.call = undefined;
    this.client.close();
  }

  private open(): void {
    const md = new grpc.Metadata();
    md.set(CLUSTER_ID_HEADER, this.opts.clusterId);
    md.set(NODE_ID_HEADER, this.opts.selfId);
    if (this.opts.clientAddress) md.set(CLIENT_ADDRESS_HEADER, this.opts.clientAddress);
    if (this.opts.httpAddress) md.set(HTTP_ADDRESS_HEADER, this.opts.httpAddress);
    if (this.opts.build) md.set(VERSION_HEADER, this.opts.build);
    this.accepted = false;
    const call = this.client.Stream(md, (err) => this.ended(call, err));
    call.on('metadata', (res: grpc.Metadata) => this.up(call, res));
    this.call = call;
    this.acceptTimer = setTimeout(() => this.notAccepted(call), ACCEPT_TIMEOUT_MS);
  }

  /** Not accepted in time: a new channel for the next attempt (see the top), then end this one. */
  private notAccepted(call: grpc.ClientWritableStream<Envelope>): void {
    if (this.closed || call !== this.call || this.accepted) return;
    this.log.debug({ timeoutMs: ACCEPT_TIMEOUT_MS }, 'peer stream not accepted in time; dialing again on a new channel');
    const old = this.client;
    this.client = this.newClient();
    call.cancel(); // → ended(): peer down, the next attempt after the backoff
    old.close();
  }

  private up(call: grpc.ClientWritableStream<Envelope>, res: grpc.Metadata): void {
    if (call !== this.call) return;
    clearTimeout(this.acceptTimer);
    this.accepted = true;
    this.opts.onAddresses(statedIn(res));
    this.delayMs = this.opts.backoff.initialMs;
    if (this.reported !== 'up') this.log.info('peer up');
    this.reported = 'up';
  }

  private ended(call: grpc.ClientWritableStream<Envelope>, err: grpc.ServiceError | null): void {
    if (this.closed || call !== this.call) return;
    clearTimeout(this.acceptTimer);
    this.call = undefined;
    if (err?.metadata?.get(REMOVED_TRAILER)[0] !== undefined) {
      this.log.error({ details: err.details }, 'the peer says this node was removed from the cluster');
      this.opts.onRemoved?.();
    }
    if (this.reported !== 'down') {
      this.log.warn({ code: err ? grpc.status[err.code] : 'OK', details: err?.details }, 'peer down');
      this.reported = 'down';
      this.opts.onDown();
    }
    this.retryTimer = setTimeout(() => this.open(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.opts.backoff.maxMs);
  }
}
