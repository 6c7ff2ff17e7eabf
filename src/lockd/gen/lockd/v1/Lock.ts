// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AcquireRequest as _lockd_v1_AcquireRequest, AcquireRequest__Output as _lockd_v1_AcquireRequest__Output } from '../../lockd/v1/AcquireRequest.js';
import type { AcquireResponse as _lockd_v1_AcquireResponse, AcquireResponse__Output as _lockd_v1_AcquireResponse__Output } from '../../lockd/v1/AcquireResponse.js';
import type { InspectRequest as _lockd_v1_InspectRequest, InspectRequest__Output as _lockd_v1_InspectRequest__Output } from '../../lockd/v1/InspectRequest.js';
import type { InspectResponse as _lockd_v1_InspectResponse, InspectResponse__Output as _lockd_v1_InspectResponse__Output } from '../../lockd/v1/InspectResponse.js';
import type { LockEvent as _lockd_v1_LockEvent, LockEvent__Output as _lockd_v1_LockEvent__Output } from '../../lockd/v1/LockEvent.js';
import type { ObserveRequest as _lockd_v1_ObserveRequest, ObserveRequest__Output as _lockd_v1_ObserveRequest__Output } from '../../lockd/v1/ObserveRequest.js';
import type { ReleaseRequest as _lockd_v1_ReleaseRequest, ReleaseRequest__Output as _lockd_v1_ReleaseRequest__Output } from '../../lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse as _lockd_v1_ReleaseResponse, ReleaseResponse__Output as _lockd_v1_ReleaseResponse__Output } from '../../lockd/v1/ReleaseResponse.js';

/**
 * Named mutual-exclusion locks with fencing tokens.
 */
export interface LockClient extends grpc.Client {
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting).
   */
  Acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting).
   */
  acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Read a lock's holder, token and queue (a linearizable read).
   */
  Inspect(argument: _lockd_v1_InspectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  Inspect(argument: _lockd_v1_InspectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  Inspect(argument: _lockd_v1_InspectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  Inspect(argument: _lockd_v1_InspectRequest, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Read a lock's holder, token and queue (a linearizable read).
   */
  inspect(argument: _lockd_v1_InspectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  inspect(argument: _lockd_v1_InspectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  inspect(argument: _lockd_v1_InspectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  inspect(argument: _lockd_v1_InspectRequest, callback: grpc.requestCallback<_lockd_v1_InspectResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Stream a lock's changes from now on, one event per change, in log order.
   */
  Observe(argument: _lockd_v1_ObserveRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  Observe(argument: _lockd_v1_ObserveRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  /**
   * Stream a lock's changes from now on, one event per change, in log order.
   */
  observe(argument: _lockd_v1_ObserveRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  observe(argument: _lockd_v1_ObserveRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  
  /**
   * Release a lock; only the holder's current fencing token releases it.
   */
  Release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Release a lock; only the holder's current fencing token releases it.
   */
  release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Named mutual-exclusion locks with fencing tokens.
 */
export interface LockHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting).
   */
  Acquire: grpc.handleUnaryCall<_lockd_v1_AcquireRequest__Output, _lockd_v1_AcquireResponse>;
  
  /**
   * Read a lock's holder, token and queue (a linearizable read).
   */
  Inspect: grpc.handleUnaryCall<_lockd_v1_InspectRequest__Output, _lockd_v1_InspectResponse>;
  
  /**
   * Stream a lock's changes from now on, one event per change, in log order.
   */
  Observe: grpc.handleServerStreamingCall<_lockd_v1_ObserveRequest__Output, _lockd_v1_LockEvent>;
  
  /**
   * Release a lock; only the holder's current fencing token releases it.
   */
  Release: grpc.handleUnaryCall<_lockd_v1_ReleaseRequest__Output, _lockd_v1_ReleaseResponse>;
  
}

export interface LockDefinition extends grpc.ServiceDefinition {
  Acquire: MethodDefinition<_lockd_v1_AcquireRequest, _lockd_v1_AcquireResponse, _lockd_v1_AcquireRequest__Output, _lockd_v1_AcquireResponse__Output>
  Inspect: MethodDefinition<_lockd_v1_InspectRequest, _lockd_v1_InspectResponse, _lockd_v1_InspectRequest__Output, _lockd_v1_InspectResponse__Output>
  Observe: MethodDefinition<_lockd_v1_ObserveRequest, _lockd_v1_LockEvent, _lockd_v1_ObserveRequest__Output, _lockd_v1_LockEvent__Output>
  Release: MethodDefinition<_lockd_v1_ReleaseRequest, _lockd_v1_ReleaseResponse, _lockd_v1_ReleaseRequest__Output, _lockd_v1_ReleaseResponse__Output>
}
