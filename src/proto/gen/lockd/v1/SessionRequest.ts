// Original file: proto/lockd.proto

import type { LeaseGrantRequest as _lockd_v1_LeaseGrantRequest, LeaseGrantRequest__Output as _lockd_v1_LeaseGrantRequest__Output } from '../../lockd/v1/LeaseGrantRequest.js';
import type { AcquireRequest as _lockd_v1_AcquireRequest, AcquireRequest__Output as _lockd_v1_AcquireRequest__Output } from '../../lockd/v1/AcquireRequest.js';
import type { ReleaseRequest as _lockd_v1_ReleaseRequest, ReleaseRequest__Output as _lockd_v1_ReleaseRequest__Output } from '../../lockd/v1/ReleaseRequest.js';
import type { LeaseRevokeRequest as _lockd_v1_LeaseRevokeRequest, LeaseRevokeRequest__Output as _lockd_v1_LeaseRevokeRequest__Output } from '../../lockd/v1/LeaseRevokeRequest.js';
import type { FenceWriteRequest as _lockd_v1_FenceWriteRequest, FenceWriteRequest__Output as _lockd_v1_FenceWriteRequest__Output } from '../../lockd/v1/FenceWriteRequest.js';
import type { InspectRequest as _lockd_v1_InspectRequest, InspectRequest__Output as _lockd_v1_InspectRequest__Output } from '../../lockd/v1/InspectRequest.js';
import type { FenceReadRequest as _lockd_v1_FenceReadRequest, FenceReadRequest__Output as _lockd_v1_FenceReadRequest__Output } from '../../lockd/v1/FenceReadRequest.js';
import type { LeaseTimeToLiveRequest as _lockd_v1_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as _lockd_v1_LeaseTimeToLiveRequest__Output } from '../../lockd/v1/LeaseTimeToLiveRequest.js';
import type { FenceDeleteRequest as _lockd_v1_FenceDeleteRequest, FenceDeleteRequest__Output as _lockd_v1_FenceDeleteRequest__Output } from '../../lockd/v1/FenceDeleteRequest.js';
import type { SetPermitsRequest as _lockd_v1_SetPermitsRequest, SetPermitsRequest__Output as _lockd_v1_SetPermitsRequest__Output } from '../../lockd/v1/SetPermitsRequest.js';
import type { CampaignRequest as _lockd_v1_CampaignRequest, CampaignRequest__Output as _lockd_v1_CampaignRequest__Output } from '../../lockd/v1/CampaignRequest.js';
import type { ProclaimRequest as _lockd_v1_ProclaimRequest, ProclaimRequest__Output as _lockd_v1_ProclaimRequest__Output } from '../../lockd/v1/ProclaimRequest.js';
import type { LeaderRequest as _lockd_v1_LeaderRequest, LeaderRequest__Output as _lockd_v1_LeaderRequest__Output } from '../../lockd/v1/LeaderRequest.js';
import type { ResignRequest as _lockd_v1_ResignRequest, ResignRequest__Output as _lockd_v1_ResignRequest__Output } from '../../lockd/v1/ResignRequest.js';
import type { SessionRequest as _lockd_v1_SessionRequest, SessionRequest__Output as _lockd_v1_SessionRequest__Output } from '../../lockd/v1/SessionRequest.js';
import type { Long } from '@grpc/proto-loader';

/**
 * One operation on a session.
 */
export interface SessionRequest {
  /**
   * Client-chosen correlation id, echoed in the response. Any value, but unique among the
   * operations of this stream still in flight.
   */
  'id'?: (number | string | Long);
  /**
   * Lease.Grant.
   */
  'grant'?: (_lockd_v1_LeaseGrantRequest | null);
  /**
   * Lock.Acquire (wait = true waits in the lock's queue; see timeout_ms).
   */
  'acquire'?: (_lockd_v1_AcquireRequest | null);
  /**
   * Lock.Release.
   */
  'release'?: (_lockd_v1_ReleaseRequest | null);
  /**
   * Lease.Revoke.
   */
  'revoke'?: (_lockd_v1_LeaseRevokeRequest | null);
  /**
   * Fence.Write.
   */
  'fenceWrite'?: (_lockd_v1_FenceWriteRequest | null);
  /**
   * Lock.Inspect.
   */
  'inspect'?: (_lockd_v1_InspectRequest | null);
  /**
   * Fence.Read.
   */
  'fenceRead'?: (_lockd_v1_FenceReadRequest | null);
  /**
   * Lease.TimeToLive.
   */
  'timeToLive'?: (_lockd_v1_LeaseTimeToLiveRequest | null);
  /**
   * Fence.Delete.
   */
  'fenceDelete'?: (_lockd_v1_FenceDeleteRequest | null);
  /**
   * Lock.SetPermits.
   */
  'setPermits'?: (_lockd_v1_SetPermitsRequest | null);
  /**
   * The operation's deadline in milliseconds after the server receives it (the unary call's
   * deadline); 0 = none beyond the stream's own deadline. Negative: INVALID_ARGUMENT. Any length
   * works, including waits of more than 2^31-1 ms (unlike a gRPC deadline on the unary call).
   */
  'timeoutMs'?: (number | string | Long);
  /**
   * Election.Campaign (waits until this lease leads, like a waiting Acquire: see timeout_ms; ends
   * NOT_FOUND the moment the lease does). Election.Observe stays a server stream (Election service).
   */
  'campaign'?: (_lockd_v1_CampaignRequest | null);
  /**
   * Election.Proclaim.
   */
  'proclaim'?: (_lockd_v1_ProclaimRequest | null);
  /**
   * Election.Leader (NOT_FOUND when nobody leads).
   */
  'leader'?: (_lockd_v1_LeaderRequest | null);
  /**
   * Election.Resign.
   */
  'resign'?: (_lockd_v1_ResignRequest | null);
  /**
   * Several operations in one message, only to a server that announced batching (the
   * `lockd-session-batch: 1` header in its response headers; this one always does): each element
   * is handled exactly as if it had arrived alone, in order, and answered by its own id. A message
   * with `batch` set carries nothing else (id 0, no op); an element may not itself hold a batch
   * (that element is answered INVALID_ARGUMENT). More than 256 elements in one message, those of
   * nested batches counted too, or batches nested more than 8 deep, end the stream
   * INVALID_ARGUMENT (the server counts before it decodes), as does a message that does not
   * decode. The whole message is bounded like any other (4 MiB): keep a batch well under that
   * (the TS client sends at most ~1 MiB per batch). It saves the per-message framing and
   * callbacks on both sides.
   */
  'batch'?: (_lockd_v1_SessionRequest)[];
  /**
   * The operation: the same request message as the unary RPC named in each field's comment.
   * None set: the response is an INVALID_ARGUMENT error.
   */
  'op'?: "grant"|"acquire"|"release"|"revoke"|"fenceWrite"|"inspect"|"fenceRead"|"timeToLive"|"fenceDelete"|"setPermits"|"campaign"|"proclaim"|"leader"|"resign";
}

