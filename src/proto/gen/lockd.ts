import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AclRule as _lockd_v1_AclRule, AclRule__Output as _lockd_v1_AclRule__Output } from './lockd/v1/AclRule.js';
import type { AcquireRequest as _lockd_v1_AcquireRequest, AcquireRequest__Output as _lockd_v1_AcquireRequest__Output } from './lockd/v1/AcquireRequest.js';
import type { AcquireResponse as _lockd_v1_AcquireResponse, AcquireResponse__Output as _lockd_v1_AcquireResponse__Output } from './lockd/v1/AcquireResponse.js';
import type { AuthClient as _lockd_v1_AuthClient, AuthDefinition as _lockd_v1_AuthDefinition } from './lockd/v1/Auth.js';
import type { AuthGetQuotaRequest as _lockd_v1_AuthGetQuotaRequest, AuthGetQuotaRequest__Output as _lockd_v1_AuthGetQuotaRequest__Output } from './lockd/v1/AuthGetQuotaRequest.js';
import type { AuthGrantRequest as _lockd_v1_AuthGrantRequest, AuthGrantRequest__Output as _lockd_v1_AuthGrantRequest__Output } from './lockd/v1/AuthGrantRequest.js';
import type { AuthGrantResponse as _lockd_v1_AuthGrantResponse, AuthGrantResponse__Output as _lockd_v1_AuthGrantResponse__Output } from './lockd/v1/AuthGrantResponse.js';
import type { AuthListRequest as _lockd_v1_AuthListRequest, AuthListRequest__Output as _lockd_v1_AuthListRequest__Output } from './lockd/v1/AuthListRequest.js';
import type { AuthListResponse as _lockd_v1_AuthListResponse, AuthListResponse__Output as _lockd_v1_AuthListResponse__Output } from './lockd/v1/AuthListResponse.js';
import type { AuthQuotaResponse as _lockd_v1_AuthQuotaResponse, AuthQuotaResponse__Output as _lockd_v1_AuthQuotaResponse__Output } from './lockd/v1/AuthQuotaResponse.js';
import type { AuthRevokeRequest as _lockd_v1_AuthRevokeRequest, AuthRevokeRequest__Output as _lockd_v1_AuthRevokeRequest__Output } from './lockd/v1/AuthRevokeRequest.js';
import type { AuthRevokeResponse as _lockd_v1_AuthRevokeResponse, AuthRevokeResponse__Output as _lockd_v1_AuthRevokeResponse__Output } from './lockd/v1/AuthRevokeResponse.js';
import type { AuthSetQuotaRequest as _lockd_v1_AuthSetQuotaRequest, AuthSetQuotaRequest__Output as _lockd_v1_AuthSetQuotaRequest__Output } from './lockd/v1/AuthSetQuotaRequest.js';
import type { CampaignRequest as _lockd_v1_CampaignRequest, CampaignRequest__Output as _lockd_v1_CampaignRequest__Output } from './lockd/v1/CampaignRequest.js';
import type { CampaignResponse as _lockd_v1_CampaignResponse, CampaignResponse__Output as _lockd_v1_CampaignResponse__Output } from './lockd/v1/CampaignResponse.js';
import type { CancelWaitRequest as _lockd_v1_CancelWaitRequest, CancelWaitRequest__Output as _lockd_v1_CancelWaitRequest__Output } from './lockd/v1/CancelWaitRequest.js';
import type { CancelWaitResponse as _lockd_v1_CancelWaitResponse, CancelWaitResponse__Output as _lockd_v1_CancelWaitResponse__Output } from './lockd/v1/CancelWaitResponse.js';
import type { ClusterClient as _lockd_v1_ClusterClient, ClusterDefinition as _lockd_v1_ClusterDefinition } from './lockd/v1/Cluster.js';
import type { ElectionClient as _lockd_v1_ElectionClient, ElectionDefinition as _lockd_v1_ElectionDefinition } from './lockd/v1/Election.js';
import type { FenceClient as _lockd_v1_FenceClient, FenceDefinition as _lockd_v1_FenceDefinition } from './lockd/v1/Fence.js';
import type { FenceDeleteRequest as _lockd_v1_FenceDeleteRequest, FenceDeleteRequest__Output as _lockd_v1_FenceDeleteRequest__Output } from './lockd/v1/FenceDeleteRequest.js';
import type { FenceDeleteResponse as _lockd_v1_FenceDeleteResponse, FenceDeleteResponse__Output as _lockd_v1_FenceDeleteResponse__Output } from './lockd/v1/FenceDeleteResponse.js';
import type { FenceReadRequest as _lockd_v1_FenceReadRequest, FenceReadRequest__Output as _lockd_v1_FenceReadRequest__Output } from './lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse as _lockd_v1_FenceReadResponse, FenceReadResponse__Output as _lockd_v1_FenceReadResponse__Output } from './lockd/v1/FenceReadResponse.js';
import type { FenceWriteRequest as _lockd_v1_FenceWriteRequest, FenceWriteRequest__Output as _lockd_v1_FenceWriteRequest__Output } from './lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse as _lockd_v1_FenceWriteResponse, FenceWriteResponse__Output as _lockd_v1_FenceWriteResponse__Output } from './lockd/v1/FenceWriteResponse.js';
import type { InspectRequest as _lockd_v1_InspectRequest, InspectRequest__Output as _lockd_v1_InspectRequest__Output } from './lockd/v1/InspectRequest.js';
import type { InspectResponse as _lockd_v1_InspectResponse, InspectResponse__Output as _lockd_v1_InspectResponse__Output } from './lockd/v1/InspectResponse.js';
import type { LeaderKey as _lockd_v1_LeaderKey, LeaderKey__Output as _lockd_v1_LeaderKey__Output } from './lockd/v1/LeaderKey.js';
import type { LeaderRequest as _lockd_v1_LeaderRequest, LeaderRequest__Output as _lockd_v1_LeaderRequest__Output } from './lockd/v1/LeaderRequest.js';
import type { LeaderResponse as _lockd_v1_LeaderResponse, LeaderResponse__Output as _lockd_v1_LeaderResponse__Output } from './lockd/v1/LeaderResponse.js';
import type { LeaseClient as _lockd_v1_LeaseClient, LeaseDefinition as _lockd_v1_LeaseDefinition } from './lockd/v1/Lease.js';
import type { LeaseGrantRequest as _lockd_v1_LeaseGrantRequest, LeaseGrantRequest__Output as _lockd_v1_LeaseGrantRequest__Output } from './lockd/v1/LeaseGrantRequest.js';
import type { LeaseGrantResponse as _lockd_v1_LeaseGrantResponse, LeaseGrantResponse__Output as _lockd_v1_LeaseGrantResponse__Output } from './lockd/v1/LeaseGrantResponse.js';
import type { LeaseInfo as _lockd_v1_LeaseInfo, LeaseInfo__Output as _lockd_v1_LeaseInfo__Output } from './lockd/v1/LeaseInfo.js';
import type { LeaseKeepAliveRequest as _lockd_v1_LeaseKeepAliveRequest, LeaseKeepAliveRequest__Output as _lockd_v1_LeaseKeepAliveRequest__Output } from './lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse as _lockd_v1_LeaseKeepAliveResponse, LeaseKeepAliveResponse__Output as _lockd_v1_LeaseKeepAliveResponse__Output } from './lockd/v1/LeaseKeepAliveResponse.js';
import type { LeaseListRequest as _lockd_v1_LeaseListRequest, LeaseListRequest__Output as _lockd_v1_LeaseListRequest__Output } from './lockd/v1/LeaseListRequest.js';
import type { LeaseListResponse as _lockd_v1_LeaseListResponse, LeaseListResponse__Output as _lockd_v1_LeaseListResponse__Output } from './lockd/v1/LeaseListResponse.js';
import type { LeaseRevokeRequest as _lockd_v1_LeaseRevokeRequest, LeaseRevokeRequest__Output as _lockd_v1_LeaseRevokeRequest__Output } from './lockd/v1/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse as _lockd_v1_LeaseRevokeResponse, LeaseRevokeResponse__Output as _lockd_v1_LeaseRevokeResponse__Output } from './lockd/v1/LeaseRevokeResponse.js';
import type { LeaseTimeToLiveRequest as _lockd_v1_LeaseTimeToLiveRequest, LeaseTimeToLiveRequest__Output as _lockd_v1_LeaseTimeToLiveRequest__Output } from './lockd/v1/LeaseTimeToLiveRequest.js';
import type { LeaseTimeToLiveResponse as _lockd_v1_LeaseTimeToLiveResponse, LeaseTimeToLiveResponse__Output as _lockd_v1_LeaseTimeToLiveResponse__Output } from './lockd/v1/LeaseTimeToLiveResponse.js';
import type { LockClient as _lockd_v1_LockClient, LockDefinition as _lockd_v1_LockDefinition } from './lockd/v1/Lock.js';
import type { LockEvent as _lockd_v1_LockEvent, LockEvent__Output as _lockd_v1_LockEvent__Output } from './lockd/v1/LockEvent.js';
import type { LockHolder as _lockd_v1_LockHolder, LockHolder__Output as _lockd_v1_LockHolder__Output } from './lockd/v1/LockHolder.js';
import type { MaintenanceClient as _lockd_v1_MaintenanceClient, MaintenanceDefinition as _lockd_v1_MaintenanceDefinition } from './lockd/v1/Maintenance.js';
import type { Member as _lockd_v1_Member, Member__Output as _lockd_v1_Member__Output } from './lockd/v1/Member.js';
import type { MemberAddRequest as _lockd_v1_MemberAddRequest, MemberAddRequest__Output as _lockd_v1_MemberAddRequest__Output } from './lockd/v1/MemberAddRequest.js';
import type { MemberChangeResponse as _lockd_v1_MemberChangeResponse, MemberChangeResponse__Output as _lockd_v1_MemberChangeResponse__Output } from './lockd/v1/MemberChangeResponse.js';
import type { MemberInfo as _lockd_v1_MemberInfo, MemberInfo__Output as _lockd_v1_MemberInfo__Output } from './lockd/v1/MemberInfo.js';
import type { MemberListRequest as _lockd_v1_MemberListRequest, MemberListRequest__Output as _lockd_v1_MemberListRequest__Output } from './lockd/v1/MemberListRequest.js';
import type { MemberListResponse as _lockd_v1_MemberListResponse, MemberListResponse__Output as _lockd_v1_MemberListResponse__Output } from './lockd/v1/MemberListResponse.js';
import type { MemberPromoteRequest as _lockd_v1_MemberPromoteRequest, MemberPromoteRequest__Output as _lockd_v1_MemberPromoteRequest__Output } from './lockd/v1/MemberPromoteRequest.js';
import type { MemberRemoveRequest as _lockd_v1_MemberRemoveRequest, MemberRemoveRequest__Output as _lockd_v1_MemberRemoveRequest__Output } from './lockd/v1/MemberRemoveRequest.js';
import type { MembershipClient as _lockd_v1_MembershipClient, MembershipDefinition as _lockd_v1_MembershipDefinition } from './lockd/v1/Membership.js';
import type { ObserveRequest as _lockd_v1_ObserveRequest, ObserveRequest__Output as _lockd_v1_ObserveRequest__Output } from './lockd/v1/ObserveRequest.js';
import type { ProclaimRequest as _lockd_v1_ProclaimRequest, ProclaimRequest__Output as _lockd_v1_ProclaimRequest__Output } from './lockd/v1/ProclaimRequest.js';
import type { ProclaimResponse as _lockd_v1_ProclaimResponse, ProclaimResponse__Output as _lockd_v1_ProclaimResponse__Output } from './lockd/v1/ProclaimResponse.js';
import type { QuotaState as _lockd_v1_QuotaState, QuotaState__Output as _lockd_v1_QuotaState__Output } from './lockd/v1/QuotaState.js';
import type { QuotaValue as _lockd_v1_QuotaValue, QuotaValue__Output as _lockd_v1_QuotaValue__Output } from './lockd/v1/QuotaValue.js';
import type { ReleaseRequest as _lockd_v1_ReleaseRequest, ReleaseRequest__Output as _lockd_v1_ReleaseRequest__Output } from './lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse as _lockd_v1_ReleaseResponse, ReleaseResponse__Output as _lockd_v1_ReleaseResponse__Output } from './lockd/v1/ReleaseResponse.js';
import type { ResignRequest as _lockd_v1_ResignRequest, ResignRequest__Output as _lockd_v1_ResignRequest__Output } from './lockd/v1/ResignRequest.js';
import type { ResignResponse as _lockd_v1_ResignResponse, ResignResponse__Output as _lockd_v1_ResignResponse__Output } from './lockd/v1/ResignResponse.js';
import type { SessionClient as _lockd_v1_SessionClient, SessionDefinition as _lockd_v1_SessionDefinition } from './lockd/v1/Session.js';
import type { SessionError as _lockd_v1_SessionError, SessionError__Output as _lockd_v1_SessionError__Output } from './lockd/v1/SessionError.js';
import type { SessionRequest as _lockd_v1_SessionRequest, SessionRequest__Output as _lockd_v1_SessionRequest__Output } from './lockd/v1/SessionRequest.js';
import type { SessionResponse as _lockd_v1_SessionResponse, SessionResponse__Output as _lockd_v1_SessionResponse__Output } from './lockd/v1/SessionResponse.js';
import type { SetPermitsRequest as _lockd_v1_SetPermitsRequest, SetPermitsRequest__Output as _lockd_v1_SetPermitsRequest__Output } from './lockd/v1/SetPermitsRequest.js';
import type { SetPermitsResponse as _lockd_v1_SetPermitsResponse, SetPermitsResponse__Output as _lockd_v1_SetPermitsResponse__Output } from './lockd/v1/SetPermitsResponse.js';
import type { SnapshotChunk as _lockd_v1_SnapshotChunk, SnapshotChunk__Output as _lockd_v1_SnapshotChunk__Output } from './lockd/v1/SnapshotChunk.js';
import type { SnapshotInfo as _lockd_v1_SnapshotInfo, SnapshotInfo__Output as _lockd_v1_SnapshotInfo__Output } from './lockd/v1/SnapshotInfo.js';
import type { SnapshotRequest as _lockd_v1_SnapshotRequest, SnapshotRequest__Output as _lockd_v1_SnapshotRequest__Output } from './lockd/v1/SnapshotRequest.js';
import type { StatusRequest as _lockd_v1_StatusRequest, StatusRequest__Output as _lockd_v1_StatusRequest__Output } from './lockd/v1/StatusRequest.js';
import type { StatusResponse as _lockd_v1_StatusResponse, StatusResponse__Output as _lockd_v1_StatusResponse__Output } from './lockd/v1/StatusResponse.js';
import type { TransferLeaderRequest as _lockd_v1_TransferLeaderRequest, TransferLeaderRequest__Output as _lockd_v1_TransferLeaderRequest__Output } from './lockd/v1/TransferLeaderRequest.js';
import type { TransferLeaderResponse as _lockd_v1_TransferLeaderResponse, TransferLeaderResponse__Output as _lockd_v1_TransferLeaderResponse__Output } from './lockd/v1/TransferLeaderResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  lockd: {
    v1: {
      AclRule: MessageTypeDefinition<_lockd_v1_AclRule, _lockd_v1_AclRule__Output>
      AcquireRequest: MessageTypeDefinition<_lockd_v1_AcquireRequest, _lockd_v1_AcquireRequest__Output>
      AcquireResponse: MessageTypeDefinition<_lockd_v1_AcquireResponse, _lockd_v1_AcquireResponse__Output>
      /**
       * Access rules, kept in the replicated log (every node enforces the same rules; snapshots carry
       * them). A rule is (principal, prefix, verb). For a principal and a name, the rules of the
       * principal's LONGEST prefix of the name count, and no matching prefix means no access: alice with
       * `lock` on "" and `read` on "secret/" may only read "secret/x". Verbs:
       * lock   Lease.Grant (lock on any prefix), and Acquire, Release, CancelWait, Inspect, Observe of
       * names under the prefix, and Election.Campaign, Proclaim, Resign, Leader, Observe of
       * elections under it (keepalive/revoke/TimeToLive of one's own leases need no rule);
       * fence  Fence.Write, Delete and Read of keys under the prefix;
       * read   Lock.Inspect, Lock.Observe, Election.Leader, Election.Observe and Fence.Read under the prefix;
       * admin  everything, on every name and lease (others' leases included), these RPCs, (with
       * --acl) Lock.SetPermits, and (whenever client certificates are verified, --acl or not)
       * Membership and Cluster.TransferLeader. An admin rule's prefix must be "" (admin is
       * cluster-wide). Nodes' --admin flags name admins too; those cannot be revoked here.
       * With client certificates and no admin named (no --admin, no admin rule) nobody is
       * admin: these RPCs answer PERMISSION_DENIED, saying to start the nodes with --admin.
       * Rules are enforced only on nodes started with --acl (which requires TLS and --client-cert-auth);
       * Cluster.Status and health checks need no rule. The Auth RPCs are for admins only, with or
       * without --acl. Grant and Revoke take a request_id like every mutating request.
       */
      Auth: SubtypeConstructor<typeof grpc.Client, _lockd_v1_AuthClient> & { service: _lockd_v1_AuthDefinition }
      AuthGetQuotaRequest: MessageTypeDefinition<_lockd_v1_AuthGetQuotaRequest, _lockd_v1_AuthGetQuotaRequest__Output>
      AuthGrantRequest: MessageTypeDefinition<_lockd_v1_AuthGrantRequest, _lockd_v1_AuthGrantRequest__Output>
      AuthGrantResponse: MessageTypeDefinition<_lockd_v1_AuthGrantResponse, _lockd_v1_AuthGrantResponse__Output>
      AuthListRequest: MessageTypeDefinition<_lockd_v1_AuthListRequest, _lockd_v1_AuthListRequest__Output>
      AuthListResponse: MessageTypeDefinition<_lockd_v1_AuthListResponse, _lockd_v1_AuthListResponse__Output>
      AuthQuotaResponse: MessageTypeDefinition<_lockd_v1_AuthQuotaResponse, _lockd_v1_AuthQuotaResponse__Output>
      AuthRevokeRequest: MessageTypeDefinition<_lockd_v1_AuthRevokeRequest, _lockd_v1_AuthRevokeRequest__Output>
      AuthRevokeResponse: MessageTypeDefinition<_lockd_v1_AuthRevokeResponse, _lockd_v1_AuthRevokeResponse__Output>
      AuthSetQuotaRequest: MessageTypeDefinition<_lockd_v1_AuthSetQuotaRequest, _lockd_v1_AuthSetQuotaRequest__Output>
      CampaignRequest: MessageTypeDefinition<_lockd_v1_CampaignRequest, _lockd_v1_CampaignRequest__Output>
      CampaignResponse: MessageTypeDefinition<_lockd_v1_CampaignResponse, _lockd_v1_CampaignResponse__Output>
      CancelWaitRequest: MessageTypeDefinition<_lockd_v1_CancelWaitRequest, _lockd_v1_CancelWaitRequest__Output>
      CancelWaitResponse: MessageTypeDefinition<_lockd_v1_CancelWaitResponse, _lockd_v1_CancelWaitResponse__Output>
      /**
       * Cluster introspection.
       */
      Cluster: SubtypeConstructor<typeof grpc.Client, _lockd_v1_ClusterClient> & { service: _lockd_v1_ClusterDefinition }
      /**
       * Leader election (modelled on etcd's v3election), built on the Lock state: the leader of an
       * election is the holder of the lock of the same name (a mutex), its leadership key is that grant
       * (name, lease, fencing token) and its value is stored with the grant. So an election shares the
       * lock namespace (Lock.Inspect shows it), leadership is FIFO among campaigners, its token fences like
       * any lock's (Fence.Write with lock = name), and it ends with the lease: no phantom leader.
       */
      Election: SubtypeConstructor<typeof grpc.Client, _lockd_v1_ElectionClient> & { service: _lockd_v1_ElectionDefinition }
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
      Fence: SubtypeConstructor<typeof grpc.Client, _lockd_v1_FenceClient> & { service: _lockd_v1_FenceDefinition }
      FenceDeleteRequest: MessageTypeDefinition<_lockd_v1_FenceDeleteRequest, _lockd_v1_FenceDeleteRequest__Output>
      FenceDeleteResponse: MessageTypeDefinition<_lockd_v1_FenceDeleteResponse, _lockd_v1_FenceDeleteResponse__Output>
      FenceReadRequest: MessageTypeDefinition<_lockd_v1_FenceReadRequest, _lockd_v1_FenceReadRequest__Output>
      FenceReadResponse: MessageTypeDefinition<_lockd_v1_FenceReadResponse, _lockd_v1_FenceReadResponse__Output>
      FenceWriteRequest: MessageTypeDefinition<_lockd_v1_FenceWriteRequest, _lockd_v1_FenceWriteRequest__Output>
      FenceWriteResponse: MessageTypeDefinition<_lockd_v1_FenceWriteResponse, _lockd_v1_FenceWriteResponse__Output>
      InspectRequest: MessageTypeDefinition<_lockd_v1_InspectRequest, _lockd_v1_InspectRequest__Output>
      InspectResponse: MessageTypeDefinition<_lockd_v1_InspectResponse, _lockd_v1_InspectResponse__Output>
      LeaderKey: MessageTypeDefinition<_lockd_v1_LeaderKey, _lockd_v1_LeaderKey__Output>
      LeaderRequest: MessageTypeDefinition<_lockd_v1_LeaderRequest, _lockd_v1_LeaderRequest__Output>
      LeaderResponse: MessageTypeDefinition<_lockd_v1_LeaderResponse, _lockd_v1_LeaderResponse__Output>
      /**
       * Leases: the liveness of a client. Locks are held on behalf of a lease and go when it expires.
       */
      Lease: SubtypeConstructor<typeof grpc.Client, _lockd_v1_LeaseClient> & { service: _lockd_v1_LeaseDefinition }
      LeaseGrantRequest: MessageTypeDefinition<_lockd_v1_LeaseGrantRequest, _lockd_v1_LeaseGrantRequest__Output>
      LeaseGrantResponse: MessageTypeDefinition<_lockd_v1_LeaseGrantResponse, _lockd_v1_LeaseGrantResponse__Output>
      LeaseInfo: MessageTypeDefinition<_lockd_v1_LeaseInfo, _lockd_v1_LeaseInfo__Output>
      LeaseKeepAliveRequest: MessageTypeDefinition<_lockd_v1_LeaseKeepAliveRequest, _lockd_v1_LeaseKeepAliveRequest__Output>
      LeaseKeepAliveResponse: MessageTypeDefinition<_lockd_v1_LeaseKeepAliveResponse, _lockd_v1_LeaseKeepAliveResponse__Output>
      LeaseListRequest: MessageTypeDefinition<_lockd_v1_LeaseListRequest, _lockd_v1_LeaseListRequest__Output>
      LeaseListResponse: MessageTypeDefinition<_lockd_v1_LeaseListResponse, _lockd_v1_LeaseListResponse__Output>
      LeaseRevokeRequest: MessageTypeDefinition<_lockd_v1_LeaseRevokeRequest, _lockd_v1_LeaseRevokeRequest__Output>
      LeaseRevokeResponse: MessageTypeDefinition<_lockd_v1_LeaseRevokeResponse, _lockd_v1_LeaseRevokeResponse__Output>
      LeaseTimeToLiveRequest: MessageTypeDefinition<_lockd_v1_LeaseTimeToLiveRequest, _lockd_v1_LeaseTimeToLiveRequest__Output>
      LeaseTimeToLiveResponse: MessageTypeDefinition<_lockd_v1_LeaseTimeToLiveResponse, _lockd_v1_LeaseTimeToLiveResponse__Output>
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
      Lock: SubtypeConstructor<typeof grpc.Client, _lockd_v1_LockClient> & { service: _lockd_v1_LockDefinition }
      LockEvent: MessageTypeDefinition<_lockd_v1_LockEvent, _lockd_v1_LockEvent__Output>
      LockHolder: MessageTypeDefinition<_lockd_v1_LockHolder, _lockd_v1_LockHolder__Output>
      /**
       * Maintenance: operating the cluster for years (lockctl snapshot ...; docs/operating.md "Backup,
       * restore and recovery"). Admin-only whenever the nodes verify client certificates
       * (--client-cert-auth, with or without --acl), exactly like Membership: PERMISSION_DENIED
       * otherwise (also when no admin is named); open to all without them. A backup holds every fenced
       * value, principal and access rule: treat the file as you treat the data dirs.
       */
      Maintenance: SubtypeConstructor<typeof grpc.Client, _lockd_v1_MaintenanceClient> & { service: _lockd_v1_MaintenanceDefinition }
      Member: MessageTypeDefinition<_lockd_v1_Member, _lockd_v1_Member__Output>
      MemberAddRequest: MessageTypeDefinition<_lockd_v1_MemberAddRequest, _lockd_v1_MemberAddRequest__Output>
      MemberChangeResponse: MessageTypeDefinition<_lockd_v1_MemberChangeResponse, _lockd_v1_MemberChangeResponse__Output>
      MemberInfo: MessageTypeDefinition<_lockd_v1_MemberInfo, _lockd_v1_MemberInfo__Output>
      MemberListRequest: MessageTypeDefinition<_lockd_v1_MemberListRequest, _lockd_v1_MemberListRequest__Output>
      MemberListResponse: MessageTypeDefinition<_lockd_v1_MemberListResponse, _lockd_v1_MemberListResponse__Output>
      MemberPromoteRequest: MessageTypeDefinition<_lockd_v1_MemberPromoteRequest, _lockd_v1_MemberPromoteRequest__Output>
      MemberRemoveRequest: MessageTypeDefinition<_lockd_v1_MemberRemoveRequest, _lockd_v1_MemberRemoveRequest__Output>
      /**
       * Membership: who is in the cluster, and single-server changes to it (add a voter or a learner,
       * promote a learner, remove a member; one at a time: src/raft/README.md). For operators (lockctl
       * member ...); admin-only whenever the nodes verify client certificates (--client-cert-auth, with
       * or without --acl; PERMISSION_DENIED otherwise, also when no admin is named); open to all without
       * them (every caller is "anonymous": bind the client port privately). Like writes, every call is served by the
       * leader: a follower forwards it. This is the one place a client is told members' PEER addresses.
       * 
       * A change is effective on each node the moment its config entry is in that node's log, and
       * answered once committed. Refusals change nothing:
       * - INVALID_ARGUMENT: a malformed id (1-64 of [A-Za-z0-9_.-]), address (HOST:PORT) or request_id.
       * - ALREADY_EXISTS: MemberAdd of a member's id, or of a peer address another member has.
       * - NOT_FOUND: MemberPromote/MemberRemove of an id that is not a member.
       * - FAILED_PRECONDITION: an id that was removed (ids are never reused: add under a new id);
       * MemberPromote of a voter, or of a learner not caught up (its match index must be within
       * MemberListResponse.promote_max_lag entries of the commit index; the message has the numbers);
       * MemberRemove of the leader (transfer leadership first, then remove it from the new leader);
       * expected_config_index that is not MemberListResponse.config_index (compare-and-swap).
       * - UNAVAILABLE: no leader, or the leader cannot change the configuration yet (it has not
       * committed an entry of its term, another change is not committed yet, a transfer is under way):
       * retry shortly, with the same request_id.
       * - RESOURCE_EXHAUSTED: 32 members, or 1024 removed ids.
       * request_id: as for the other mutations (up to 128 bytes, no control characters): a retry of a
       * change that committed answers as the first attempt did, as long as the leader remembers it (the
       * last 1024 committed changes its log held at start or it saw since; older ones are judged
       * afresh: a repeated add is then ALREADY_EXISTS). The same request_id for another change, or one
       * the cluster remembers from any other request (a Grant, an Acquire...), is INVALID_ARGUMENT; so is a
       * committed change's request_id sent with any other request.
       */
      Membership: SubtypeConstructor<typeof grpc.Client, _lockd_v1_MembershipClient> & { service: _lockd_v1_MembershipDefinition }
      ObserveRequest: MessageTypeDefinition<_lockd_v1_ObserveRequest, _lockd_v1_ObserveRequest__Output>
      ProclaimRequest: MessageTypeDefinition<_lockd_v1_ProclaimRequest, _lockd_v1_ProclaimRequest__Output>
      ProclaimResponse: MessageTypeDefinition<_lockd_v1_ProclaimResponse, _lockd_v1_ProclaimResponse__Output>
      QuotaState: MessageTypeDefinition<_lockd_v1_QuotaState, _lockd_v1_QuotaState__Output>
      QuotaValue: MessageTypeDefinition<_lockd_v1_QuotaValue, _lockd_v1_QuotaValue__Output>
      ReleaseRequest: MessageTypeDefinition<_lockd_v1_ReleaseRequest, _lockd_v1_ReleaseRequest__Output>
      ReleaseResponse: MessageTypeDefinition<_lockd_v1_ReleaseResponse, _lockd_v1_ReleaseResponse__Output>
      ResignRequest: MessageTypeDefinition<_lockd_v1_ResignRequest, _lockd_v1_ResignRequest__Output>
      ResignResponse: MessageTypeDefinition<_lockd_v1_ResignResponse, _lockd_v1_ResignResponse__Output>
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
      Session: SubtypeConstructor<typeof grpc.Client, _lockd_v1_SessionClient> & { service: _lockd_v1_SessionDefinition }
      SessionError: MessageTypeDefinition<_lockd_v1_SessionError, _lockd_v1_SessionError__Output>
      SessionRequest: MessageTypeDefinition<_lockd_v1_SessionRequest, _lockd_v1_SessionRequest__Output>
      SessionResponse: MessageTypeDefinition<_lockd_v1_SessionResponse, _lockd_v1_SessionResponse__Output>
      SetPermitsRequest: MessageTypeDefinition<_lockd_v1_SetPermitsRequest, _lockd_v1_SetPermitsRequest__Output>
      SetPermitsResponse: MessageTypeDefinition<_lockd_v1_SetPermitsResponse, _lockd_v1_SetPermitsResponse__Output>
      SnapshotChunk: MessageTypeDefinition<_lockd_v1_SnapshotChunk, _lockd_v1_SnapshotChunk__Output>
      SnapshotInfo: MessageTypeDefinition<_lockd_v1_SnapshotInfo, _lockd_v1_SnapshotInfo__Output>
      SnapshotRequest: MessageTypeDefinition<_lockd_v1_SnapshotRequest, _lockd_v1_SnapshotRequest__Output>
      StatusRequest: MessageTypeDefinition<_lockd_v1_StatusRequest, _lockd_v1_StatusRequest__Output>
      StatusResponse: MessageTypeDefinition<_lockd_v1_StatusResponse, _lockd_v1_StatusResponse__Output>
      TransferLeaderRequest: MessageTypeDefinition<_lockd_v1_TransferLeaderRequest, _lockd_v1_TransferLeaderRequest__Output>
      TransferLeaderResponse: MessageTypeDefinition<_lockd_v1_TransferLeaderResponse, _lockd_v1_TransferLeaderResponse__Output>
    }
  }
}

