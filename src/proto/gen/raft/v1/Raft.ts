// Original file: proto/raft.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Envelope as _raft_v1_Envelope, Envelope__Output as _raft_v1_Envelope__Output } from '../../raft/v1/Envelope.js';
import type { StreamSummary as _raft_v1_StreamSummary, StreamSummary__Output as _raft_v1_StreamSummary__Output } from '../../raft/v1/StreamSummary.js';

/**
 * Node-to-node Raft traffic.
 */
export interface RaftClient extends grpc.Client {
  /**
   * One stream per (sender, receiver) pair, open for as long as both nodes are up. The sender also
   * puts its cluster id and node id in the call metadata (lockd-cluster-id, lockd-node-id) so the
   * receiver can refuse a foreign stream at once; the receiver answers with response headers as
   * soon as it accepts the stream, and with StreamSummary when the sender ends it. A stream
   * refused for a wrong cluster or node id ends with FAILED_PRECONDITION.
   * 
   * Each side states its client address (what clients may dial, host:port, at most 300 bytes) in
   * the lockd-client-address header: the sender in the call metadata, the receiver in its response
   * headers. A malformed one ends the stream with INVALID_ARGUMENT.
   * 
   * Each side also states its build line in the lockd-version header (lockd 0.2.0 and newer):
   * "lockd/VERSION storage=N snapshot=N command=N frame=N backup=N", the formats it reads and writes
   * (src/lockd/node/versions.ts). It is how every node knows each member's version, and the cluster
   * version (the lowest among the members) that gates new entry fields (node/cluster-version.ts).
   * A lockd before 0.2.0 states none and ignores it; it never ends a stream.
   * 
   * This service is served on the PEER port only (--peer-listen). With TLS, the caller's
   * certificate must carry the SAN DNS:<lockd-node-id>.peer.lockd, or the stream ends with
   * UNAUTHENTICATED; the caller in turn accepts the server only if its certificate names the id
   * it dialed. The peer port also serves follower-to-leader forwarding: lockd.v1's Lease, Lock and
   * Fence methods renamed lockd.forwarded.v1.* (same messages), from members only (headers
   * lockd-forwarded = the member's id and lockd-cluster-id; with TLS, the same certificate rule).
   */
  Stream(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  Stream(metadata: grpc.Metadata, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  Stream(options: grpc.CallOptions, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  Stream(callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  /**
   * One stream per (sender, receiver) pair, open for as long as both nodes are up. The sender also
   * puts its cluster id and node id in the call metadata (lockd-cluster-id, lockd-node-id) so the
   * receiver can refuse a foreign stream at once; the receiver answers with response headers as
   * soon as it accepts the stream, and with StreamSummary when the sender ends it. A stream
   * refused for a wrong cluster or node id ends with FAILED_PRECONDITION.
   * 
   * Each side states its client address (what clients may dial, host:port, at most 300 bytes) in
   * the lockd-client-address header: the sender in the call metadata, the receiver in its response
   * headers. A malformed one ends the stream with INVALID_ARGUMENT.
   * 
   * Each side also states its build line in the lockd-version header (lockd 0.2.0 and newer):
   * "lockd/VERSION storage=N snapshot=N command=N frame=N backup=N", the formats it reads and writes
   * (src/lockd/node/versions.ts). It is how every node knows each member's version, and the cluster
   * version (the lowest among the members) that gates new entry fields (node/cluster-version.ts).
   * A lockd before 0.2.0 states none and ignores it; it never ends a stream.
   * 
   * This service is served on the PEER port only (--peer-listen). With TLS, the caller's
   * certificate must carry the SAN DNS:<lockd-node-id>.peer.lockd, or the stream ends with
   * UNAUTHENTICATED; the caller in turn accepts the server only if its certificate names the id
   * it dialed. The peer port also serves follower-to-leader forwarding: lockd.v1's Lease, Lock and
   * Fence methods renamed lockd.forwarded.v1.* (same messages), from members only (headers
   * lockd-forwarded = the member's id and lockd-cluster-id; with TLS, the same certificate rule).
   */
  stream(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  stream(metadata: grpc.Metadata, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  stream(options: grpc.CallOptions, callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  stream(callback: grpc.requestCallback<_raft_v1_StreamSummary__Output>): grpc.ClientWritableStream<_raft_v1_Envelope>;
  
}

/**
 * Node-to-node Raft traffic.
 */
export interface RaftHandlers extends grpc.UntypedServiceImplementation {
  /**
   * One stream per (sender, receiver) pair, open for as long as both nodes are up. The sender also
   * puts its cluster id and node id in the call metadata (lockd-cluster-id, lockd-node-id) so the
   * receiver can refuse a foreign stream at once; the receiver answers with response headers as
   * soon as it accepts the stream, and with StreamSummary when the sender ends it. A stream
   * refused for a wrong cluster or node id ends with FAILED_PRECONDITION.
   * 
   * Each side states its client address (what clients may dial, host:port, at most 300 bytes) in
   * the lockd-client-address header: the sender in the call metadata, the receiver in its response
   * headers. A malformed one ends the stream with INVALID_ARGUMENT.
   * 
   * Each side also states its build line in the lockd-version header (lockd 0.2.0 and newer):
   * "lockd/VERSION storage=N snapshot=N command=N frame=N backup=N", the formats it reads and writes
   * (src/lockd/node/versions.ts). It is how every node knows each member's version, and the cluster
   * version (the lowest among the members) that gates new entry fields (node/cluster-version.ts).
   * A lockd before 0.2.0 states none and ignores it; it never ends a stream.
   * 
   * This service is served on the PEER port only (--peer-listen). With TLS, the caller's
   * certificate must carry the SAN DNS:<lockd-node-id>.peer.lockd, or the stream ends with
   * UNAUTHENTICATED; the caller in turn accepts the server only if its certificate names the id
   * it dialed. The peer port also serves follower-to-leader forwarding: lockd.v1's Lease, Lock and
   * Fence methods renamed lockd.forwarded.v1.* (same messages), from members only (headers
   * lockd-forwarded = the member's id and lockd-cluster-id; with TLS, the same certificate rule).
   */
  Stream: grpc.handleClientStreamingCall<_raft_v1_Envelope__Output, _raft_v1_StreamSummary>;
  
}

export interface RaftDefinition extends grpc.ServiceDefinition {
  Stream: MethodDefinition<_raft_v1_Envelope, _raft_v1_StreamSummary, _raft_v1_Envelope__Output, _raft_v1_StreamSummary__Output>
}
