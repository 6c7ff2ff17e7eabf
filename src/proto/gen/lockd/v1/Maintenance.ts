// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { SnapshotChunk as _lockd_v1_SnapshotChunk, SnapshotChunk__Output as _lockd_v1_SnapshotChunk__Output } from '../../lockd/v1/SnapshotChunk.js';
import type { SnapshotRequest as _lockd_v1_SnapshotRequest, SnapshotRequest__Output as _lockd_v1_SnapshotRequest__Output } from '../../lockd/v1/SnapshotRequest.js';

/**
 * Maintenance: operating the cluster for years (lockctl snapshot ...; docs/operating.md "Backup,
 * restore and recovery"). Admin-only whenever the nodes verify client certificates
 * (--client-cert-auth, with or without --acl), exactly like Membership: PERMISSION_DENIED
 * otherwise (also when no admin is named); open to all without them. A backup holds every fenced
 * value, principal and access rule: treat the file as you treat the data dirs.
 */
export interface MaintenanceClient extends grpc.Client {
  /**
   * Streams a backup: the whole replicated state as of one applied log index, with the index and
   * term it reflects, the configuration (voters, learners) in effect there and a checksum; the
   * bytes a client writes to a file as they come (`lockd restore --from FILE` reads that file).
   * Served by the leader after a ReadIndex barrier, so it holds every write acknowledged before
   * the call; the state is taken in one step (one index), never mixed across entries.
   * 
   * The stream: the first message carries `info` (and no data); every later one carries only
   * `data`, at most 65,536 bytes, in order. The concatenated data is `info.size_bytes` long and its
   * last 32 bytes are the SHA-256 of all the bytes before them: a client checks both before it
   * keeps the file (the file format is docs/operating.md's "Backup file"). The stream ends OK
   * once everything was sent.
   * 
   * Errors: on a follower, or while no leader is known, UNAVAILABLE naming the leader (message and
   * `lockd-leader` trailer): call the leader. A leader that cannot confirm its leadership in time
   * (no quorum): UNAVAILABLE. More than 2 backups streaming from one node at once:
   * RESOURCE_EXHAUSTED (retry later). PERMISSION_DENIED as above. The stream goes as fast as the
   * client reads (flow control); the leader ends it with DEADLINE_EXCEEDED, freeing its slot and
   * its copy of the state, when the client reads nothing for 30 s or the stream runs past its
   * deadline or 10 minutes — retry then.
   */
  Snapshot(argument: _lockd_v1_SnapshotRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_SnapshotChunk__Output>;
  Snapshot(argument: _lockd_v1_SnapshotRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_SnapshotChunk__Output>;
  /**
   * Streams a backup: the whole replicated state as of one applied log index, with the index and
   * term it reflects, the configuration (voters, learners) in effect there and a checksum; the
   * bytes a client writes to a file as they come (`lockd restore --from FILE` reads that file).
   * Served by the leader after a ReadIndex barrier, so it holds every write acknowledged before
   * the call; the state is taken in one step (one index), never mixed across entries.
   * 
   * The stream: the first message carries `info` (and no data); every later one carries only
   * `data`, at most 65,536 bytes, in order. The concatenated data is `info.size_bytes` long and its
   * last 32 bytes are the SHA-256 of all the bytes before them: a client checks both before it
   * keeps the file (the file format is docs/operating.md's "Backup file"). The stream ends OK
   * once everything was sent.
   * 
   * Errors: on a follower, or while no leader is known, UNAVAILABLE naming the leader (message and
   * `lockd-leader` trailer): call the leader. A leader that cannot confirm its leadership in time
   * (no quorum): UNAVAILABLE. More than 2 backups streaming from one node at once:
   * RESOURCE_EXHAUSTED (retry later). PERMISSION_DENIED as above. The stream goes as fast as the
   * client reads (flow control); the leader ends it with DEADLINE_EXCEEDED, freeing its slot and
   * its copy of the state, when the client reads nothing for 30 s or the stream runs past its
   * deadline or 10 minutes — retry then.
   */
  snapshot(argument: _lockd_v1_SnapshotRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_SnapshotChunk__Output>;
  snapshot(argument: _lockd_v1_SnapshotRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_SnapshotChunk__Output>;
  
}

/**
 * Maintenance: operating the cluster for years (lockctl snapshot ...; docs/operating.md "Backup,
 * restore and recovery"). Admin-only whenever the nodes verify client certificates
 * (--client-cert-auth, with or without --acl), exactly like Membership: PERMISSION_DENIED
 * otherwise (also when no admin is named); open to all without them. A backup holds every fenced
 * value, principal and access rule: treat the file as you treat the data dirs.
 */
export interface MaintenanceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Streams a backup: the whole replicated state as of one applied log index, with the index and
   * term it reflects, the configuration (voters, learners) in effect there and a checksum; the
   * bytes a client writes to a file as they come (`lockd restore --from FILE` reads that file).
   * Served by the leader after a ReadIndex barrier, so it holds every write acknowledged before
   * the call; the state is taken in one step (one index), never mixed across entries.
   * 
   * The stream: the first message carries `info` (and no data); every later one carries only
   * `data`, at most 65,536 bytes, in order. The concatenated data is `info.size_bytes` long and its
   * last 32 bytes are the SHA-256 of all the bytes before them: a client checks both before it
   * keeps the file (the file format is docs/operating.md's "Backup file"). The stream ends OK
   * once everything was sent.
   * 
   * Errors: on a follower, or while no leader is known, UNAVAILABLE naming the leader (message and
   * `lockd-leader` trailer): call the leader. A leader that cannot confirm its leadership in time
   * (no quorum): UNAVAILABLE. More than 2 backups streaming from one node at once:
   * RESOURCE_EXHAUSTED (retry later). PERMISSION_DENIED as above. The stream goes as fast as the
   * client reads (flow control); the leader ends it with DEADLINE_EXCEEDED, freeing its slot and
   * its copy of the state, when the client reads nothing for 30 s or the stream runs past its
   * deadline or 10 minutes — retry then.
   */
  Snapshot: grpc.handleServerStreamingCall<_lockd_v1_SnapshotRequest__Output, _lockd_v1_SnapshotChunk>;
  
}

export interface MaintenanceDefinition extends grpc.ServiceDefinition {
  Snapshot: MethodDefinition<_lockd_v1_SnapshotRequest, _lockd_v1_SnapshotChunk, _lockd_v1_SnapshotRequest__Output, _lockd_v1_SnapshotChunk__Output>
}
