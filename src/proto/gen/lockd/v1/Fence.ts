// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { FenceDeleteRequest as _lockd_v1_FenceDeleteRequest, FenceDeleteRequest__Output as _lockd_v1_FenceDeleteRequest__Output } from '../../lockd/v1/FenceDeleteRequest.js';
import type { FenceDeleteResponse as _lockd_v1_FenceDeleteResponse, FenceDeleteResponse__Output as _lockd_v1_FenceDeleteResponse__Output } from '../../lockd/v1/FenceDeleteResponse.js';
import type { FenceReadRequest as _lockd_v1_FenceReadRequest, FenceReadRequest__Output as _lockd_v1_FenceReadRequest__Output } from '../../lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse as _lockd_v1_FenceReadResponse, FenceReadResponse__Output as _lockd_v1_FenceReadResponse__Output } from '../../lockd/v1/FenceReadResponse.js';
import type { FenceWriteRequest as _lockd_v1_FenceWriteRequest, FenceWriteRequest__Output as _lockd_v1_FenceWriteRequest__Output } from '../../lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse as _lockd_v1_FenceWriteResponse, FenceWriteResponse__Output as _lockd_v1_FenceWriteResponse__Output } from '../../lockd/v1/FenceWriteResponse.js';

/**
 * A store that refuses writes carrying a stale fencing token: the safe side of a lock.
 * 
 * Bounds (RESOURCE_EXHAUSTED, the message naming the limit; nothing changes):
 * - 1,024 keys in the store (all clients together);
 * - 64 keys created per lease: a write that creates a key is charged to the lease whose live grant
 * holds its fencing_token (a token names one grant of a lock; the lowest lease id when one
 * entry granted several locks under equal tokens); Fence.Delete gives the charge back. A write whose token belongs to
 * no live grant (a stale or made-up token) may create keys only from a shared pool of 64, so stale
 * writers cannot fill the store either. Tokens are not credentials: a client presenting another's
 * token spends that lease's quota (as it could overwrite its keys); with --client-cert-auth, a token serves only
 * its lease's principal or an admin.
 * One client with many leases can still fill the store: quotas are not per principal yet. Values are at most 64 KiB, keys at most 512 bytes (INVALID_ARGUMENT).
 */
