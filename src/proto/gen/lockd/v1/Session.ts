// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { SessionRequest as _lockd_v1_SessionRequest, SessionRequest__Output as _lockd_v1_SessionRequest__Output } from '../../lockd/v1/SessionRequest.js';
import type { SessionResponse as _lockd_v1_SessionResponse, SessionResponse__Output as _lockd_v1_SessionResponse__Output } from '../../lockd/v1/SessionResponse.js';

/**
 * Many lock, lease and election operations over one bidirectional stream: a client sends requests
 * tagged with ids of its choosing and gets one response per request, tagged with the same id, in
 * completion order (not request order: a waiting Acquire is answered when it is granted, after later
 * requests).
 * Each operation has exactly the semantics of the unary RPC whose request message it carries —
 * validation, status codes, request_id deduplication, linearizable reads — so moving a client from
 * unary calls to a session changes its cost, not its meaning. It saves the per-call HTTP/2 headers
 * and trailers, which dominate a unary call's cost on the server.
 */
export interface SessionClient extends grpc.Client {
  /**
   * Open a session. Served only by the leader: on a follower (or a node that knows no leader after
   * a short wait for an election) the stream ends at once with UNAVAILABLE, naming the leader in the
   * message and in the `lockd-leader` trailer when it is known — reconnect there. When the serving
   * node stops leading, or shuts down, the stream ends with UNAVAILABLE (+ `lockd-leader`): every
   * operation not yet answered has an unknown outcome, exactly like a unary call that failed
   * UNAVAILABLE — reconnect and retry (with the same request_id, to apply each at most once).
   * 
   * Errors of one operation are answered in its SessionResponse (`error`) and do not end the stream.
   * The stream itself ends with a status only for: leadership loss or shutdown (UNAVAILABLE), a
   * second request with the id of one still in flight (INVALID_ARGUMENT). A client that half-closes
   * gets the answers to everything in flight, then OK.
   * 
   * At most 1024 operations may be in flight on one stream; a request beyond that is answered at
   * once with RESOURCE_EXHAUSTED (the stream stays open).
   * 
   * Deadlines: an operation's deadline is timeout_ms after the server receives it, or the stream's
   * own gRPC deadline if that is earlier; with neither, it has none. A waiting Acquire (wait = true)
   * waits until then and answers DEADLINE_EXCEEDED (leaving the queue, as the unary call does); other
   * operations are answered within the server's bound (UNAVAILABLE when no quorum answers in time).
   * A waiting Acquire still queued when its stream ends is treated like a unary call whose client
   * went away: the server leaves the queue for it after a short grace period, unless a retry of it
   * (same lease and name) arrives meanwhile.
   * 
   * Batches (optional, for busy streams): the server sends the response header
   * `lockd-session-batch: 1`, after which the client may put several operations in one
   * SessionRequest (`batch`). A client that opens the stream with the request header
   * `lockd-session-batch: 1` may receive several answers in one SessionResponse (`batch`): the
   * answers finished together, each exactly as it would have been sent alone. A client that does
   * not send the header gets one answer per message, as before.
   */
  Open(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_SessionRequest, _lockd_v1_SessionResponse__Output>;
  Open(options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_SessionRequest, _lockd_v1_SessionResponse__Output>;
  /**
   * Open a session. Served only by the leader: on a follower (or a node that knows no leader after
   * a short wait for an election) the stream ends at once with UNAVAILABLE, naming the leader in the
   * message and in the `lockd-leader` trailer when it is known — reconnect there. When the serving
   * node stops leading, or shuts down, the stream ends with UNAVAILABLE (+ `lockd-leader`): every
   * operation not yet answered has an unknown outcome, exactly like a unary call that failed
   * UNAVAILABLE — reconnect and retry (with the same request_id, to apply each at most once).
   * 
   * Errors of one operation are answered in its SessionResponse (`error`) and do not end the stream.
   * The stream itself ends with a status only for: leadership loss or shutdown (UNAVAILABLE), a
   * second request with the id of one still in flight (INVALID_ARGUMENT). A client that half-closes
   * gets the answers to everything in flight, then OK.
   * 
   * At most 1024 operations may be in flight on one stream; a request beyond that is answered at
   * once with RESOURCE_EXHAUSTED (the stream stays open).
   * 
   * Deadlines: an operation's deadline is timeout_ms after the server receives it, or the stream's
   * own gRPC deadline if that is earlier; with neither, it has none. A waiting Acquire (wait = true)
   * waits until then and answers DEADLINE_EXCEEDED (leaving the queue, as the unary call does); other
   * operations are answered within the server's bound (UNAVAILABLE when no quorum answers in time).
   * A waiting Acquire still queued when its stream ends is treated like a unary call whose client
   * went away: the server leaves the queue for it after a short grace period, unless a retry of it
   * (same lease and name) arrives meanwhile.
   * 
   * Batches (optional, for busy streams): the server sends the response header
   * `lockd-session-batch: 1`, after which the client may put several operations in one
   * SessionRequest (`batch`). A client that opens the stream with the request header
   * `lockd-session-batch: 1` may receive several answers in one SessionResponse (`batch`): the
   * answers finished together, each exactly as it would have been sent alone. A client that does
   * not send the header gets one answer per message, as before.
   */
  open(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_SessionRequest, _lockd_v1_SessionResponse__Output>;
  open(options?: grpc.CallOptions): grpc.ClientDuplexStream<_lockd_v1_SessionRequest, _lockd_v1_SessionResponse__Output>;
  
}

/**
 * Many lock, lease and election operations over one bidirectional stream: a client sends requests
 * tagged with ids of its choosing and gets one response per request, tagged with the same id, in
 * completion order (not request order: a waiting Acquire is answered when it is granted, after later
 * requests).
 * Each operation has exactly the semantics of the unary RPC whose request message it carries —
 * validation, status codes, request_id deduplication, linearizable reads — so moving a client from
 * unary calls to a session changes its cost, not its meaning. It saves the per-call HTTP/2 headers
 * and trailers, which dominate a unary call's cost on the server.
 */
export interface SessionHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Open a session. Served only by the leader: on a follower (or a node that knows no leader after
   * a short wait for an election) the stream ends at once with UNAVAILABLE, naming the leader in the
   * message and in the `lockd-leader` trailer when it is known — reconnect there. When the serving
   * node stops leading, or shuts down, the stream ends with UNAVAILABLE (+ `lockd-leader`): every
   * operation not yet answered has an unknown outcome, exactly like a unary call that failed
   * UNAVAILABLE — reconnect and retry (with the same request_id, to apply each at most once).
   * 
   * Errors of one operation are answered in its SessionResponse (`error`) and do not end the stream.
   * The stream itself ends with a status only for: leadership loss or shutdown (UNAVAILABLE), a
   * second request with the id of one still in flight (INVALID_ARGUMENT). A client that half-closes
   * gets the answers to everything in flight, then OK.
   * 
   * At most 1024 operations may be in flight on one stream; a request beyond that is answered at
   * once with RESOURCE_EXHAUSTED (the stream stays open).
   * 
   * Deadlines: an operation's deadline is timeout_ms after the server receives it, or the stream's
   * own gRPC deadline if that is earlier; with neither, it has none. A waiting Acquire (wait = true)
   * waits until then and answers DEADLINE_EXCEEDED (leaving the queue, as the unary call does); other
   * operations are answered within the server's bound (UNAVAILABLE when no quorum answers in time).
   * A waiting Acquire still queued when its stream ends is treated like a unary call whose client
   * went away: the server leaves the queue for it after a short grace period, unless a retry of it
   * (same lease and name) arrives meanwhile.
   * 
   * Batches (optional, for busy streams): the server sends the response header
   * `lockd-session-batch: 1`, after which the client may put several operations in one
   * SessionRequest (`batch`). A client that opens the stream with the request header
   * `lockd-session-batch: 1` may receive several answers in one SessionResponse (`batch`): the
   * answers finished together, each exactly as it would have been sent alone. A client that does
   * not send the header gets one answer per message, as before.
   */
  Open: grpc.handleBidiStreamingCall<_lockd_v1_SessionRequest__Output, _lockd_v1_SessionResponse>;
  
}

export interface SessionDefinition extends grpc.ServiceDefinition {
  Open: MethodDefinition<_lockd_v1_SessionRequest, _lockd_v1_SessionResponse, _lockd_v1_SessionRequest__Output, _lockd_v1_SessionResponse__Output>
}
