// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { StatusRequest as _lockd_v1_StatusRequest, StatusRequest__Output as _lockd_v1_StatusRequest__Output } from '../../lockd/v1/StatusRequest.js';
import type { StatusResponse as _lockd_v1_StatusResponse, StatusResponse__Output as _lockd_v1_StatusResponse__Output } from '../../lockd/v1/StatusResponse.js';

/**
 * Cluster introspection.
 */
export interface ClusterClient extends grpc.Client {
  /**
   * This node's view of the cluster: its role, term, leader, indexes and (on the leader) members'
   * replication progress.
   */
  Status(argument: _lockd_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _lockd_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _lockd_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  Status(argument: _lockd_v1_StatusRequest, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  /**
   * This node's view of the cluster: its role, term, leader, indexes and (on the leader) members'
   * replication progress.
   */
  status(argument: _lockd_v1_StatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _lockd_v1_StatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _lockd_v1_StatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  status(argument: _lockd_v1_StatusRequest, callback: grpc.requestCallback<_lockd_v1_StatusResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Cluster introspection.
 */
export interface ClusterHandlers extends grpc.UntypedServiceImplementation {
  /**
   * This node's view of the cluster: its role, term, leader, indexes and (on the leader) members'
   * replication progress.
   */
  Status: grpc.handleUnaryCall<_lockd_v1_StatusRequest__Output, _lockd_v1_StatusResponse>;
  
}

export interface ClusterDefinition extends grpc.ServiceDefinition {
  Status: MethodDefinition<_lockd_v1_StatusRequest, _lockd_v1_StatusResponse, _lockd_v1_StatusRequest__Output, _lockd_v1_StatusResponse__Output>
}
