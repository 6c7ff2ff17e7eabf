// Original file: proto/lockd.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { MemberAddRequest as _lockd_v1_MemberAddRequest, MemberAddRequest__Output as _lockd_v1_MemberAddRequest__Output } from '../../lockd/v1/MemberAddRequest.js';
import type { MemberChangeResponse as _lockd_v1_MemberChangeResponse, MemberChangeResponse__Output as _lockd_v1_MemberChangeResponse__Output } from '../../lockd/v1/MemberChangeResponse.js';
import type { MemberListRequest as _lockd_v1_MemberListRequest, MemberListRequest__Output as _lockd_v1_MemberListRequest__Output } from '../../lockd/v1/MemberListRequest.js';
import type { MemberListResponse as _lockd_v1_MemberListResponse, MemberListResponse__Output as _lockd_v1_MemberListResponse__Output } from '../../lockd/v1/MemberListResponse.js';
import type { MemberPromoteRequest as _lockd_v1_MemberPromoteRequest, MemberPromoteRequest__Output as _lockd_v1_MemberPromoteRequest__Output } from '../../lockd/v1/MemberPromoteRequest.js';
import type { MemberRemoveRequest as _lockd_v1_MemberRemoveRequest, MemberRemoveRequest__Output as _lockd_v1_MemberRemoveRequest__Output } from '../../lockd/v1/MemberRemoveRequest.js';

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
export interface MembershipClient extends grpc.Client {
  MemberAdd(argument: _lockd_v1_MemberAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _lockd_v1_MemberAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _lockd_v1_MemberAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberAdd(argument: _lockd_v1_MemberAddRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _lockd_v1_MemberAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _lockd_v1_MemberAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _lockd_v1_MemberAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberAdd(argument: _lockd_v1_MemberAddRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  
  MemberList(argument: _lockd_v1_MemberListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _lockd_v1_MemberListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _lockd_v1_MemberListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  MemberList(argument: _lockd_v1_MemberListRequest, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _lockd_v1_MemberListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _lockd_v1_MemberListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _lockd_v1_MemberListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  memberList(argument: _lockd_v1_MemberListRequest, callback: grpc.requestCallback<_lockd_v1_MemberListResponse__Output>): grpc.ClientUnaryCall;
  
  MemberPromote(argument: _lockd_v1_MemberPromoteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _lockd_v1_MemberPromoteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _lockd_v1_MemberPromoteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberPromote(argument: _lockd_v1_MemberPromoteRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _lockd_v1_MemberPromoteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _lockd_v1_MemberPromoteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _lockd_v1_MemberPromoteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberPromote(argument: _lockd_v1_MemberPromoteRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  
  MemberRemove(argument: _lockd_v1_MemberRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _lockd_v1_MemberRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _lockd_v1_MemberRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  MemberRemove(argument: _lockd_v1_MemberRemoveRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _lockd_v1_MemberRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _lockd_v1_MemberRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _lockd_v1_MemberRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  memberRemove(argument: _lockd_v1_MemberRemoveRequest, callback: grpc.requestCallback<_lockd_v1_MemberChangeResponse__Output>): grpc.ClientUnaryCall;
  
}

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
export interface MembershipHandlers extends grpc.UntypedServiceImplementation {
  MemberAdd: grpc.handleUnaryCall<_lockd_v1_MemberAddRequest__Output, _lockd_v1_MemberChangeResponse>;
  
  MemberList: grpc.handleUnaryCall<_lockd_v1_MemberListRequest__Output, _lockd_v1_MemberListResponse>;
  
  MemberPromote: grpc.handleUnaryCall<_lockd_v1_MemberPromoteRequest__Output, _lockd_v1_MemberChangeResponse>;
  
  MemberRemove: grpc.handleUnaryCall<_lockd_v1_MemberRemoveRequest__Output, _lockd_v1_MemberChangeResponse>;
  
}

export interface MembershipDefinition extends grpc.ServiceDefinition {
  MemberAdd: MethodDefinition<_lockd_v1_MemberAddRequest, _lockd_v1_MemberChangeResponse, _lockd_v1_MemberAddRequest__Output, _lockd_v1_MemberChangeResponse__Output>
  MemberList: MethodDefinition<_lockd_v1_MemberListRequest, _lockd_v1_MemberListResponse, _lockd_v1_MemberListRequest__Output, _lockd_v1_MemberListResponse__Output>
  MemberPromote: MethodDefinition<_lockd_v1_MemberPromoteRequest, _lockd_v1_MemberChangeResponse, _lockd_v1_MemberPromoteRequest__Output, _lockd_v1_MemberChangeResponse__Output>
  MemberRemove: MethodDefinition<_lockd_v1_MemberRemoveRequest, _lockd_v1_MemberChangeResponse, _lockd_v1_MemberRemoveRequest__Output, _lockd_v1_MemberChangeResponse__Output>
}
