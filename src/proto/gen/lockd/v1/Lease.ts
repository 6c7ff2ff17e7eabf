// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LeaseGrantRequest as _lockd_v1_LeaseGrantRequest, LeaseGrantRequest__Output as _lockd_v1_LeaseGrantRequest__Output } from '../../lockd/v1/LeaseGrantRequest.js';
import type { LeaseGrantResponse as _lockd_v1_LeaseGrantResponse, LeaseGrantResponse__Output as _lockd_v1_LeaseGrantResponse__Output } from '../../lockd/v1/LeaseGrantResponse.js';
import type { LeaseKeepAliveRequest as _lockd_v1_LeaseKeepAliveRequest, LeaseKeepAliveRequest__Output as _lockd_v1_LeaseKeepAliveRequest__Output } from '../../lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse as _lockd_v1_LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output as _lockd_v1_LeaseKeepAliveResponse__Output } from '../../lockd/v1/LeaseKeepAliveResponse.js';
import type { LeaseListRequest as _lockd_v1_LeaseListRequest, LeaseListRequest__Output as _lockd_v1_LeaseListRequest__Output } from '../../lockd/v1/LeaseListRequest.js';
import type { LeaseListResponse as _lockd_v1_LeaseListResponse, LeaseListResponse__Output as _lockd_v1_LeaseListResponse__Output } from '../../lockd/v1/LeaseListResponse.js';
import type { LeaseRevokeRequest as _lockd_v1_LeaseRevokeRequest, LeaseRevokeRequest__Output as _lockd_v1_LeaseRevokeRequest__Output } from '../../lockd/v1/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse as _lockd_v1_LeaseRevokeResponse, LeaseRevokeResponse__Output as _lockd_v1_LeaseRevokeResponse__Output } from '../../lockd/v1/LeaseRevokeResponse.js';
import type { LeaseTimeToLiveRequest as _lockd_v1_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as _lockd_v1_LeaseTimeToLiveRequest__Output } from '../../lockd/v1/LeaseTimeToLiveRequest.js';
import type { LeaseTimeToLiveResponse as _lockd_v1_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as _lockd_v1_LeaseTimeToLiveResponse__Output } from '../../lockd/v1/LeaseTimeToLiveResponse.js';

/**
 * Leases: the liveness of a client. Locks are held on behalf of a lease and go when it expires.
 */
