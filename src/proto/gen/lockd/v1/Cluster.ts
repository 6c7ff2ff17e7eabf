// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { StatusRequest as _lockd_v1_StatusRequest, StatusRequest__Output as _lockd_v1_StatusRequest__Output } from '../../lockd/v1/StatusRequest.js';
import type { StatusResponse as _lockd_v1_StatusResponse, StatusResponse__Output as _lockd_v1_StatusResponse__Output } from '../../lockd/v1/StatusResponse.js';
import type { TransferLeaderRequest as _lockd_v1_TransferLeaderRequest, TransferLeaderRequest__Output as _lockd_v1_TransferLeaderRequest__Output } from '../../lockd/v1/TransferLeaderRequest.js';
import type { TransferLeaderResponse as _lockd_v1_TransferLeaderResponse, TransferLeaderResponse__Output as _lockd_v1_TransferLeaderResponse__Output } from '../../lockd/v1/TransferLeaderResponse.js';

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
  
  /**
   * Hand leadership to another voter now, without waiting for an election timeout (Raft thesis
   * §3.10: the leader brings the target's log up to date, then tells it to campaign at once). Any
   * node may be asked: a follower forwards the call to the leader. The leader stops accepting writes
   * while the transfer runs (they fail UNAVAILABLE and are retried by clients); leases are not
   * shortened: the lease clock does not advance while no leader serves (see Lease).
   * Answers once this node knows a leader other than the one the call found (normally within a few
   * heartbeats), with that leader — usually the target; another voter may win an election that
   * raced the transfer. Rules:
   * - target_id "" picks the voter (other than the leader) with the highest replicated index,
   * preferring those the leader heard from within the last election timeout;
   * - a target_id that is no member: NOT_FOUND; a learner (it cannot lead): FAILED_PRECONDITION;
   * one that is not a valid id (1-64 letters, digits, '.', '_', '-'): INVALID_ARGUMENT; the
   * leader itself: OK at once, nothing changes (leader_id is the leader, transferred = false);
   * - no other voter to hand to (a one-node cluster): FAILED_PRECONDITION;
   * - the transfer did not finish within the server's bound (one election timeout for the core to
   * abandon it, plus a margin; the target down or far behind): UNAVAILABLE, naming the leader,
   * which stays leader and serves again; the client's deadline running out first:
   * DEADLINE_EXCEEDED (the transfer may still complete);
   * - on nodes that verify client certificates only an admin may call it, like Membership
   * (PERMISSION_DENIED, checked before target_id is looked up).
   */
  TransferLeader(argument: _lockd_v1_TransferLeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  TransferLeader(argument: _lockd_v1_TransferLeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  TransferLeader(argument: _lockd_v1_TransferLeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  TransferLeader(argument: _lockd_v1_TransferLeaderRequest, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Hand leadership to another voter now, without waiting for an election timeout (Raft thesis
   * §3.10: the leader brings the target's log up to date, then tells it to campaign at once). Any
   * node may be asked: a follower forwards the call to the leader. The leader stops accepting writes
   * while the transfer runs (they fail UNAVAILABLE and are retried by clients); leases are not
   * shortened: the lease clock does not advance while no leader serves (see Lease).
   * Answers once this node knows a leader other than the one the call found (normally within a few
   * heartbeats), with that leader — usually the target; another voter may win an election that
   * raced the transfer. Rules:
   * - target_id "" picks the voter (other than the leader) with the highest replicated index,
   * preferring those the leader heard from within the last election timeout;
   * - a target_id that is no member: NOT_FOUND; a learner (it cannot lead): FAILED_PRECONDITION;
   * one that is not a valid id (1-64 letters, digits, '.', '_', '-'): INVALID_ARGUMENT; the
   * leader itself: OK at once, nothing changes (leader_id is the leader, transferred = false);
   * - no other voter to hand to (a one-node cluster): FAILED_PRECONDITION;
   * - the transfer did not finish within the server's bound (one election timeout for the core to
   * abandon it, plus a margin; the target down or far behind): UNAVAILABLE, naming the leader,
   * which stays leader and serves again; the client's deadline running out first:
   * DEADLINE_EXCEEDED (the transfer may still complete);
   * - on nodes that verify client certificates only an admin may call it, like Membership
   * (PERMISSION_DENIED, checked before target_id is looked up).
   */
  transferLeader(argument: _lockd_v1_TransferLeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  transferLeader(argument: _lockd_v1_TransferLeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  transferLeader(argument: _lockd_v1_TransferLeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  transferLeader(argument: _lockd_v1_TransferLeaderRequest, callback: grpc.requestCallback<_lockd_v1_TransferLeaderResponse__Output>): grpc.ClientUnaryCall;
  
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
  
  /**
   * Hand leadership to another voter now, without waiting for an election timeout (Raft thesis
   * §3.10: the leader brings the target's log up to date, then tells it to campaign at once). Any
   * node may be asked: a follower forwards the call to the leader. The leader stops accepting writes
   * while the transfer runs (they fail UNAVAILABLE and are retried by clients); leases are not
   * shortened: the lease clock does not advance while no leader serves (see Lease).
   * Answers once this node knows a leader other than the one the call found (normally within a few
   * heartbeats), with that leader — usually the target; another voter may win an election that
   * raced the transfer. Rules:
   * - target_id "" picks the voter (other than the leader) with the highest replicated index,
   * preferring those the leader heard from within the last election timeout;
   * - a target_id that is no member: NOT_FOUND; a learner (it cannot lead): FAILED_PRECONDITION;
   * one that is not a valid id (1-64 letters, digits, '.', '_', '-'): INVALID_ARGUMENT; the
   * leader itself: OK at once, nothing changes (leader_id is the leader, transferred = false);
   * - no other voter to hand to (a one-node cluster): FAILED_PRECONDITION;
   * - the transfer did not finish within the server's bound (one election timeout for the core to
   * abandon it, plus a margin; the target down or far behind): UNAVAILABLE, naming the leader,
   * which stays leader and serves again; the client's deadline running out first:
   * DEADLINE_EXCEEDED (the transfer may still complete);
   * - on nodes that verify client certificates only an admin may call it, like Membership
   * (PERMISSION_DENIED, checked before target_id is looked up).
   */
  TransferLeader: grpc.handleUnaryCall<_lockd_v1_TransferLeaderRequest__Output, _lockd_v1_TransferLeaderResponse>;
  
}

export interface ClusterDefinition extends grpc.ServiceDefinition {
  Status: MethodDefinition<_lockd_v1_StatusRequest, _lockd_v1_StatusResponse, _lockd_v1_StatusRequest__Output, _lockd_v1_StatusResponse__Output>
  TransferLeader: MethodDefinition<_lockd_v1_TransferLeaderRequest, _lockd_v1_TransferLeaderResponse, _lockd_v1_TransferLeaderRequest__Output, _lockd_v1_TransferLeaderResponse__Output>
}