/**
 * One operation on a session.
 */
export interface SessionRequest__Output {
  /**
   * Client-chosen correlation id, echoed in the response. Any value, but unique among the
   * operations of this stream still in flight.
   */
  'id': (number);
  /**
   * Lease.Grant.
   */
  'grant'?: (_lockd_v1_LeaseGrantRequest__Output | null);
  /**
   * Lock.Acquire (wait = true waits in the lock's queue; see timeout_ms).
   */
  'acquire'?: (_lockd_v1_AcquireRequest__Output | null);
  /**
   * Lock.Release.
   */
  'release'?: (_lockd_v1_ReleaseRequest__Output | null);
  /**
   * Lease.Revoke.
   */
  'revoke'?: (_lockd_v1_LeaseRevokeRequest__Output | null);
  /**
   * Fence.Write.
   */
  'fenceWrite'?: (_lockd_v1_FenceWriteRequest__Output | null);
  /**
   * Lock.Inspect.
   */
  'inspect'?: (_lockd_v1_InspectRequest__Output | null);
  /**
   * Fence.Read.
   */
  'fenceRead'?: (_lockd_v1_FenceReadRequest__Output | null);
  /**
   * Lease.TimeToLive.
   */
  'timeToLive'?: (_lockd_v1_LeaseTimeToLiveRequest__Output | null);
  /**
   * Fence.Delete.
   */
  'fenceDelete'?: (_lockd_v1_FenceDeleteRequest__Output | null);
  /**
   * Lock.SetPermits.
   */
  'setPermits'?: (_lockd_v1_SetPermitsRequest__Output | null);
  /**
   * The operation's deadline in milliseconds after the server receives it (the unary call's
   * deadline); 0 = none beyond the stream's own deadline. Negative: INVALID_ARGUMENT. Any length
   * works, including waits of more than 2^31-1 ms (unlike a gRPC deadline on the unary call).
   */
  'timeoutMs': (number);
  /**
   * Election.Campaign (waits until this lease leads, like a waiting Acquire: see timeout_ms; ends
   * NOT_FOUND the moment the lease does). Election.Observe stays a server stream (Election service).
   */
  'campaign'?: (_lockd_v1_CampaignRequest__Output | null);
  /**
   * Election.Proclaim.
   */
  'proclaim'?: (_lockd_v1_ProclaimRequest__Output | null);
  /**
   * Election.Leader (NOT_FOUND when nobody leads).
   */
  'leader'?: (_lockd_v1_LeaderRequest__Output | null);
  /**
   * Election.Resign.
   */
  'resign'?: (_lockd_v1_ResignRequest__Output | null);
  /**
   * Several operations in one message, only to a server that announced batching (the
   * `lockd-session-batch: 1` header in its response headers; this one always does): each element
   * is handled exactly as if it had arrived alone, in order, and answered by its own id. A message
   * with `batch` set carries nothing else (id 0, no op); an element may not itself hold a batch
   * (that element is answered INVALID_ARGUMENT). More than 256 elements in one message, those of
   * nested batches counted too, or batches nested more than 8 deep, end the stream
   * INVALID_ARGUMENT (the server counts before it decodes), as does a message that does not
   * decode. The whole message is bounded like any other (4 MiB): keep a batch well under that
   * (the TS client sends at most ~1 MiB per batch). It saves the per-message framing and
   * callbacks on both sides.
   */
  'batch': (_lockd_v1_SessionRequest__Output)[];
  /**
   * The operation: the same request message as the unary RPC named in each field's comment.
   * None set: the response is an INVALID_ARGUMENT error.
   */
  'op'?: "grant"|"acquire"|"release"|"revoke"|"fenceWrite"|"inspect"|"fenceRead"|"timeToLive"|"fenceDelete"|"setPermits"|"campaign"|"proclaim"|"leader"|"resign";
}
