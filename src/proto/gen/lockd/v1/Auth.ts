// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AuthGetQuotaRequest as _lockd_v1_AuthGetQuotaRequest, AuthGetQuotaRequest__Output as _lockd_v1_AuthGetQuotaRequest__Output } from '../../lockd/v1/AuthGetQuotaRequest.js';
import type { AuthGrantRequest as _lockd_v1_AuthGrantRequest, AuthGrantRequest__Output as _lockd_v1_AuthGrantRequest__Output } from '../../lockd/v1/AuthGrantRequest.js';
import type { AuthGrantResponse as _lockd_v1_AuthGrantResponse, AuthGrantResponse__Output as _lockd_v1_AuthGrantResponse__Output } from '../../lockd/v1/AuthGrantResponse.js';
import type { AuthListRequest as _lockd_v1_AuthListRequest, AuthListRequest__Output as _lockd_v1_AuthListRequest__Output } from '../../lockd/v1/AuthListRequest.js';
import type { AuthListResponse as _lockd_v1_AuthListResponse, AuthListResponse__Output as _lockd_v1_AuthListResponse__Output } from '../../lockd/v1/AuthListResponse.js';
import type { AuthQuotaResponse as _lockd_v1_AuthQuotaResponse, AuthQuotaResponse__Output as _lockd_v1_AuthQuotaResponse__Output } from '../../lockd/v1/AuthQuotaResponse.js';
import type { AuthRevokeRequest as _lockd_v1_AuthRevokeRequest, AuthRevokeRequest__Output as _lockd_v1_AuthRevokeRequest__Output } from '../../lockd/v1/AuthRevokeRequest.js';
import type { AuthRevokeResponse as _lockd_v1_AuthRevokeResponse, AuthRevokeResponse__Output as _lockd_v1_AuthRevokeResponse__Output } from '../../lockd/v1/AuthRevokeResponse.js';
import type { AuthSetQuotaRequest as _lockd_v1_AuthSetQuotaRequest, AuthSetQuotaRequest__Output as _lockd_v1_AuthSetQuotaRequest__Output } from '../../lockd/v1/AuthSetQuotaRequest.js';

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
export interface AuthClient extends grpc.Client {
  /**
   * One principal's quotas in force and what it uses of each (a linearizable read).
   */
  GetQuota(argument: _lockd_v1_AuthGetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  GetQuota(argument: _lockd_v1_AuthGetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  GetQuota(argument: _lockd_v1_AuthGetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  GetQuota(argument: _lockd_v1_AuthGetQuotaRequest, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  /**
   * One principal's quotas in force and what it uses of each (a linearizable read).
   */
  getQuota(argument: _lockd_v1_AuthGetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  getQuota(argument: _lockd_v1_AuthGetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  getQuota(argument: _lockd_v1_AuthGetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  getQuota(argument: _lockd_v1_AuthGetQuotaRequest, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Add a rule; created = false if it existed already.
   */
  Grant(argument: _lockd_v1_AuthGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_AuthGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_AuthGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  Grant(argument: _lockd_v1_AuthGrantRequest, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Add a rule; created = false if it existed already.
   */
  grant(argument: _lockd_v1_AuthGrantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_AuthGrantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_AuthGrantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  grant(argument: _lockd_v1_AuthGrantRequest, callback: grpc.requestCallback<_lockd_v1_AuthGrantResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Every rule (or one principal's), sorted by principal, prefix and verb.
   */
  List(argument: _lockd_v1_AuthListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_AuthListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_AuthListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _lockd_v1_AuthListRequest, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Every rule (or one principal's), sorted by principal, prefix and verb.
   */
  list(argument: _lockd_v1_AuthListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_AuthListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_AuthListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _lockd_v1_AuthListRequest, callback: grpc.requestCallback<_lockd_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Remove a rule; removed = false if there was none.
   */
  Revoke(argument: _lockd_v1_AuthRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_AuthRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_AuthRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  Revoke(argument: _lockd_v1_AuthRevokeRequest, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Remove a rule; removed = false if there was none.
   */
  revoke(argument: _lockd_v1_AuthRevokeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_AuthRevokeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_AuthRevokeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  revoke(argument: _lockd_v1_AuthRevokeRequest, callback: grpc.requestCallback<_lockd_v1_AuthRevokeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Change one principal's quotas (replicated, like the rules). Quotas bound what a principal holds
   * at once: "leases" (live leases it granted), "locks" (locks held plus waited for by its leases),
   * "dedup_ids" (request ids remembered for it: its retry window), "election_bytes" (UTF-8 bytes of
   * the election values its leases' grants and waits carry), "fence_keys" (live fenced keys its
   * writes created). With --acl every principal is charged for its own (defaults 10,000 leases,
   * locks and ids each, 1 MiB of election values, 256 fenced keys); without --acl every caller is one shared principal,
   * "*" (defaults: the cluster-wide caps). A call over a quota fails RESOURCE_EXHAUSTED naming the
   * quota, its value and the principal, and changes nothing. A lowered quota takes nothing away.
   * Unknown quota names and values above 1,000,000,000 are INVALID_ARGUMENT; FAILED_PRECONDITION
   * until every member runs a lockd with quotas (the cluster version).
   */
  SetQuota(argument: _lockd_v1_AuthSetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _lockd_v1_AuthSetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _lockd_v1_AuthSetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  SetQuota(argument: _lockd_v1_AuthSetQuotaRequest, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Change one principal's quotas (replicated, like the rules). Quotas bound what a principal holds
   * at once: "leases" (live leases it granted), "locks" (locks held plus waited for by its leases),
   * "dedup_ids" (request ids remembered for it: its retry window), "election_bytes" (UTF-8 bytes of
   * the election values its leases' grants and waits carry), "fence_keys" (live fenced keys its
   * writes created). With --acl every principal is charged for its own (defaults 10,000 leases,
   * locks and ids each, 1 MiB of election values, 256 fenced keys); without --acl every caller is one shared principal,
   * "*" (defaults: the cluster-wide caps). A call over a quota fails RESOURCE_EXHAUSTED naming the
   * quota, its value and the principal, and changes nothing. A lowered quota takes nothing away.
   * Unknown quota names and values above 1,000,000,000 are INVALID_ARGUMENT; FAILED_PRECONDITION
   * until every member runs a lockd with quotas (the cluster version).
   */
  setQuota(argument: _lockd_v1_AuthSetQuotaRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _lockd_v1_AuthSetQuotaRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _lockd_v1_AuthSetQuotaRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  setQuota(argument: _lockd_v1_AuthSetQuotaRequest, callback: grpc.requestCallback<_lockd_v1_AuthQuotaResponse__Output>): grpc.ClientUnaryCall;
  
}

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
export interface AuthHandlers extends grpc.UntypedServiceImplementation {
  /**
   * One principal's quotas in force and what it uses of each (a linearizable read).
   */
  GetQuota: grpc.handleUnaryCall<_lockd_v1_AuthGetQuotaRequest__Output, _lockd_v1_AuthQuotaResponse>;
  
  /**
   * Add a rule; created = false if it existed already.
   */
  Grant: grpc.handleUnaryCall<_lockd_v1_AuthGrantRequest__Output, _lockd_v1_AuthGrantResponse>;
  
  /**
   * Every rule (or one principal's), sorted by principal, prefix and verb.
   */
  List: grpc.handleUnaryCall<_lockd_v1_AuthListRequest__Output, _lockd_v1_AuthListResponse>;
  
  /**
   * Remove a rule; removed = false if there was none.
   */
  Revoke: grpc.handleUnaryCall<_lockd_v1_AuthRevokeRequest__Output, _lockd_v1_AuthRevokeResponse>;
  
  /**
   * Change one principal's quotas (replicated, like the rules). Quotas bound what a principal holds
   * at once: "leases" (live leases it granted), "locks" (locks held plus waited for by its leases),
   * "dedup_ids" (request ids remembered for it: its retry window), "election_bytes" (UTF-8 bytes of
   * the election values its leases' grants and waits carry), "fence_keys" (live fenced keys its
   * writes created). With --acl every principal is charged for its own (defaults 10,000 leases,
   * locks and ids each, 1 MiB of election values, 256 fenced keys); without --acl every caller is one shared principal,
   * "*" (defaults: the cluster-wide caps). A call over a quota fails RESOURCE_EXHAUSTED naming the
   * quota, its value and the principal, and changes nothing. A lowered quota takes nothing away.
   * Unknown quota names and values above 1,000,000,000 are INVALID_ARGUMENT; FAILED_PRECONDITION
   * until every member runs a lockd with quotas (the cluster version).
   */
  SetQuota: grpc.handleUnaryCall<_lockd_v1_AuthSetQuotaRequest__Output, _lockd_v1_AuthQuotaResponse>;
  
}

export interface AuthDefinition extends grpc.ServiceDefinition {
  GetQuota: MethodDefinition<_lockd_v1_AuthGetQuotaRequest, _lockd_v1_AuthQuotaResponse, _lockd_v1_AuthGetQuotaRequest__Output, _lockd_v1_AuthQuotaResponse__Output>
  Grant: MethodDefinition<_lockd_v1_AuthGrantRequest, _lockd_v1_AuthGrantResponse, _lockd_v1_AuthGrantRequest__Output, _lockd_v1_AuthGrantResponse__Output>
  List: MethodDefinition<_lockd_v1_AuthListRequest, _lockd_v1_AuthListResponse, _lockd_v1_AuthListRequest__Output, _lockd_v1_AuthListResponse__Output>
  Revoke: MethodDefinition<_lockd_v1_AuthRevokeRequest, _lockd_v1_AuthRevokeResponse, _lockd_v1_AuthRevokeRequest__Output, _lockd_v1_AuthRevokeResponse__Output>
  SetQuota: MethodDefinition<_lockd_v1_AuthSetQuotaRequest, _lockd_v1_AuthQuotaResponse, _lockd_v1_AuthSetQuotaRequest__Output, _lockd_v1_AuthQuotaResponse__Output>
}
