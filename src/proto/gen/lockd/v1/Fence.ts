// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { FenceReadRequest as _lockd_v1_FenceReadRequest, FenceReadRequest__Output as _lockd_v1_FenceReadRequest__Output } from '../../lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse as _lockd_v1_FenceReadResponse, FenceReadResponse__Output as _lockd_v1_FenceReadResponse__Output } from '../../lockd/v1/FenceReadResponse.js';
import type { FenceWriteRequest as _lockd_v1_FenceWriteRequest, FenceWriteRequest__Output as _lockd_v1_FenceWriteRequest__Output } from '../../lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse as _lockd_v1_FenceWriteResponse, FenceWriteResponse__Output as _lockd_v1_FenceWriteResponse__Output } from '../../lockd/v1/FenceWriteResponse.js';

/**
 * A store that refuses writes carrying a stale fencing token: the safe side of a lock.
 */
export interface FenceClient extends grpc.Client {
  /**
   * Read a key's value and the token that wrote it (a linearizable read). A key never written is
   * not an error: empty value and fencing_token 0.
   */
  Read(argument: _lockd_v1_FenceReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _lockd_v1_FenceReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _lockd_v1_FenceReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _lockd_v1_FenceReadRequest, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Read a key's value and the token that wrote it (a linearizable read). A key never written is
   * not an error: empty value and fencing_token 0.
   */
  read(argument: _lockd_v1_FenceReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _lockd_v1_FenceReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _lockd_v1_FenceReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _lockd_v1_FenceReadRequest, callback: grpc.requestCallback<_lockd_v1_FenceReadResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Write a value under a key with a fencing token. A token lower than the highest accepted for
   * this key: FAILED_PRECONDITION, and the stored value is unchanged.
   */
  Write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Write a value under a key with a fencing token. A token lower than the highest accepted for
   * this key: FAILED_PRECONDITION, and the stored value is unchanged.
   */
  write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * A store that refuses writes carrying a stale fencing token: the safe side of a lock.
 */
export interface FenceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Read a key's value and the token that wrote it (a linearizable read). A key never written is
   * not an error: empty value and fencing_token 0.
   */
  Read: grpc.handleUnaryCall<_lockd_v1_FenceReadRequest__Output, _lockd_v1_FenceReadResponse>;
  
  /**
   * Write a value under a key with a fencing token. A token lower than the highest accepted for
   * this key: FAILED_PRECONDITION, and the stored value is unchanged.
   */
  Write: grpc.handleUnaryCall<_lockd_v1_FenceWriteRequest__Output, _lockd_v1_FenceWriteResponse>;
  
}

export interface FenceDefinition extends grpc.ServiceDefinition {
  Read: MethodDefinition<_lockd_v1_FenceReadRequest, _lockd_v1_FenceReadResponse, _lockd_v1_FenceReadRequest__Output, _lockd_v1_FenceReadResponse__Output>
  Write: MethodDefinition<_lockd_v1_FenceWriteRequest, _lockd_v1_FenceWriteResponse, _lockd_v1_FenceWriteRequest__Output, _lockd_v1_FenceWriteResponse__Output>
}