export interface FenceClient extends grpc.Client {
  /**
   * Delete a key, fenced like a write: FAILED_PRECONDITION (nothing changes) when the token is lower
   * than the highest accepted for the key or, with `lock` set, not that lock's live holder's token.
   * The key's highest token is kept (a tombstone), so a stale writer cannot bring the key back.
   * Tombstones are bounded (4,096, oldest forgotten first); forgetting one raises a floor: from then
   * on a write without `lock` that creates a key needs a token at least that floor
   * (FAILED_PRECONDITION saying so). Deleting a key that holds no value answers deleted = false.
   * Two known levers, both avoided by writing with `lock` set (the recommended form):
   * - the tombstone FIFO is shared by all clients, so anyone who churns 4,096+ write/delete pairs
   * raises the floor to about the log's end, and every holder's key-CREATING write without `lock`
   * is refused until it holds a newer grant (writes with `lock` skip the floor);
   * - a write with `lock` skips the floor, so once a deleted key's tombstone is forgotten, the live
   * holder of ANOTHER lock with an older token may create that key again. Guard each key by one
   * lock and this cannot happen (the live holder of that lock has the newest token for it).
   * Per-principal tombstone quotas (not built yet) would take away the first.
   */
  Delete(argument: _lockd_v1_FenceDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  Delete(argument: _lockd_v1_FenceDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  Delete(argument: _lockd_v1_FenceDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  Delete(argument: _lockd_v1_FenceDeleteRequest, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Delete a key, fenced like a write: FAILED_PRECONDITION (nothing changes) when the token is lower
   * than the highest accepted for the key or, with `lock` set, not that lock's live holder's token.
   * The key's highest token is kept (a tombstone), so a stale writer cannot bring the key back.
   * Tombstones are bounded (4,096, oldest forgotten first); forgetting one raises a floor: from then
   * on a write without `lock` that creates a key needs a token at least that floor
   * (FAILED_PRECONDITION saying so). Deleting a key that holds no value answers deleted = false.
   * Two known levers, both avoided by writing with `lock` set (the recommended form):
   * - the tombstone FIFO is shared by all clients, so anyone who churns 4,096+ write/delete pairs
   * raises the floor to about the log's end, and every holder's key-CREATING write without `lock`
   * is refused until it holds a newer grant (writes with `lock` skip the floor);
   * - a write with `lock` skips the floor, so once a deleted key's tombstone is forgotten, the live
   * holder of ANOTHER lock with an older token may create that key again. Guard each key by one
   * lock and this cannot happen (the live holder of that lock has the newest token for it).
   * Per-principal tombstone quotas (not built yet) would take away the first.
   */
  delete(argument: _lockd_v1_FenceDeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  delete(argument: _lockd_v1_FenceDeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  delete(argument: _lockd_v1_FenceDeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  delete(argument: _lockd_v1_FenceDeleteRequest, callback: grpc.requestCallback<_lockd_v1_FenceDeleteResponse__Output>): grpc.ClientUnaryCall;
  
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
   * this key (also by a Delete): FAILED_PRECONDITION, and the stored value is unchanged. With `lock`
   * set, the token must also be the live holder's token of that lock (see FenceWriteRequest.lock).
   */
  Write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  Write(argument: _lockd_v1_FenceWriteRequest, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Write a value under a key with a fencing token. A token lower than the highest accepted for
   * this key (also by a Delete): FAILED_PRECONDITION, and the stored value is unchanged. With `lock`
   * set, the token must also be the live holder's token of that lock (see FenceWriteRequest.lock).
   */
  write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  write(argument: _lockd_v1_FenceWriteRequest, callback: grpc.requestCallback<_lockd_v1_FenceWriteResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * A store that refuses writes carrying a stale fencing token: the safe side of a lock.
 * 
 * Bounds (RESOURCE_EXHAUSTED, the message naming the limit; nothing changes):
 * - 1,024 keys in the store (all clients together);
 * - 64 keys created per lease: a write that creates a key is charged to the lease whose live grant
 * holds its fencing_token (a token names one grant of a lock; the lowest lease id when one
 * entry granted several locks under equal tokens); Fence.Delete gives the charge back. A write whose token belongs to
 * no live grant (a stale or made-up token) may create keys only from a shared pool of 64, so stale
 * writers cannot fill the store either. Tokens are not credentials: a client presenting another's
 * token spends that lease's quota (as it could overwrite its keys); with --client-cert-auth, a token serves only
 * its lease's principal or an admin.
 * One client with many leases can still fill the store: quotas are not per principal yet. Values are at most 64 KiB, keys at most 512 bytes (INVALID_ARGUMENT).
 */
export interface FenceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Delete a key, fenced like a write: FAILED_PRECONDITION (nothing changes) when the token is lower
   * than the highest accepted for the key or, with `lock` set, not that lock's live holder's token.
   * The key's highest token is kept (a tombstone), so a stale writer cannot bring the key back.
   * Tombstones are bounded (4,096, oldest forgotten first); forgetting one raises a floor: from then
   * on a write without `lock` that creates a key needs a token at least that floor
   * (FAILED_PRECONDITION saying so). Deleting a key that holds no value answers deleted = false.
   * Two known levers, both avoided by writing with `lock` set (the recommended form):
   * - the tombstone FIFO is shared by all clients, so anyone who churns 4,096+ write/delete pairs
   * raises the floor to about the log's end, and every holder's key-CREATING write without `lock`
   * is refused until it holds a newer grant (writes with `lock` skip the floor);
   * - a write with `lock` skips the floor, so once a deleted key's tombstone is forgotten, the live
   * holder of ANOTHER lock with an older token may create that key again. Guard each key by one
   * lock and this cannot happen (the live holder of that lock has the newest token for it).
   * Per-principal tombstone quotas (not built yet) would take away the first.
   */
  Delete: grpc.handleUnaryCall<_lockd_v1_FenceDeleteRequest__Output, _lockd_v1_FenceDeleteResponse>;
  
  /**
   * Read a key's value and the token that wrote it (a linearizable read). A key never written is
   * not an error: empty value and fencing_token 0.
   */
  Read: grpc.handleUnaryCall<_lockd_v1_FenceReadRequest__Output, _lockd_v1_FenceReadResponse>;
  
  /**
   * Write a value under a key with a fencing token. A token lower than the highest accepted for
   * this key (also by a Delete): FAILED_PRECONDITION, and the stored value is unchanged. With `lock`
   * set, the token must also be the live holder's token of that lock (see FenceWriteRequest.lock).
   */
  Write: grpc.handleUnaryCall<_lockd_v1_FenceWriteRequest__Output, _lockd_v1_FenceWriteResponse>;
  
}

export interface FenceDefinition extends grpc.ServiceDefinition {
  Delete: MethodDefinition<_lockd_v1_FenceDeleteRequest, _lockd_v1_FenceDeleteResponse, _lockd_v1_FenceDeleteRequest__Output, _lockd_v1_FenceDeleteResponse__Output>
  Read: MethodDefinition<_lockd_v1_FenceReadRequest, _lockd_v1_FenceReadResponse, _lockd_v1_FenceReadRequest__Output, _lockd_v1_FenceReadResponse__Output>
  Write: MethodDefinition<_lockd_v1_FenceWriteRequest, _lockd_v1_FenceWriteResponse, _lockd_v1_FenceWriteRequest__Output, _lockd_v1_FenceWriteResponse__Output>
}
