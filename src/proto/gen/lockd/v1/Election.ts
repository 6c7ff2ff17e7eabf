// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CampaignRequest as _lockd_v1_CampaignRequest, CampaignRequest__Output as _lockd_v1_CampaignRequest__Output } from '../../lockd/v1/CampaignRequest.js';
import type { CampaignResponse as _lockd_v1_CampaignResponse, CampaignResponse__Output as _lockd_v1_CampaignResponse__Output } from '../../lockd/v1/CampaignResponse.js';
import type { LeaderRequest as _lockd_v1_LeaderRequest, LeaderRequest__Output as _lockd_v1_LeaderRequest__Output } from '../../lockd/v1/LeaderRequest.js';
import type { LeaderResponse as _lockd_v1_LeaderResponse, LeaderResponse__Output as _lockd_v1_LeaderResponse__Output } from '../../lockd/v1/LeaderResponse.js';
import type { ProclaimRequest as _lockd_v1_ProclaimRequest, ProclaimRequest__Output as _lockd_v1_ProclaimRequest__Output } from '../../lockd/v1/ProclaimRequest.js';
import type { ProclaimResponse as _lockd_v1_ProclaimResponse, ProclaimResponse__Output as _lockd_v1_ProclaimResponse__Output } from '../../lockd/v1/ProclaimResponse.js';
import type { ResignRequest as _lockd_v1_ResignRequest, ResignRequest__Output as _lockd_v1_ResignRequest__Output } from '../../lockd/v1/ResignRequest.js';
import type { ResignResponse as _lockd_v1_ResignResponse, ResignResponse__Output as _lockd_v1_ResignResponse__Output } from '../../lockd/v1/ResignResponse.js';

/**
 * Leader election (modelled on etcd's v3election), built on the Lock state: the leader of an
 * election is the holder of the lock of the same name (a mutex), its leadership key is that grant
 * (name, lease, fencing token) and its value is stored with the grant. So an election shares the
 * lock namespace (Lock.Inspect shows it), leadership is FIFO among campaigners, its token fences like
 * any lock's (Fence.Write with lock = name), and it ends with the lease: no phantom leader.
 */