export interface LeaseClient extends grpc.Client {
  /**
   * Create a lease that expires ttl_ms after its last keepalive (on the cluster's logical clock).
   */
  Grant(argument: _lockd_v1_LeaseGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_LeaseGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_LeaseGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_LeaseGrantRequest, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Create a lease that expires ttl_ms after its last keepalive (on the cluster's logical clock).
   */
  grant(argument: _lockd_v1_LeaseGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_LeaseGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_LeaseGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_LeaseGrantRequest, callback: grpc.requestCallback<_lockd_v1_LeaseGrantResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Keep leases alive: each request renews one lease; each response reports its new TTL, or
   * ttl_ms = 0 when the lease is gone (the holder has lost its locks). Renewals are batched into the
   * leader's next clock tick and answered once it is committed; a lease the leader does not hold
   * (expired, revoked, never granted) is answered ttl_ms = 0 without a tick: at once when its id is
   * at or below the leader's applied log index (the committed log shows it gone), else after one
   * ReadIndex shows the node still leads (a deposed leader may lack what a newer one granted, and
   * says nothing until then: that answer needs a quorum). Renewals of
   * the same lease waiting for one tick share its answer, and a tick carries a bounded number of
   * leases (the rest ride in the next ticks), so a flood of keepalives cannot stall the clock.
   * A lease renewed on a stream is watched: if it expires or is revoked later, the stream gets an
   * unsolicited ttl_ms = 0 for it (also when a snapshot install shows it gone). lease_id 0 ends the stream with INVALID_ARGUMENT. While 1024
   * renewals of a stream await their tick, the stream is not read further (the client waits;
   * nothing is refused).
   */
  KeepAlive(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveResponse__Output>;
  KeepAlive(options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveResponse__Output>;
  /**
   * Keep leases alive: each request renews one lease; each response reports its new TTL, or
   * ttl_ms = 0 when the lease is gone (the holder has lost its locks). Renewals are batched into the
   * leader's next clock tick and answered once it is committed; a lease the leader does not hold
   * (expired, revoked, never granted) is answered ttl_ms = 0 without a tick: at once when its id is
   * at or below the leader's applied log index (the committed log shows it gone), else after one
   * ReadIndex shows the node still leads (a deposed leader may lack what a newer one granted, and
   * says nothing until then: that answer needs a quorum). Renewals of
   * the same lease waiting for one tick share its answer, and a tick carries a bounded number of
   * leases (the rest ride in the next ticks), so a flood of keepalives cannot stall the clock.
   * A lease renewed on a stream is watched: if it expires or is revoked later, the stream gets an
   * unsolicited ttl_ms = 0 for it (also when a snapshot install shows it gone). lease_id 0 ends the stream with INVALID_ARGUMENT. While 1024
   * renewals of a stream await their tick, the stream is not read further (the client waits;
   * nothing is refused).
   */
  keepAlive(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveResponse__Output>;
  keepAlive(options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveResponse__Output>;
  
  /**
   * List the live leases.
   */
  List(argument: _lockd_v1_LeaseListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_LeaseListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_LeaseListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_LeaseListRequest, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * List the live leases.
   */
  list(argument: _lockd_v1_LeaseListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_LeaseListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_LeaseListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_LeaseListRequest, callback: grpc.requestCallback<_lockd_v1_LeaseListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * End a lease now, releasing every lock it holds and every wait it has queued. An unknown or
   * already ended lease is NOT_FOUND — except for a retry (same request_id) of the Revoke that ended
   * it, which answers OK again.
   */
  Revoke(argument: _lockd_v1_LeaseRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_LeaseRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_LeaseRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_LeaseRevokeRequest, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * End a lease now, releasing every lock it holds and every wait it has queued. An unknown or
   * already ended lease is NOT_FOUND — except for a retry (same request_id) of the Revoke that ended
   * it, which answers OK again.
   */
  revoke(argument: _lockd_v1_LeaseRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_LeaseRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_LeaseRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_LeaseRevokeRequest, callback: grpc.requestCallback<_lockd_v1_LeaseRevokeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Read a lease's granted TTL, exact remaining time and held locks (a linearizable read).
   * NOT_FOUND when the lease has ended or never existed, and also (same code, same message) when it
   * is another principal's: the answer never tells a stranger whether an id is live.
   */
  TimeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  TimeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  TimeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  TimeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Read a lease's granted TTL, exact remaining time and held locks (a linearizable read).
   * NOT_FOUND when the lease has ended or never existed, and also (same code, same message) when it
   * is another principal's: the answer never tells a stranger whether an id is live.
   */
  timeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  timeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  timeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  timeToLive(argument: _lockd_v1_LeaseTimeToLiveRequest, callback: grpc.requestCallback<_lockd_v1_LeaseTimeToLiveResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Leases: the liveness of a client. Locks are held on behalf of a lease and go when it expires.
 */
export interface LeaseHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Create a lease that expires ttl_ms after its last keepalive (on the cluster's logical clock).
   */
  Grant: grpc.handleUnaryCall<_lockd_v1_LeaseGrantRequest__Output, _lockd_v1_LeaseGrantResponse>;
  
  /**
   * Keep leases alive: each request renews one lease; each response reports its new TTL, or
   * ttl_ms = 0 when the lease is gone (the holder has lost its locks). Renewals are batched into the
   * leader's next clock tick and answered once it is committed; a lease the leader does not hold
   * (expired, revoked, never granted) is answered ttl_ms = 0 without a tick: at once when its id is
   * at or below the leader's applied log index (the committed log shows it gone), else after one
   * ReadIndex shows the node still leads (a deposed leader may lack what a newer one granted, and
   * says nothing until then: that answer needs a quorum). Renewals of
   * the same lease waiting for one tick share its answer, and a tick carries a bounded number of
   * leases (the rest ride in the next ticks), so a flood of keepalives cannot stall the clock.
   * A lease renewed on a stream is watched: if it expires or is revoked later, the stream gets an
   * unsolicited ttl_ms = 0 for it (also when a snapshot install shows it gone). lease_id 0 ends the stream with INVALID_ARGUMENT. While 1024
   * renewals of a stream await their tick, the stream is not read further (the client waits;
   * nothing is refused).
   */
  KeepAlive: grpc.handleBidiStreamingCall<_lockd_v1_LeaseKeepAliveRequest__Output, _lockd_v1_LeaseKeepAliveResponse>;
  
  /**
   * List the live leases.
   */
  List: grpc.handleUnaryCall<_lockd_v1_LeaseListRequest__Output, _lockd_v1_LeaseListResponse>;
  
  /**
   * End a lease now, releasing every lock it holds and every wait it has queued. An unknown or
   * already ended lease is NOT_FOUND — except for a retry (same request_id) of the Revoke that ended
   * it, which answers OK again.
   */
  Revoke: grpc.handleUnaryCall<_lockd_v1_LeaseRevokeRequest__Output, _lockd_v1_LeaseRevokeResponse>;
  
  /**
   * Read a lease's granted TTL, exact remaining time and held locks (a linearizable read).
   * NOT_FOUND when the lease has ended or never existed, and also (same code, same message) when it
   * is another principal's: the answer never tells a stranger whether an id is live.
   */
  TimeToLive: grpc.handleUnaryCall<_lockd_v1_LeaseTimeToLiveRequest__Output, _lockd_v1_LeaseTimeToLiveResponse>;
  
}

export interface LeaseDefinition extends grpc.ServiceDefinition {
  Grant: MethodDefinition<_lockd_v1_LeaseGrantRequest, _lockd_v1_LeaseGrantResponse, _lockd_v1_LeaseGrantRequest__Output, _lockd_v1_LeaseGrantResponse__Output>
  KeepAlive: MethodDefinition<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveResponse, _lockd_v1_LeaseKeepAliveRequest__Output, _lockd_v1_LeaseKeepAliveResponse__Output>
  List: MethodDefinition<_lockd_v1_LeaseListRequest, _lockd_v1_LeaseListResponse, _lockd_v1_LeaseListRequest__Output, _lockd_v1_LeaseListResponse__Output>
  Revoke: MethodDefinition<_lockd_v1_LeaseRevokeRequest, _lockd_v1_LeaseRevokeResponse, _lockd_v1_LeaseRevokeRequest__Output, _lockd_v1_LeaseRevokeResponse__Output>
  TimeToLive: MethodDefinition<_lockd_v1_LeaseTimeToLiveRequest, _lockd_v1_LeaseTimeToLiveResponse, _lockd_v1_LeaseTimeToLiveRequest__Output, _lockd_v1_LeaseTimeToLiveResponse__Output>
}
