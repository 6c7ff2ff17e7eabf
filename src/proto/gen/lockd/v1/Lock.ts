// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AcquireRequest as _lockd_v1_AcquireRequest, AcquireRequest__Output as _lockd_v1_AcquireRequest__Output } from '../../lockd/v1/AcquireRequest.js';
import type { AcquireResponse as _lockd_v1_AcquireResponse, AcquireResponse__Output as _lockd_v1_AcquireResponse__Output } from '../../lockd/v1/AcquireResponse.js';
import type { CancelWaitRequest as _lockd_v1_CancelWaitRequest, CancelWaitRequest__Output as _lockd_v1_CancelWaitRequest__Output } from '../../lockd/v1/CancelWaitRequest.js';
import type { CancelWaitResponse as _lockd_v1_CancelWaitResponse, CancelWaitResponse__Output as _lockd_v1_CancelWaitResponse__Output } from '../../lockd/v1/CancelWaitResponse.js';
import type { InspectRequest as _lockd_v1_InspectRequest, InspectRequest__Output as _lockd_v1_InspectRequest__Output } from '../../lockd/v1/InspectRequest.js';
import type { InspectResponse as _lockd_v1_InspectResponse, InspectResponse__Output as _lockd_v1_InspectResponse__Output } from '../../lockd/v1/InspectResponse.js';
import type { LockEvent as _lockd_v1_LockEvent, LockEvent__Output as _lockd_v1_LockEvent__Output } from '../../lockd/v1/LockEvent.js';
import type { ObserveRequest as _lockd_v1_ObserveRequest, ObserveRequest__Output as _lockd_v1_ObserveRequest__Output } from '../../lockd/v1/ObserveRequest.js';
import type { ReleaseRequest as _lockd_v1_ReleaseRequest, ReleaseRequest__Output as _lockd_v1_ReleaseRequest__Output } from '../../lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse as _lockd_v1_ReleaseResponse, ReleaseResponse__Output as _lockd_v1_ReleaseResponse__Output } from '../../lockd/v1/ReleaseResponse.js';
import type { SetPermitsRequest as _lockd_v1_SetPermitsRequest, SetPermitsRequest__Output as _lockd_v1_SetPermitsRequest__Output } from '../../lockd/v1/SetPermitsRequest.js';
import type { SetPermitsResponse as _lockd_v1_SetPermitsResponse, SetPermitsResponse__Output as _lockd_v1_SetPermitsResponse__Output } from '../../lockd/v1/SetPermitsResponse.js';

/**
 * Named mutual-exclusion locks with fencing tokens.
 * 
 * A fencing token names exactly one grant: no other grant of that lock ever had it. token = the
 * granting log entry's index × 1024 + ordinal, the ordinal counting that entry's grants of that lock
 * (0 for the first; one entry grants one lock at most 1024 times: a Tick expiring several semaphore
 * holders, SetPermits growing, shared readers joining). So tokens strictly increase per lock (and per
 * fenced key), floor(token / 1024) is the index of the granting entry, and every token is below 2^53
 * up to index 2^43 - 1. A token therefore acts only on its own grant: Release, Proclaim, Resign and a
 * Fence.Write or Delete bound to a lock never act on another holder's grant with a stale token.
 * Tokens of grants made before this rule are their entry's index; they are below every later token.
 */