export interface ElectionClient extends grpc.Client {
  /**
   * Wait until `lease_id` leads `name` (in FIFO order among campaigners), then answer its key. The
   * value is stored with the grant. Fails NOT_FOUND the moment the lease ends (expired, revoked)
   * while waiting, DEADLINE_EXCEEDED at the caller's deadline (the campaign leaves the queue), and as
   * Lock.Acquire otherwise (request_id: a retry waits at its place or answers the same leadership;
   * one whose leadership has ended since is ABORTED). A lease that already leads is answered its
   * leadership (its value unchanged: Proclaim changes it). After a snapshot install a waiting
   * campaign is settled as a waiting Acquire is (see Lock.Acquire).
   */
  Campaign(argument: _lockd_v1_CampaignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _lockd_v1_CampaignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _lockd_v1_CampaignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  Campaign(argument: _lockd_v1_CampaignRequest, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Wait until `lease_id` leads `name` (in FIFO order among campaigners), then answer its key. The
   * value is stored with the grant. Fails NOT_FOUND the moment the lease ends (expired, revoked)
   * while waiting, DEADLINE_EXCEEDED at the caller's deadline (the campaign leaves the queue), and as
   * Lock.Acquire otherwise (request_id: a retry waits at its place or answers the same leadership;
   * one whose leadership has ended since is ABORTED). A lease that already leads is answered its
   * leadership (its value unchanged: Proclaim changes it). After a snapshot install a waiting
   * campaign is settled as a waiting Acquire is (see Lock.Acquire).
   */
  campaign(argument: _lockd_v1_CampaignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _lockd_v1_CampaignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _lockd_v1_CampaignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  campaign(argument: _lockd_v1_CampaignRequest, callback: grpc.requestCallback<_lockd_v1_CampaignResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The current leader and its value (a linearizable read); NOT_FOUND when nobody leads (a lock made
   * by Lock.Acquire has no leader). An election has one leader at most: see Lock.Acquire.
   */
  Leader(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _lockd_v1_LeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  Leader(argument: _lockd_v1_LeaderRequest, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The current leader and its value (a linearizable read); NOT_FOUND when nobody leads (a lock made
   * by Lock.Acquire has no leader). An election has one leader at most: see Lock.Acquire.
   */
  leader(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _lockd_v1_LeaderRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  leader(argument: _lockd_v1_LeaderRequest, callback: grpc.requestCallback<_lockd_v1_LeaderResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Stream the leadership of `name` from the node called: the current leader first (if any), then
   * every change (a new leader, a Proclaim, none = `has_leader` false), in log order. Bounded like
   * Lock.Observe (a slow reader is ended with RESOURCE_EXHAUSTED). A node that catches up by
   * snapshot sends the leadership the snapshot holds if it differs from the last one sent (changes
   * the snapshot covers in between are not told one by one: each message is the whole state).
   */
  Observe(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LeaderResponse__Output>;
  Observe(argument: _lockd_v1_LeaderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LeaderResponse__Output>;
  /**
   * Stream the leadership of `name` from the node called: the current leader first (if any), then
   * every change (a new leader, a Proclaim, none = `has_leader` false), in log order. Bounded like
   * Lock.Observe (a slow reader is ended with RESOURCE_EXHAUSTED). A node that catches up by
   * snapshot sends the leadership the snapshot holds if it differs from the last one sent (changes
   * the snapshot covers in between are not told one by one: each message is the whole state).
   */
  observe(argument: _lockd_v1_LeaderRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LeaderResponse__Output>;
  observe(argument: _lockd_v1_LeaderRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LeaderResponse__Output>;
  
  /**
   * Set the leader's value. FAILED_PRECONDITION unless `leader` is the current leadership (the
   * message names the leader's token, or says nobody leads, or that the name is a lock, not an election).
   */
  Proclaim(argument: _lockd_v1_ProclaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _lockd_v1_ProclaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _lockd_v1_ProclaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  Proclaim(argument: _lockd_v1_ProclaimRequest, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Set the leader's value. FAILED_PRECONDITION unless `leader` is the current leadership (the
   * message names the leader's token, or says nobody leads, or that the name is a lock, not an election).
   */
  proclaim(argument: _lockd_v1_ProclaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _lockd_v1_ProclaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _lockd_v1_ProclaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  proclaim(argument: _lockd_v1_ProclaimRequest, callback: grpc.requestCallback<_lockd_v1_ProclaimResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Give up the leadership (Lock.Release of its grant): the next campaigner leads. A key that is not
   * the current leadership answers OK and changes nothing (etcd's Resign does the same).
   */
  Resign(argument: _lockd_v1_ResignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _lockd_v1_ResignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _lockd_v1_ResignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  Resign(argument: _lockd_v1_ResignRequest, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Give up the leadership (Lock.Release of its grant): the next campaigner leads. A key that is not
   * the current leadership answers OK and changes nothing (etcd's Resign does the same).
   */
  resign(argument: _lockd_v1_ResignRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _lockd_v1_ResignRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _lockd_v1_ResignRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  resign(argument: _lockd_v1_ResignRequest, callback: grpc.requestCallback<_lockd_v1_ResignResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Leader election (modelled on etcd's v3election), built on the Lock state: the leader of an
 * election is the holder of the lock of the same name (a mutex), its leadership key is that grant
 * (name, lease, fencing token) and its value is stored with the grant. So an election shares the
 * lock namespace (Lock.Inspect shows it), leadership is FIFO among campaigners, its token fences like
 * any lock's (Fence.Write with lock = name), and it ends with the lease: no phantom leader.
 */
export interface ElectionHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Wait until `lease_id` leads `name` (in FIFO order among campaigners), then answer its key. The
   * value is stored with the grant. Fails NOT_FOUND the moment the lease ends (expired, revoked)
   * while waiting, DEADLINE_EXCEEDED at the caller's deadline (the campaign leaves the queue), and as
   * Lock.Acquire otherwise (request_id: a retry waits at its place or answers the same leadership;
   * one whose leadership has ended since is ABORTED). A lease that already leads is answered its
   * leadership (its value unchanged: Proclaim changes it). After a snapshot install a waiting
   * campaign is settled as a waiting Acquire is (see Lock.Acquire).
   */
  Campaign: grpc.handleUnaryCall<_lockd_v1_CampaignRequest__Output, _lockd_v1_CampaignResponse>;
  
  /**
   * The current leader and its value (a linearizable read); NOT_FOUND when nobody leads (a lock made
   * by Lock.Acquire has no leader). An election has one leader at most: see Lock.Acquire.
   */
  Leader: grpc.handleUnaryCall<_lockd_v1_LeaderRequest__Output, _lockd_v1_LeaderResponse>;
  
  /**
   * Stream the leadership of `name` from the node called: the current leader first (if any), then
   * every change (a new leader, a Proclaim, none = `has_leader` false), in log order. Bounded like
   * Lock.Observe (a slow reader is ended with RESOURCE_EXHAUSTED). A node that catches up by
   * snapshot sends the leadership the snapshot holds if it differs from the last one sent (changes
   * the snapshot covers in between are not told one by one: each message is the whole state).
   */
  Observe: grpc.handleServerStreamingCall<_lockd_v1_LeaderRequest__Output, _lockd_v1_LeaderResponse>;
  
  /**
   * Set the leader's value. FAILED_PRECONDITION unless `leader` is the current leadership (the
   * message names the leader's token, or says nobody leads, or that the name is a lock, not an election).
   */
  Proclaim: grpc.handleUnaryCall<_lockd_v1_ProclaimRequest__Output, _lockd_v1_ProclaimResponse>;
  
  /**
   * Give up the leadership (Lock.Release of its grant): the next campaigner leads. A key that is not
   * the current leadership answers OK and changes nothing (etcd's Resign does the same).
   */
  Resign: grpc.handleUnaryCall<_lockd_v1_ResignRequest__Output, _lockd_v1_ResignResponse>;
  
}

export interface ElectionDefinition extends grpc.ServiceDefinition {
  Campaign: MethodDefinition<_lockd_v1_CampaignRequest, _lockd_v1_CampaignResponse, _lockd_v1_CampaignRequest__Output, _lockd_v1_CampaignResponse__Output>
  Leader: MethodDefinition<_lockd_v1_LeaderRequest, _lockd_v1_LeaderResponse, _lockd_v1_LeaderRequest__Output, _lockd_v1_LeaderResponse__Output>
  Observe: MethodDefinition<_lockd_v1_LeaderRequest, _lockd_v1_LeaderResponse, _lockd_v1_LeaderRequest__Output, _lockd_v1_LeaderResponse__Output>
  Proclaim: MethodDefinition<_lockd_v1_ProclaimRequest, _lockd_v1_ProclaimResponse, _lockd_v1_ProclaimRequest__Output, _lockd_v1_ProclaimResponse__Output>
  Resign: MethodDefinition<_lockd_v1_ResignRequest, _lockd_v1_ResignResponse, _lockd_v1_ResignRequest__Output, _lockd_v1_ResignResponse__Output>
}
