// Original file: proto/lockd.proto

import type { InspectResponse as _lockd_v1_InspectResponse, InspectResponse__Output as _lockd_v1_InspectResponse__Output } from '../../lockd/v1/InspectResponse.js';
import type { Long } from '@grpc/proto-loader';

export interface LockEvent {
  /**
   * The lock's name.
   */
  'name'?: (string);
  /**
   * What happened: ACQUIRED (granted to lease_id with fencing_token), RELEASED (released by its
   * holder, or the holder's lease was revoked), EXPIRED (the holder's lease expired), QUEUED (lease_id
   * joined the wait queue), WAITER_REMOVED (a waiter's lease ended), WAIT_CANCELLED (a waiter gave up),
   * PROCLAIMED (Election.Proclaim set the value of the grant lease_id/fencing_token), DOWNGRADED (the
   * exclusive grant lease_id/fencing_token became shared), PERMITS_CHANGED (the name's permits
   * changed: SetPermits, or the first waiter of a name kept only by a lock-delay; lease_id and
   * fencing_token 0, Inspect shows the value), RESYNC (this node's state was replaced by a snapshot:
   * `state` is the lock now, the changes between the last event sent and the snapshot are not told
   * one by one; fencing_token and lease_id name the oldest holder, 0 when free). Every change of
   * holders, mode, permits or leader is one of these. New types may be added: a client skips a type
   * it does not know.
   */
  'type'?: (string);
  /**
   * The fencing token of the grant concerned (its own: see the Lock service; 0 for QUEUED,
   * WAITER_REMOVED, WAIT_CANCELLED). For ACQUIRED, floor(fencing_token / 1024) = index.
   */
  'fencingToken'?: (number | string | Long);
  /**
   * The lease concerned.
   */
  'leaseId'?: (number | string | Long);
  /**
   * Raft log index of the entry that made the change (RESYNC: the snapshot's index).
   */
  'index'?: (number | string | Long);
  /**
   * RESYNC only: the lock's whole state, as Lock.Inspect would answer it at `index`.
   */
  'state'?: (_lockd_v1_InspectResponse | null);
}

export interface LockEvent__Output {
  /**
   * The lock's name.
   */
  'name': (string);
  /**
   * What happened: ACQUIRED (granted to lease_id with fencing_token), RELEASED (released by its
   * holder, or the holder's lease was revoked), EXPIRED (the holder's lease expired), QUEUED (lease_id
   * joined the wait queue), WAITER_REMOVED (a waiter's lease ended), WAIT_CANCELLED (a waiter gave up),
   * PROCLAIMED (Election.Proclaim set the value of the grant lease_id/fencing_token), DOWNGRADED (the
   * exclusive grant lease_id/fencing_token became shared), PERMITS_CHANGED (the name's permits
   * changed: SetPermits, or the first waiter of a name kept only by a lock-delay; lease_id and
   * fencing_token 0, Inspect shows the value), RESYNC (this node's state was replaced by a snapshot:
   * `state` is the lock now, the changes between the last event sent and the snapshot are not told
   * one by one; fencing_token and lease_id name the oldest holder, 0 when free). Every change of
   * holders, mode, permits or leader is one of these. New types may be added: a client skips a type
   * it does not know.
   */
  'type': (string);
  /**
   * The fencing token of the grant concerned (its own: see the Lock service; 0 for QUEUED,
   * WAITER_REMOVED, WAIT_CANCELLED). For ACQUIRED, floor(fencing_token / 1024) = index.
   */
  'fencingToken': (number);
  /**
   * The lease concerned.
   */
  'leaseId': (number);
  /**
   * Raft log index of the entry that made the change (RESYNC: the snapshot's index).
   */
  'index': (number);
  /**
   * RESYNC only: the lock's whole state, as Lock.Inspect would answer it at `index`.
   */
  'state': (_lockd_v1_InspectResponse__Output | null);
}
