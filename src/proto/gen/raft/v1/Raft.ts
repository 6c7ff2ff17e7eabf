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
   */
  Stream: grpc.handleClientStreamingCall<_raft_v1_Envelope__Output, _raft_v1_StreamSummary>;
  
}

export interface RaftDefinition extends grpc.ServiceDefinition {
  Stream: MethodDefinition<_raft_v1_Envelope, _raft_v1_StreamSummary, _raft_v1_Envelope__Output, _raft_v1_StreamSummary__Output>
}
