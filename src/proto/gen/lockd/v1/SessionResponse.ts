// Original file: proto/lockd.proto

import type { LeaseGrantResponse as _lockd_v1_LeaseGrantResponse, LeaseGrantResponse__Output as _lockd_v1_LeaseGrantResponse__Output } from '../../lockd/v1/LeaseGrantResponse.js';
import type { AcquireResponse as _lockd_v1_AcquireResponse, AcquireResponse__Output as _lockd_v1_AcquireResponse__Output } from '../../lockd/v1/AcquireResponse.js';
import type { ReleaseResponse as _lockd_v1_ReleaseResponse, ReleaseResponse__Output as _lockd_v1_ReleaseResponse__Output } from '../../lockd/v1/ReleaseResponse.js';
import type { LeaseRevokeResponse as _lockd_v1_LeaseRevokeResponse, LeaseRevokeResponse__Output as _lockd_v1_LeaseRevokeResponse__Output } from '../../lockd/v1/LeaseRevokeResponse.js';
import type { FenceWriteResponse as _lockd_v1_FenceWriteResponse, FenceWriteResponse__Output as _lockd_v1_FenceWriteResponse__Output } from '../../lockd/v1/FenceWriteResponse.js';
import type { InspectResponse as _lockd_v1_InspectResponse, InspectResponse__Output as _lockd_v1_InspectResponse__Output } from '../../lockd/v1/InspectResponse.js';
import type { FenceReadResponse as _lockd_v1_FenceReadResponse, FenceReadResponse__Output as _lockd_v1_FenceReadResponse__Output } from '../../lockd/v1/FenceReadResponse.js';
import type { LeaseTimeToLiveResponse as _lockd_v1_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as _lockd_v1_LeaseTimeToLiveResponse__Output } from '../../lockd/v1/LeaseTimeToLiveResponse.js';
import type { FenceDeleteResponse as _lockd_v1_FenceDeleteResponse, FenceDeleteResponse__Output as _lockd_v1_FenceDeleteResponse__Output } from '../../lockd/v1/FenceDeleteResponse.js';
import type { SetPermitsResponse as _lockd_v1_SetPermitsResponse, SetPermitsResponse__Output as _lockd_v1_SetPermitsResponse__Output } from '../../lockd/v1/SetPermitsResponse.js';
import type { SessionError as _lockd_v1_SessionError, SessionError__Output as _lockd_v1_SessionError__Output } from '../../lockd/v1/SessionError.js';
import type { CampaignResponse as _lockd_v1_CampaignResponse, CampaignResponse__Output as _lockd_v1_CampaignResponse__Output } from '../../lockd/v1/CampaignResponse.js';
import type { ProclaimResponse as _lockd_v1_ProclaimResponse, ProclaimResponse__Output as _lockd_v1_ProclaimResponse__Output } from '../../lockd/v1/ProclaimResponse.js';
import type { LeaderResponse as _lockd_v1_LeaderResponse, LeaderResponse__Output as _lockd_v1_LeaderResponse__Output } from '../../lockd/v1/LeaderResponse.js';
import type { ResignResponse as _lockd_v1_ResignResponse, ResignResponse__Output as _lockd_v1_ResignResponse__Output } from '../../lockd/v1/ResignResponse.js';
import type { SessionResponse as _lockd_v1_SessionResponse, SessionResponse__Output as _lockd_v1_SessionResponse__Output } from '../../lockd/v1/SessionResponse.js';
import type { Long } from '@grpc/proto-loader';

/**
 * The answer to one SessionRequest.
 */
export interface SessionResponse {
  /**
   * The id of the request answered.
   */
  'id'?: (number | string | Long);
  'grant'?: (_lockd_v1_LeaseGrantResponse | null);
  'acquire'?: (_lockd_v1_AcquireResponse | null);
  'release'?: (_lockd_v1_ReleaseResponse | null);
  'revoke'?: (_lockd_v1_LeaseRevokeResponse | null);
  'fenceWrite'?: (_lockd_v1_FenceWriteResponse | null);
  'inspect'?: (_lockd_v1_InspectResponse | null);
  'fenceRead'?: (_lockd_v1_FenceReadResponse | null);
  'timeToLive'?: (_lockd_v1_LeaseTimeToLiveResponse | null);
  'fenceDelete'?: (_lockd_v1_FenceDeleteResponse | null);
  'setPermits'?: (_lockd_v1_SetPermitsResponse | null);
  /**
   * The operation failed (nothing else on the stream is affected).
   */
  'error'?: (_lockd_v1_SessionError | null);
  'campaign'?: (_lockd_v1_CampaignResponse | null);
  'proclaim'?: (_lockd_v1_ProclaimResponse | null);
  'leader'?: (_lockd_v1_LeaderResponse | null);
  'resign'?: (_lockd_v1_ResignResponse | null);
  /**
   * Several answers in one message (id 0, no result), in completion order: sent only to a client
   * that opened the stream with the `lockd-session-batch: 1` header. Each element is the answer to
   * one request, exactly as it would have been sent alone; an element never holds a batch itself.
   */
  'batch'?: (_lockd_v1_SessionResponse)[];
  /**
   * The unary RPC's response message, in the field named like the request's, or the error the
   * unary RPC would have failed with.
   */
  'result'?: "grant"|"acquire"|"release"|"revoke"|"fenceWrite"|"inspect"|"fenceRead"|"timeToLive"|"fenceDelete"|"setPermits"|"campaign"|"proclaim"|"leader"|"resign"|"error";
}

/**
 * The answer to one SessionRequest.
 */
export interface SessionResponse__Output {
  /**
   * The id of the request answered.
   */
  'id': (number);
  'grant'?: (_lockd_v1_LeaseGrantResponse__Output | null);
  'acquire'?: (_lockd_v1_AcquireResponse__Output | null);
  'release'?: (_lockd_v1_ReleaseResponse__Output | null);
  'revoke'?: (_lockd_v1_LeaseRevokeResponse__Output | null);
  'fenceWrite'?: (_lockd_v1_FenceWriteResponse__Output | null);
  'inspect'?: (_lockd_v1_InspectResponse__Output | null);
  'fenceRead'?: (_lockd_v1_FenceReadResponse__Output | null);
  'timeToLive'?: (_lockd_v1_LeaseTimeToLiveResponse__Output | null);
  'fenceDelete'?: (_lockd_v1_FenceDeleteResponse__Output | null);
  'setPermits'?: (_lockd_v1_SetPermitsResponse__Output | null);
  /**
   * The operation failed (nothing else on the stream is affected).
   */
  'error'?: (_lockd_v1_SessionError__Output | null);
  'campaign'?: (_lockd_v1_CampaignResponse__Output | null);
  'proclaim'?: (_lockd_v1_ProclaimResponse__Output | null);
  'leader'?: (_lockd_v1_LeaderResponse__Output | null);
  'resign'?: (_lockd_v1_ResignResponse__Output | null);
  /**
   * Several answers in one message (id 0, no result), in completion order: sent only to a client
   * that opened the stream with the `lockd-session-batch: 1` header. Each element is the answer to
   * one request, exactly as it would have been sent alone; an element never holds a batch itself.
   */
  'batch': (_lockd_v1_SessionResponse__Output)[];
  /**
   * The unary RPC's response message, in the field named like the request's, or the error the
   * unary RPC would have failed with.
   */
  'result'?: "grant"|"acquire"|"release"|"revoke"|"fenceWrite"|"inspect"|"fenceRead"|"timeToLive"|"fenceDelete"|"setPermits"|"campaign"|"proclaim"|"leader"|"resign"|"error";
}
