from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AclRule(_message.Message):
    __slots__ = ["prefix", "principal", "verb"]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    VERB_FIELD_NUMBER: _ClassVar[int]
    prefix: str
    principal: str
    verb: str
    def __init__(self, principal: _Optional[str] = ..., prefix: _Optional[str] = ..., verb: _Optional[str] = ...) -> None: ...

class AcquireRequest(_message.Message):
    __slots__ = ["lease_id", "lock_delay_ms", "name", "permits", "request_id", "shared", "wait"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERMITS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    lock_delay_ms: int
    name: str
    permits: int
    request_id: str
    shared: bool
    wait: bool
    def __init__(self, name: _Optional[str] = ..., lease_id: _Optional[int] = ..., wait: bool = ..., request_id: _Optional[str] = ..., permits: _Optional[int] = ..., shared: bool = ..., lock_delay_ms: _Optional[int] = ...) -> None: ...

class AcquireResponse(_message.Message):
    __slots__ = ["acquired", "ended_fencing_token", "fencing_token", "grant_ended", "holder_lease_id", "lock_delay_remaining_ms", "shared"]
    ACQUIRED_FIELD_NUMBER: _ClassVar[int]
    ENDED_FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GRANT_ENDED_FIELD_NUMBER: _ClassVar[int]
    HOLDER_LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    acquired: bool
    ended_fencing_token: int
    fencing_token: int
    grant_ended: bool
    holder_lease_id: int
    lock_delay_remaining_ms: int
    shared: bool
    def __init__(self, acquired: bool = ..., fencing_token: _Optional[int] = ..., holder_lease_id: _Optional[int] = ..., grant_ended: bool = ..., ended_fencing_token: _Optional[int] = ..., lock_delay_remaining_ms: _Optional[int] = ..., shared: bool = ...) -> None: ...

class AuthGetQuotaRequest(_message.Message):
    __slots__ = ["principal"]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    principal: str
    def __init__(self, principal: _Optional[str] = ...) -> None: ...

class AuthGrantRequest(_message.Message):
    __slots__ = ["request_id", "rule"]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rule: AclRule
    def __init__(self, rule: _Optional[_Union[AclRule, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AuthGrantResponse(_message.Message):
    __slots__ = ["created"]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    created: bool
    def __init__(self, created: bool = ...) -> None: ...

class AuthListRequest(_message.Message):
    __slots__ = ["principal"]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    principal: str
    def __init__(self, principal: _Optional[str] = ...) -> None: ...

class AuthListResponse(_message.Message):
    __slots__ = ["rules"]
    RULES_FIELD_NUMBER: _ClassVar[int]
    rules: _containers.RepeatedCompositeFieldContainer[AclRule]
    def __init__(self, rules: _Optional[_Iterable[_Union[AclRule, _Mapping]]] = ...) -> None: ...

class AuthQuotaResponse(_message.Message):
    __slots__ = ["principal", "quotas"]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    QUOTAS_FIELD_NUMBER: _ClassVar[int]
    principal: str
    quotas: _containers.RepeatedCompositeFieldContainer[QuotaState]
    def __init__(self, principal: _Optional[str] = ..., quotas: _Optional[_Iterable[_Union[QuotaState, _Mapping]]] = ...) -> None: ...

class AuthRevokeRequest(_message.Message):
    __slots__ = ["request_id", "rule"]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    rule: AclRule
    def __init__(self, rule: _Optional[_Union[AclRule, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AuthRevokeResponse(_message.Message):
    __slots__ = ["removed"]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: bool = ...) -> None: ...

class AuthSetQuotaRequest(_message.Message):
    __slots__ = ["principal", "request_id", "reset", "set"]
    PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RESET_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    principal: str
    request_id: str
    reset: bool
    set: _containers.RepeatedCompositeFieldContainer[QuotaValue]
    def __init__(self, principal: _Optional[str] = ..., set: _Optional[_Iterable[_Union[QuotaValue, _Mapping]]] = ..., reset: bool = ..., request_id: _Optional[str] = ...) -> None: ...

class CampaignRequest(_message.Message):
    __slots__ = ["lease_id", "name", "request_id", "value"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    name: str
    request_id: str
    value: str
    def __init__(self, name: _Optional[str] = ..., lease_id: _Optional[int] = ..., value: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class CampaignResponse(_message.Message):
    __slots__ = ["leader"]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ...) -> None: ...

class CancelWaitRequest(_message.Message):
    __slots__ = ["abandoned_at_index", "acquire_request_id", "lease_id", "name", "request_id"]
    ABANDONED_AT_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    abandoned_at_index: int
    acquire_request_id: str
    lease_id: int
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., lease_id: _Optional[int] = ..., abandoned_at_index: _Optional[int] = ..., request_id: _Optional[str] = ..., acquire_request_id: _Optional[str] = ...) -> None: ...

class CancelWaitResponse(_message.Message):
    __slots__ = ["fencing_token", "released", "removed"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    released: bool
    removed: bool
    def __init__(self, removed: bool = ..., fencing_token: _Optional[int] = ..., released: bool = ...) -> None: ...

class FenceDeleteRequest(_message.Message):
    __slots__ = ["fencing_token", "key", "lock", "request_id"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    key: str
    lock: str
    request_id: str
    def __init__(self, key: _Optional[str] = ..., fencing_token: _Optional[int] = ..., lock: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class FenceDeleteResponse(_message.Message):
    __slots__ = ["deleted", "highest_token"]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    HIGHEST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    highest_token: int
    def __init__(self, deleted: bool = ..., highest_token: _Optional[int] = ...) -> None: ...

class FenceReadRequest(_message.Message):
    __slots__ = ["key"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class FenceReadResponse(_message.Message):
    __slots__ = ["fencing_token", "value"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    value: bytes
    def __init__(self, value: _Optional[bytes] = ..., fencing_token: _Optional[int] = ...) -> None: ...

class FenceWriteRequest(_message.Message):
    __slots__ = ["fencing_token", "key", "lock", "request_id", "value"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    LOCK_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    key: str
    lock: str
    request_id: str
    value: bytes
    def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ..., fencing_token: _Optional[int] = ..., request_id: _Optional[str] = ..., lock: _Optional[str] = ...) -> None: ...

class FenceWriteResponse(_message.Message):
    __slots__ = ["highest_token"]
    HIGHEST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    highest_token: int
    def __init__(self, highest_token: _Optional[int] = ...) -> None: ...

class InspectRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class InspectResponse(_message.Message):
    __slots__ = ["fencing_token", "held", "holder_lease_id", "holders", "lock_delay_remaining_ms", "lock_delay_until_ms", "permits", "waiting_lease_ids", "waiting_shared"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    HELD_FIELD_NUMBER: _ClassVar[int]
    HOLDERS_FIELD_NUMBER: _ClassVar[int]
    HOLDER_LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    PERMITS_FIELD_NUMBER: _ClassVar[int]
    WAITING_LEASE_IDS_FIELD_NUMBER: _ClassVar[int]
    WAITING_SHARED_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    held: bool
    holder_lease_id: int
    holders: _containers.RepeatedCompositeFieldContainer[LockHolder]
    lock_delay_remaining_ms: int
    lock_delay_until_ms: int
    permits: int
    waiting_lease_ids: _containers.RepeatedScalarFieldContainer[int]
    waiting_shared: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, held: bool = ..., fencing_token: _Optional[int] = ..., holder_lease_id: _Optional[int] = ..., waiting_lease_ids: _Optional[_Iterable[int]] = ..., permits: _Optional[int] = ..., holders: _Optional[_Iterable[_Union[LockHolder, _Mapping]]] = ..., waiting_shared: _Optional[_Iterable[bool]] = ..., lock_delay_until_ms: _Optional[int] = ..., lock_delay_remaining_ms: _Optional[int] = ...) -> None: ...

class LeaderKey(_message.Message):
    __slots__ = ["fencing_token", "lease_id", "name"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    lease_id: int
    name: str
    def __init__(self, name: _Optional[str] = ..., lease_id: _Optional[int] = ..., fencing_token: _Optional[int] = ...) -> None: ...

class LeaderRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class LeaderResponse(_message.Message):
    __slots__ = ["has_leader", "leader", "value"]
    HAS_LEADER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    has_leader: bool
    leader: LeaderKey
    value: str
    def __init__(self, has_leader: bool = ..., leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., value: _Optional[str] = ...) -> None: ...

class LeaseGrantRequest(_message.Message):
    __slots__ = ["request_id", "ttl_ms"]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    ttl_ms: int
    def __init__(self, ttl_ms: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaseGrantResponse(_message.Message):
    __slots__ = ["lease_id", "ttl_ms"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    ttl_ms: int
    def __init__(self, lease_id: _Optional[int] = ..., ttl_ms: _Optional[int] = ...) -> None: ...

class LeaseInfo(_message.Message):
    __slots__ = ["granted_ttl_ms", "lease_id", "owner", "remaining_ms"]
    GRANTED_TTL_MS_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    granted_ttl_ms: int
    lease_id: int
    owner: str
    remaining_ms: int
    def __init__(self, lease_id: _Optional[int] = ..., granted_ttl_ms: _Optional[int] = ..., remaining_ms: _Optional[int] = ..., owner: _Optional[str] = ...) -> None: ...

class LeaseKeepAliveRequest(_message.Message):
    __slots__ = ["lease_id"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    def __init__(self, lease_id: _Optional[int] = ...) -> None: ...

class LeaseKeepAliveResponse(_message.Message):
    __slots__ = ["lease_id", "ttl_ms"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    ttl_ms: int
    def __init__(self, lease_id: _Optional[int] = ..., ttl_ms: _Optional[int] = ...) -> None: ...

class LeaseListRequest(_message.Message):
    __slots__ = ["page_size", "page_token"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LeaseListResponse(_message.Message):
    __slots__ = ["leases", "next_page_token"]
    LEASES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[LeaseInfo]
    next_page_token: str
    def __init__(self, leases: _Optional[_Iterable[_Union[LeaseInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class LeaseRevokeRequest(_message.Message):
    __slots__ = ["lease_id", "request_id"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    request_id: str
    def __init__(self, lease_id: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaseRevokeResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class LeaseTimeToLiveRequest(_message.Message):
    __slots__ = ["lease_id"]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: int
    def __init__(self, lease_id: _Optional[int] = ...) -> None: ...

class LeaseTimeToLiveResponse(_message.Message):
    __slots__ = ["granted_ttl_ms", "lease_id", "locks", "owner", "remaining_ms"]
    GRANTED_TTL_MS_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCKS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    granted_ttl_ms: int
    lease_id: int
    locks: _containers.RepeatedScalarFieldContainer[str]
    owner: str
    remaining_ms: int
    def __init__(self, lease_id: _Optional[int] = ..., granted_ttl_ms: _Optional[int] = ..., remaining_ms: _Optional[int] = ..., locks: _Optional[_Iterable[str]] = ..., owner: _Optional[str] = ...) -> None: ...

class LockEvent(_message.Message):
    __slots__ = ["fencing_token", "index", "lease_id", "name", "state", "type"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    index: int
    lease_id: int
    name: str
    state: InspectResponse
    type: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., fencing_token: _Optional[int] = ..., lease_id: _Optional[int] = ..., index: _Optional[int] = ..., state: _Optional[_Union[InspectResponse, _Mapping]] = ...) -> None: ...

class LockHolder(_message.Message):
    __slots__ = ["fencing_token", "lease_id", "lock_delay_ms", "shared"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    lease_id: int
    lock_delay_ms: int
    shared: bool
    def __init__(self, lease_id: _Optional[int] = ..., fencing_token: _Optional[int] = ..., shared: bool = ..., lock_delay_ms: _Optional[int] = ...) -> None: ...

class Member(_message.Message):
    __slots__ = ["address", "build", "id", "match_index"]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    address: str
    build: str
    id: str
    match_index: int
    def __init__(self, id: _Optional[str] = ..., address: _Optional[str] = ..., match_index: _Optional[int] = ..., build: _Optional[str] = ...) -> None: ...

class MemberAddRequest(_message.Message):
    __slots__ = ["client_url", "expected_config_index", "id", "learner", "peer_url", "request_id"]
    CLIENT_URL_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_CONFIG_INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LEARNER_FIELD_NUMBER: _ClassVar[int]
    PEER_URL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    client_url: str
    expected_config_index: int
    id: str
    learner: bool
    peer_url: str
    request_id: str
    def __init__(self, id: _Optional[str] = ..., peer_url: _Optional[str] = ..., client_url: _Optional[str] = ..., learner: bool = ..., expected_config_index: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class MemberChangeResponse(_message.Message):
    __slots__ = ["config_index", "learners", "voters"]
    CONFIG_INDEX_FIELD_NUMBER: _ClassVar[int]
    LEARNERS_FIELD_NUMBER: _ClassVar[int]
    VOTERS_FIELD_NUMBER: _ClassVar[int]
    config_index: int
    learners: _containers.RepeatedScalarFieldContainer[str]
    voters: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, config_index: _Optional[int] = ..., voters: _Optional[_Iterable[str]] = ..., learners: _Optional[_Iterable[str]] = ...) -> None: ...

class MemberInfo(_message.Message):
    __slots__ = ["client_address", "id", "lag", "leader", "match_index", "peer_address", "role"]
    CLIENT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LAG_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    MATCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    PEER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    client_address: str
    id: str
    lag: int
    leader: bool
    match_index: int
    peer_address: str
    role: str
    def __init__(self, id: _Optional[str] = ..., peer_address: _Optional[str] = ..., client_address: _Optional[str] = ..., role: _Optional[str] = ..., match_index: _Optional[int] = ..., lag: _Optional[int] = ..., leader: bool = ...) -> None: ...

class MemberListRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class MemberListResponse(_message.Message):
    __slots__ = ["commit_index", "config_index", "leader_id", "members", "promote_max_lag", "removed_ids"]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    CONFIG_INDEX_FIELD_NUMBER: _ClassVar[int]
    LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    PROMOTE_MAX_LAG_FIELD_NUMBER: _ClassVar[int]
    REMOVED_IDS_FIELD_NUMBER: _ClassVar[int]
    commit_index: int
    config_index: int
    leader_id: str
    members: _containers.RepeatedCompositeFieldContainer[MemberInfo]
    promote_max_lag: int
    removed_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, leader_id: _Optional[str] = ..., commit_index: _Optional[int] = ..., config_index: _Optional[int] = ..., members: _Optional[_Iterable[_Union[MemberInfo, _Mapping]]] = ..., removed_ids: _Optional[_Iterable[str]] = ..., promote_max_lag: _Optional[int] = ...) -> None: ...

class MemberPromoteRequest(_message.Message):
    __slots__ = ["expected_config_index", "id", "request_id"]
    EXPECTED_CONFIG_INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    expected_config_index: int
    id: str
    request_id: str
    def __init__(self, id: _Optional[str] = ..., expected_config_index: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class MemberRemoveRequest(_message.Message):
    __slots__ = ["expected_config_index", "id", "request_id"]
    EXPECTED_CONFIG_INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    expected_config_index: int
    id: str
    request_id: str
    def __init__(self, id: _Optional[str] = ..., expected_config_index: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ProclaimRequest(_message.Message):
    __slots__ = ["leader", "value"]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    value: str
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., value: _Optional[str] = ...) -> None: ...

class ProclaimResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class QuotaState(_message.Message):
    __slots__ = ["is_default", "limit", "name", "used"]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    is_default: bool
    limit: int
    name: str
    used: int
    def __init__(self, name: _Optional[str] = ..., limit: _Optional[int] = ..., used: _Optional[int] = ..., is_default: bool = ...) -> None: ...

class QuotaValue(_message.Message):
    __slots__ = ["name", "value"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class ReleaseRequest(_message.Message):
    __slots__ = ["fencing_token", "lease_id", "name", "request_id"]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    fencing_token: int
    lease_id: int
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., fencing_token: _Optional[int] = ..., request_id: _Optional[str] = ..., lease_id: _Optional[int] = ...) -> None: ...

class ReleaseResponse(_message.Message):
    __slots__ = ["released"]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: bool
    def __init__(self, released: bool = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ["leader", "request_id"]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    request_id: str
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ["resigned"]
    RESIGNED_FIELD_NUMBER: _ClassVar[int]
    resigned: bool
    def __init__(self, resigned: bool = ...) -> None: ...

class SessionError(_message.Message):
    __slots__ = ["code", "highest_token", "leader", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    HIGHEST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    highest_token: int
    leader: str
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., leader: _Optional[str] = ..., highest_token: _Optional[int] = ...) -> None: ...

class SessionRequest(_message.Message):
    __slots__ = ["acquire", "batch", "campaign", "fence_delete", "fence_read", "fence_write", "grant", "id", "inspect", "leader", "proclaim", "release", "resign", "revoke", "set_permits", "time_to_live", "timeout_ms"]
    ACQUIRE_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    FENCE_DELETE_FIELD_NUMBER: _ClassVar[int]
    FENCE_READ_FIELD_NUMBER: _ClassVar[int]
    FENCE_WRITE_FIELD_NUMBER: _ClassVar[int]
    GRANT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INSPECT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PROCLAIM_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    REVOKE_FIELD_NUMBER: _ClassVar[int]
    SET_PERMITS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_TO_LIVE_FIELD_NUMBER: _ClassVar[int]
    acquire: AcquireRequest
    batch: _containers.RepeatedCompositeFieldContainer[SessionRequest]
    campaign: CampaignRequest
    fence_delete: FenceDeleteRequest
    fence_read: FenceReadRequest
    fence_write: FenceWriteRequest
    grant: LeaseGrantRequest
    id: int
    inspect: InspectRequest
    leader: LeaderRequest
    proclaim: ProclaimRequest
    release: ReleaseRequest
    resign: ResignRequest
    revoke: LeaseRevokeRequest
    set_permits: SetPermitsRequest
    time_to_live: LeaseTimeToLiveRequest
    timeout_ms: int
    def __init__(self, id: _Optional[int] = ..., grant: _Optional[_Union[LeaseGrantRequest, _Mapping]] = ..., acquire: _Optional[_Union[AcquireRequest, _Mapping]] = ..., release: _Optional[_Union[ReleaseRequest, _Mapping]] = ..., revoke: _Optional[_Union[LeaseRevokeRequest, _Mapping]] = ..., fence_write: _Optional[_Union[FenceWriteRequest, _Mapping]] = ..., inspect: _Optional[_Union[InspectRequest, _Mapping]] = ..., fence_read: _Optional[_Union[FenceReadRequest, _Mapping]] = ..., time_to_live: _Optional[_Union[LeaseTimeToLiveRequest, _Mapping]] = ..., fence_delete: _Optional[_Union[FenceDeleteRequest, _Mapping]] = ..., set_permits: _Optional[_Union[SetPermitsRequest, _Mapping]] = ..., campaign: _Optional[_Union[CampaignRequest, _Mapping]] = ..., proclaim: _Optional[_Union[ProclaimRequest, _Mapping]] = ..., leader: _Optional[_Union[LeaderRequest, _Mapping]] = ..., resign: _Optional[_Union[ResignRequest, _Mapping]] = ..., timeout_ms: _Optional[int] = ..., batch: _Optional[_Iterable[_Union[SessionRequest, _Mapping]]] = ...) -> None: ...

class SessionResponse(_message.Message):
    __slots__ = ["acquire", "batch", "campaign", "error", "fence_delete", "fence_read", "fence_write", "grant", "id", "inspect", "leader", "proclaim", "release", "resign", "revoke", "set_permits", "time_to_live"]
    ACQUIRE_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    CAMPAIGN_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    FENCE_DELETE_FIELD_NUMBER: _ClassVar[int]
    FENCE_READ_FIELD_NUMBER: _ClassVar[int]
    FENCE_WRITE_FIELD_NUMBER: _ClassVar[int]
    GRANT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INSPECT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PROCLAIM_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    REVOKE_FIELD_NUMBER: _ClassVar[int]
    SET_PERMITS_FIELD_NUMBER: _ClassVar[int]
    TIME_TO_LIVE_FIELD_NUMBER: _ClassVar[int]
    acquire: AcquireResponse
    batch: _containers.RepeatedCompositeFieldContainer[SessionResponse]
    campaign: CampaignResponse
    error: SessionError
    fence_delete: FenceDeleteResponse
    fence_read: FenceReadResponse
    fence_write: FenceWriteResponse
    grant: LeaseGrantResponse
    id: int
    inspect: InspectResponse
    leader: LeaderResponse
    proclaim: ProclaimResponse
    release: ReleaseResponse
    resign: ResignResponse
    revoke: LeaseRevokeResponse
    set_permits: SetPermitsResponse
    time_to_live: LeaseTimeToLiveResponse
    def __init__(self, id: _Optional[int] = ..., grant: _Optional[_Union[LeaseGrantResponse, _Mapping]] = ..., acquire: _Optional[_Union[AcquireResponse, _Mapping]] = ..., release: _Optional[_Union[ReleaseResponse, _Mapping]] = ..., revoke: _Optional[_Union[LeaseRevokeResponse, _Mapping]] = ..., fence_write: _Optional[_Union[FenceWriteResponse, _Mapping]] = ..., inspect: _Optional[_Union[InspectResponse, _Mapping]] = ..., fence_read: _Optional[_Union[FenceReadResponse, _Mapping]] = ..., time_to_live: _Optional[_Union[LeaseTimeToLiveResponse, _Mapping]] = ..., fence_delete: _Optional[_Union[FenceDeleteResponse, _Mapping]] = ..., set_permits: _Optional[_Union[SetPermitsResponse, _Mapping]] = ..., campaign: _Optional[_Union[CampaignResponse, _Mapping]] = ..., proclaim: _Optional[_Union[ProclaimResponse, _Mapping]] = ..., leader: _Optional[_Union[LeaderResponse, _Mapping]] = ..., resign: _Optional[_Union[ResignResponse, _Mapping]] = ..., error: _Optional[_Union[SessionError, _Mapping]] = ..., batch: _Optional[_Iterable[_Union[SessionResponse, _Mapping]]] = ...) -> None: ...

class SetPermitsRequest(_message.Message):
    __slots__ = ["name", "permits", "request_id"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERMITS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    permits: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., permits: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetPermitsResponse(_message.Message):
    __slots__ = ["granted", "previous"]
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    granted: int
    previous: int
    def __init__(self, previous: _Optional[int] = ..., granted: _Optional[int] = ...) -> None: ...

class SnapshotChunk(_message.Message):
    __slots__ = ["data", "info"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    info: SnapshotInfo
    def __init__(self, info: _Optional[_Union[SnapshotInfo, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class SnapshotInfo(_message.Message):
    __slots__ = ["acl_rules", "fenced_keys", "file_format", "index", "leader_id", "learners", "leases", "locks", "logical_now_ms", "size_bytes", "state_format", "term", "voters"]
    ACL_RULES_FIELD_NUMBER: _ClassVar[int]
    FENCED_KEYS_FIELD_NUMBER: _ClassVar[int]
    FILE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    LEARNERS_FIELD_NUMBER: _ClassVar[int]
    LEASES_FIELD_NUMBER: _ClassVar[int]
    LOCKS_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_NOW_MS_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    STATE_FORMAT_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    VOTERS_FIELD_NUMBER: _ClassVar[int]
    acl_rules: int
    fenced_keys: int
    file_format: int
    index: int
    leader_id: str
    learners: _containers.RepeatedScalarFieldContainer[str]
    leases: int
    locks: int
    logical_now_ms: int
    size_bytes: int
    state_format: int
    term: int
    voters: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, index: _Optional[int] = ..., term: _Optional[int] = ..., size_bytes: _Optional[int] = ..., voters: _Optional[_Iterable[str]] = ..., learners: _Optional[_Iterable[str]] = ..., leader_id: _Optional[str] = ..., file_format: _Optional[int] = ..., state_format: _Optional[int] = ..., logical_now_ms: _Optional[int] = ..., leases: _Optional[int] = ..., locks: _Optional[int] = ..., fenced_keys: _Optional[int] = ..., acl_rules: _Optional[int] = ...) -> None: ...

class SnapshotRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ["applied_index", "build", "cluster_version", "cluster_version_complete", "commit_index", "leader_address", "leader_id", "members", "node_id", "role", "term", "version"]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_VERSION_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    applied_index: int
    build: str
    cluster_version: str
    cluster_version_complete: bool
    commit_index: int
    leader_address: str
    leader_id: str
    members: _containers.RepeatedCompositeFieldContainer[Member]
    node_id: str
    role: str
    term: int
    version: str
    def __init__(self, node_id: _Optional[str] = ..., role: _Optional[str] = ..., term: _Optional[int] = ..., leader_id: _Optional[str] = ..., commit_index: _Optional[int] = ..., applied_index: _Optional[int] = ..., members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., leader_address: _Optional[str] = ..., version: _Optional[str] = ..., build: _Optional[str] = ..., cluster_version: _Optional[str] = ..., cluster_version_complete: bool = ...) -> None: ...

class TransferLeaderRequest(_message.Message):
    __slots__ = ["target_id"]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    target_id: str
    def __init__(self, target_id: _Optional[str] = ...) -> None: ...

class TransferLeaderResponse(_message.Message):
    __slots__ = ["leader_address", "leader_id", "previous_leader_id", "term", "transferred"]
    LEADER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_LEADER_ID_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    TRANSFERRED_FIELD_NUMBER: _ClassVar[int]
    leader_address: str
    leader_id: str
    previous_leader_id: str
    term: int
    transferred: bool
    def __init__(self, leader_id: _Optional[str] = ..., leader_address: _Optional[str] = ..., term: _Optional[int] = ..., previous_leader_id: _Optional[str] = ..., transferred: bool = ...) -> None: ...