export interface LockClient extends grpc.Client {
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting). When the deadline
   * passes the server leaves the queue for the caller (and releases the lock if it was granted in
   * that instant). A cancelled wait (client gone) leaves the queue after a short grace period, unless
   * a retry of it arrives: a retried waiting Acquire keeps its place instead of queueing twice.
   * Long waits: the server's gRPC library (grpc-js) misreads a grpc-timeout above 2^31-1 ms
   * (~24.8 days) and fails the call at once with DEADLINE_EXCEEDED. For a longer wait send no
   * deadline and cancel the call yourself when yours passes (the TS client does), or use Session
   * with timeout_ms, which has no such limit.
   * 
   * A retry (same request_id, same name, lease and wait) never takes the lock a second time for its
   * request and never reports a grant that has ended. It answers:
   * - the request's grant still holds: acquired = true, the same fencing_token, and `shared` as the
   * grant is now (a downgrade since turns an exclusive request's answer shared);
   * - the request was granted and that grant has ended since (released by its token):
   * acquired = false, grant_ended = true, ended_fencing_token = the old token, holder_lease_id =
   * the holder now (0 = free). A client must treat it as "not acquired"; acquire anew (a new
   * request_id) if it still wants the lock;
   * - the lease has ended (expired, revoked): NOT_FOUND naming the lease (and the ended grant);
   * - a wait still queued: it waits again at its current place (a waiting retry is a waiting call);
   * - a wait that ended without a grant (cancelled): applied as a new request;
   * - a try-lock (wait = false) that got nothing: acquired = false and the holder *now* (0 when it
   * is free now; the caller's own lease if another of its calls holds it). Never a grant: a
   * late duplicate of a try-lock must not leave a lock behind that nobody knows of.
   * Elections: a name made by Election.Campaign (while anyone campaigns for or leads it) is an
   * election, with one leader at most; an Acquire on it is FAILED_PRECONDITION (so no shared grant,
   * downgrade or other permits reach it), and so is a Campaign on a name held or waited on through
   * Acquire. Release of the leader's grant is a Resign; Inspect, Observe and Fence's lock check read both.
   * One exception: a grant the server's own cleanup took back (see CancelWait; it was handed to no
   * call) is forgotten, and a retry of its request is applied as a new request.
   * 
   * A waiting call on a node that catches up by snapshot (its log was compacted past while it was
   * partitioned or paused) is settled from the restored state: a lease that now holds the lock is
   * answered its grant; one whose lease ended, NOT_FOUND; one still queued waits on; one neither
   * holding nor queued (its wait was cancelled, or its grant has ended since) asks again as a retry
   * with its request_id would, and is answered as above — UNAVAILABLE (with lockd-leader) when the
   * node no longer leads: retry there with the same request_id.
   */
  Acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _lockd_v1_AcquireRequest, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting). When the deadline
   * passes the server leaves the queue for the caller (and releases the lock if it was granted in
   * that instant). A cancelled wait (client gone) leaves the queue after a short grace period, unless
   * a retry of it arrives: a retried waiting Acquire keeps its place instead of queueing twice.
   * Long waits: the server's gRPC library (grpc-js) misreads a grpc-timeout above 2^31-1 ms
   * (~24.8 days) and fails the call at once with DEADLINE_EXCEEDED. For a longer wait send no
   * deadline and cancel the call yourself when yours passes (the TS client does), or use Session
   * with timeout_ms, which has no such limit.
   * 
   * A retry (same request_id, same name, lease and wait) never takes the lock a second time for its
   * request and never reports a grant that has ended. It answers:
   * - the request's grant still holds: acquired = true, the same fencing_token, and `shared` as the
   * grant is now (a downgrade since turns an exclusive request's answer shared);
   * - the request was granted and that grant has ended since (released by its token):
   * acquired = false, grant_ended = true, ended_fencing_token = the old token, holder_lease_id =
   * the holder now (0 = free). A client must treat it as "not acquired"; acquire anew (a new
   * request_id) if it still wants the lock;
   * - the lease has ended (expired, revoked): NOT_FOUND naming the lease (and the ended grant);
   * - a wait still queued: it waits again at its current place (a waiting retry is a waiting call);
   * - a wait that ended without a grant (cancelled): applied as a new request;
   * - a try-lock (wait = false) that got nothing: acquired = false and the holder *now* (0 when it
   * is free now; the caller's own lease if another of its calls holds it). Never a grant: a
   * late duplicate of a try-lock must not leave a lock behind that nobody knows of.
   * Elections: a name made by Election.Campaign (while anyone campaigns for or leads it) is an
   * election, with one leader at most; an Acquire on it is FAILED_PRECONDITION (so no shared grant,
   * downgrade or other permits reach it), and so is a Campaign on a name held or waited on through
   * Acquire. Release of the leader's grant is a Resign; Inspect, Observe and Fence's lock check read both.
   * One exception: a grant the server's own cleanup took back (see CancelWait; it was handed to no
   * call) is forgotten, and a retry of its request is applied as a new request.
   * 
   * A waiting call on a node that catches up by snapshot (its log was compacted past while it was
   * partitioned or paused) is settled from the restored state: a lease that now holds the lock is
   * answered its grant; one whose lease ended, NOT_FOUND; one still queued waits on; one neither
   * holding nor queued (its wait was cancelled, or its grant has ended since) asks again as a retry
   * with its request_id would, and is answered as above — UNAVAILABLE (with lockd-leader) when the
   * node no longer leads: retry there with the same request_id.
   */
  acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _lockd_v1_AcquireRequest, callback: grpc.requestCallback<_lockd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Leave a lock's wait queue (give up a waiting Acquire). removed = false if the lease was not
   * waiting; fencing_token > 0 if the lease holds the lock (it was granted before the cancel): the
   * caller then owns the lock and should use or Release it — unless abandoned_at_index was set (see
   * CancelWaitRequest), when such a grant is released by the cancel itself.
   * 
   * Who may cancel: until leases belong to principals (the security issue), the lease id is the
   * capability, as it is for Revoke (which ends the lease outright) and the fencing token for
   * Release. So a caller that knows a lease id can take that lease out of a queue (it loses its
   * place; a waiting call re-queues at the back, a few times, then fails ABORTED) — no more than
   * Revoke could do. What CancelWait cannot do is release a grant that a call was handed: see
   * abandoned_at_index.
   */
  CancelWait(argument: _lockd_v1_CancelWaitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  CancelWait(argument: _lockd_v1_CancelWaitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  CancelWait(argument: _lockd_v1_CancelWaitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  CancelWait(argument: _lockd_v1_CancelWaitRequest, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Leave a lock's wait queue (give up a waiting Acquire). removed = false if the lease was not
   * waiting; fencing_token > 0 if the lease holds the lock (it was granted before the cancel): the
   * caller then owns the lock and should use or Release it — unless abandoned_at_index was set (see
   * CancelWaitRequest), when such a grant is released by the cancel itself.
   * 
   * Who may cancel: until leases belong to principals (the security issue), the lease id is the
   * capability, as it is for Revoke (which ends the lease outright) and the fencing token for
   * Release. So a caller that knows a lease id can take that lease out of a queue (it loses its
   * place; a waiting call re-queues at the back, a few times, then fails ABORTED) — no more than
   * Revoke could do. What CancelWait cannot do is release a grant that a call was handed: see
   * abandoned_at_index.
   */
  cancelWait(argument: _lockd_v1_CancelWaitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  cancelWait(argument: _lockd_v1_CancelWaitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  cancelWait(argument: _lockd_v1_CancelWaitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  cancelWait(argument: _lockd_v1_CancelWaitRequest, callback: grpc.requestCallback<_lockd_v1_CancelWaitResponse__Output>): grpc.ClientUnaryCall;
  
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
   * Stream a lock's changes from now on, one event per change, in log order. Served by the node
   * called, from the entries it applies (every replica produces the same events); its response
   * headers are sent once the subscription is active. A follower's stream lags the leader by the
   * replication delay. A reader too slow to keep up — 1000 events waiting for it on the server — is
   * ended with RESOURCE_EXHAUSTED, after the events already sent; reconnect (and Inspect to resync).
   * A node that catches up by snapshot (it was partitioned or paused while the log it missed was
   * compacted) has no events for the entries the snapshot covers: every stream it serves then gets
   * one RESYNC event carrying the lock's whole state at the snapshot's index (LockEvent.state), and
   * events of later entries as usual. A client that saw RESYNC must take `state` as the truth, not
   * rebuild it from the events before.
   */
  Observe(argument: _lockd_v1_ObserveRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  Observe(argument: _lockd_v1_ObserveRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  /**
   * Stream a lock's changes from now on, one event per change, in log order. Served by the node
   * called, from the entries it applies (every replica produces the same events); its response
   * headers are sent once the subscription is active. A follower's stream lags the leader by the
   * replication delay. A reader too slow to keep up — 1000 events waiting for it on the server — is
   * ended with RESOURCE_EXHAUSTED, after the events already sent; reconnect (and Inspect to resync).
   * A node that catches up by snapshot (it was partitioned or paused while the log it missed was
   * compacted) has no events for the entries the snapshot covers: every stream it serves then gets
   * one RESYNC event carrying the lock's whole state at the snapshot's index (LockEvent.state), and
   * events of later entries as usual. A client that saw RESYNC must take `state` as the truth, not
   * rebuild it from the events before.
   */
  observe(argument: _lockd_v1_ObserveRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  observe(argument: _lockd_v1_ObserveRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_lockd_v1_LockEvent__Output>;
  
  /**
   * Release a lock; only the holder's current fencing token releases it. A stale token (the lock
   * is held under another token) answers OK with released = false and changes nothing; a lock that
   * is not held at all is NOT_FOUND; fencing_token 0 is INVALID_ARGUMENT.
   */
  Release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _lockd_v1_ReleaseRequest, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Release a lock; only the holder's current fencing token releases it. A stale token (the lock
   * is held under another token) answers OK with released = false and changes nothing; a lock that
   * is not held at all is NOT_FOUND; fencing_token 0 is INVALID_ARGUMENT.
   */
  release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _lockd_v1_ReleaseRequest, callback: grpc.requestCallback<_lockd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Change the permits of a semaphore (AcquireRequest.permits) that someone holds or waits for.
   * Growing grants the waiters that now fit at once, in FIFO order (one log entry: each gets a token
   * of its own, all naming that entry). Refused with FAILED_PRECONDITION below the current number of
   * holders (no grant is taken back), above 1 on a read-write lock (shared holders or waiters), and on
   * an election (one leader: see Acquire); NOT_FOUND
   * when nobody holds or waits for the name (the next Acquire's permits decide). On a node started
   * with --acl only an admin may call it (PERMISSION_DENIED otherwise), like Membership; without
   * --acl anyone may.
   */
  SetPermits(argument: _lockd_v1_SetPermitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  SetPermits(argument: _lockd_v1_SetPermitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  SetPermits(argument: _lockd_v1_SetPermitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  SetPermits(argument: _lockd_v1_SetPermitsRequest, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Change the permits of a semaphore (AcquireRequest.permits) that someone holds or waits for.
   * Growing grants the waiters that now fit at once, in FIFO order (one log entry: each gets a token
   * of its own, all naming that entry). Refused with FAILED_PRECONDITION below the current number of
   * holders (no grant is taken back), above 1 on a read-write lock (shared holders or waiters), and on
   * an election (one leader: see Acquire); NOT_FOUND
   * when nobody holds or waits for the name (the next Acquire's permits decide). On a node started
   * with --acl only an admin may call it (PERMISSION_DENIED otherwise), like Membership; without
   * --acl anyone may.
   */
  setPermits(argument: _lockd_v1_SetPermitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  setPermits(argument: _lockd_v1_SetPermitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  setPermits(argument: _lockd_v1_SetPermitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  setPermits(argument: _lockd_v1_SetPermitsRequest, callback: grpc.requestCallback<_lockd_v1_SetPermitsResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Named mutual-exclusion locks with fencing tokens.
 * 
 * A fencing token names exactly one grant: no other grant of that lock ever had it. token = the
 * granting log entry's index × 1024 + ordinal, the ordinal counting that entry's grants of that lock
 * (0 for the first; one entry grants one lock at most 1024 times: a Tick expiring several semaphore
 * holders, SetPermits growing, shared readers joining). So tokens strictly increase per lock (and per
 * fenced key), floor(token / 1024) is the index of the granting entry, and every token is below 2^53
 * up to index 2^43 - 1. A token therefore acts only on its own grant: Release, Proclaim, Resign and a
 * Fence.Write or Delete bound to a lock never act on another holder's grant with a stale token.
 * Tokens of grants made before this rule are their entry's index; they are below every later token.
 */
export interface LockHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Take a lock for a lease. wait=false: answer at once (acquired=false and the holder if it is
   * held). wait=true: queue FIFO and answer when granted, or fail with DEADLINE_EXCEEDED (the
   * client's deadline) or NOT_FOUND (the caller's own lease died while waiting). When the deadline
   * passes the server leaves the queue for the caller (and releases the lock if it was granted in
   * that instant). A cancelled wait (client gone) leaves the queue after a short grace period, unless
   * a retry of it arrives: a retried waiting Acquire keeps its place instead of queueing twice.
   * Long waits: the server's gRPC library (grpc-js) misreads a grpc-timeout above 2^31-1 ms
   * (~24.8 days) and fails the call at once with DEADLINE_EXCEEDED. For a longer wait send no
   * deadline and cancel the call yourself when yours passes (the TS client does), or use Session
   * with timeout_ms, which has no such limit.
   * 
   * A retry (same request_id, same name, lease and wait) never takes the lock a second time for its
   * request and never reports a grant that has ended. It answers:
   * - the request's grant still holds: acquired = true, the same fencing_token, and `shared` as the
   * grant is now (a downgrade since turns an exclusive request's answer shared);
   * - the request was granted and that grant has ended since (released by its token):
   * acquired = false, grant_ended = true, ended_fencing_token = the old token, holder_lease_id =
   * the holder now (0 = free). A client must treat it as "not acquired"; acquire anew (a new
   * request_id) if it still wants the lock;
   * - the lease has ended (expired, revoked): NOT_FOUND naming the lease (and the ended grant);
   * - a wait still queued: it waits again at its current place (a waiting retry is a waiting call);
   * - a wait that ended without a grant (cancelled): applied as a new request;
   * - a try-lock (wait = false) that got nothing: acquired = false and the holder *now* (0 when it
   * is free now; the caller's own lease if another of its calls holds it). Never a grant: a
   * late duplicate of a try-lock must not leave a lock behind that nobody knows of.
   * Elections: a name made by Election.Campaign (while anyone campaigns for or leads it) is an
   * election, with one leader at most; an Acquire on it is FAILED_PRECONDITION (so no shared grant,
   * downgrade or other permits reach it), and so is a Campaign on a name held or waited on through
   * Acquire. Release of the leader's grant is a Resign; Inspect, Observe and Fence's lock check read both.
   * One exception: a grant the server's own cleanup took back (see CancelWait; it was handed to no
   * call) is forgotten, and a retry of its request is applied as a new request.
   * 
   * A waiting call on a node that catches up by snapshot (its log was compacted past while it was
   * partitioned or paused) is settled from the restored state: a lease that now holds the lock is
   * answered its grant; one whose lease ended, NOT_FOUND; one still queued waits on; one neither
   * holding nor queued (its wait was cancelled, or its grant has ended since) asks again as a retry
   * with its request_id would, and is answered as above — UNAVAILABLE (with lockd-leader) when the
   * node no longer leads: retry there with the same request_id.
   */
  Acquire: grpc.handleUnaryCall<_lockd_v1_AcquireRequest__Output, _lockd_v1_AcquireResponse>;
  
  /**
   * Leave a lock's wait queue (give up a waiting Acquire). removed = false if the lease was not
   * waiting; fencing_token > 0 if the lease holds the lock (it was granted before the cancel): the
   * caller then owns the lock and should use or Release it — unless abandoned_at_index was set (see
   * CancelWaitRequest), when such a grant is released by the cancel itself.
   * 
   * Who may cancel: until leases belong to principals (the security issue), the lease id is the
   * capability, as it is for Revoke (which ends the lease outright) and the fencing token for
   * Release. So a caller that knows a lease id can take that lease out of a queue (it loses its
   * place; a waiting call re-queues at the back, a few times, then fails ABORTED) — no more than
   * Revoke could do. What CancelWait cannot do is release a grant that a call was handed: see
   * abandoned_at_index.
   */
  CancelWait: grpc.handleUnaryCall<_lockd_v1_CancelWaitRequest__Output, _lockd_v1_CancelWaitResponse>;
  
  /**
   * Read a lock's holder, token and queue (a linearizable read).
   */
  Inspect: grpc.handleUnaryCall<_lockd_v1_InspectRequest__Output, _lockd_v1_InspectResponse>;
  
  /**
   * Stream a lock's changes from now on, one event per change, in log order. Served by the node
   * called, from the entries it applies (every replica produces the same events); its response
   * headers are sent once the subscription is active. A follower's stream lags the leader by the
   * replication delay. A reader too slow to keep up — 1000 events waiting for it on the server — is
   * ended with RESOURCE_EXHAUSTED, after the events already sent; reconnect (and Inspect to resync).
   * A node that catches up by snapshot (it was partitioned or paused while the log it missed was
   * compacted) has no events for the entries the snapshot covers: every stream it serves then gets
   * one RESYNC event carrying the lock's whole state at the snapshot's index (LockEvent.state), and
   * events of later entries as usual. A client that saw RESYNC must take `state` as the truth, not
   * rebuild it from the events before.
   */
  Observe: grpc.handleServerStreamingCall<_lockd_v1_ObserveRequest__Output, _lockd_v1_LockEvent>;
  
  /**
   * Release a lock; only the holder's current fencing token releases it. A stale token (the lock
   * is held under another token) answers OK with released = false and changes nothing; a lock that
   * is not held at all is NOT_FOUND; fencing_token 0 is INVALID_ARGUMENT.
   */
  Release: grpc.handleUnaryCall<_lockd_v1_ReleaseRequest__Output, _lockd_v1_ReleaseResponse>;
  
  /**
   * Change the permits of a semaphore (AcquireRequest.permits) that someone holds or waits for.
   * Growing grants the waiters that now fit at once, in FIFO order (one log entry: each gets a token
   * of its own, all naming that entry). Refused with FAILED_PRECONDITION below the current number of
   * holders (no grant is taken back), above 1 on a read-write lock (shared holders or waiters), and on
   * an election (one leader: see Acquire); NOT_FOUND
   * when nobody holds or waits for the name (the next Acquire's permits decide). On a node started
   * with --acl only an admin may call it (PERMISSION_DENIED otherwise), like Membership; without
   * --acl anyone may.
   */
  SetPermits: grpc.handleUnaryCall<_lockd_v1_SetPermitsRequest__Output, _lockd_v1_SetPermitsResponse>;
  
}

export interface LockDefinition extends grpc.ServiceDefinition {
  Acquire: MethodDefinition<_lockd_v1_AcquireRequest, _lockd_v1_AcquireResponse, _lockd_v1_AcquireRequest__Output, _lockd_v1_AcquireResponse__Output>
  CancelWait: MethodDefinition<_lockd_v1_CancelWaitRequest, _lockd_v1_CancelWaitResponse, _lockd_v1_CancelWaitRequest__Output, _lockd_v1_CancelWaitResponse__Output>
  Inspect: MethodDefinition<_lockd_v1_InspectRequest, _lockd_v1_InspectResponse, _lockd_v1_InspectRequest__Output, _lockd_v1_InspectResponse__Output>
  Observe: MethodDefinition<_lockd_v1_ObserveRequest, _lockd_v1_LockEvent, _lockd_v1_ObserveRequest__Output, _lockd_v1_LockEvent__Output>
  Release: MethodDefinition<_lockd_v1_ReleaseRequest, _lockd_v1_ReleaseResponse, _lockd_v1_ReleaseRequest__Output, _lockd_v1_ReleaseResponse__Output>
  SetPermits: MethodDefinition<_lockd_v1_SetPermitsRequest, _lockd_v1_SetPermitsResponse, _lockd_v1_SetPermitsRequest__Output, _lockd_v1_SetPermitsResponse__Output>
}
