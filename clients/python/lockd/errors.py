"""Errors the client raises.

A failed call keeps its gRPC status code, so callers branch on ``err.code`` without parsing
messages — or catch the class of that code (``NotFoundError``, ``FailedPreconditionError``, ...; all
``LockdError``). The loss of a lease or a lock is its own class: it is not a failed call but a fact
the holder must act on.
"""

from __future__ import annotations

from typing import Optional

import grpc

LEADER_TRAILER = "lockd-leader"
HIGHEST_TOKEN_TRAILER = "lockd-highest-token"


class LockdError(Exception):
    """A call failed: its gRPC status code, the server's message, and the leader it named."""

    def __init__(self, code: grpc.StatusCode, details: str, trailers=()):
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details
        #: The call's trailing metadata, as (key, value) pairs.
        self.trailers = tuple(trailers or ())

    @property
    def leader(self) -> Optional[str]:
        """Client address of the leader when an UNAVAILABLE named it (the ``lockd-leader`` trailer)."""
        return metadata_value(self.trailers, LEADER_TRAILER)


class InvalidArgumentError(LockdError):
    """INVALID_ARGUMENT: the request is malformed or out of bounds (a bad name, TTL, permits, value)."""


class NotFoundError(LockdError):
    """NOT_FOUND: the lease (or lock, or leader) does not exist — e.g. a campaign or wait whose lease ended."""


class FailedPreconditionError(LockdError):
    """FAILED_PRECONDITION: refused in the current state — permits that disagree, an upgrade of a
    shared grant, a Proclaim by a key that no longer leads, a stale fencing token (StaleTokenError)."""


class PermissionDeniedError(LockdError):
    """PERMISSION_DENIED: the caller's principal may not do this (with --acl; SetPermits needs an admin)."""


class UnauthenticatedError(LockdError):
    """UNAUTHENTICATED: the cluster could not tell who is calling."""


class ResourceExhaustedError(LockdError):
    """RESOURCE_EXHAUSTED: a bound was reached (leases, locks per lease, waiters, keys); the message names it."""


class AbortedError(LockdError):
    """ABORTED: e.g. a retried Campaign whose leadership has ended since."""


class DeadlineExceededError(LockdError):
    """DEADLINE_EXCEEDED: the call's timeout passed (a waiting lock or campaign leaves the queue)."""


class UnavailableError(LockdError):
    """UNAVAILABLE: no node answered within the call's deadline (retried until then)."""


class StaleTokenError(FailedPreconditionError):
    """A fenced write or delete was refused (FAILED_PRECONDITION): the token is not the newest."""

    @property
    def highest_token(self) -> int:
        """The highest token the key has accepted (the ``lockd-highest-token`` trailer; 0 if absent)."""
        v = metadata_value(self.trailers, HIGHEST_TOKEN_TRAILER)
        return int(v) if v and v.isdigit() else 0


class LockHeldError(Exception):
    """A try-lock (``wait=False``) found the lock held by another lease, or under a lock-delay
    (``lock_delay_remaining_ms`` > 0, on the cluster's clock; ``holder_lease_id`` 0 if nobody holds it)."""

    def __init__(self, name: str, holder_lease_id: int, lock_delay_remaining_ms: int = 0):
        if holder_lease_id == 0 and lock_delay_remaining_ms > 0:
            msg = f"lock {name!r} is under a lock-delay for another {lock_delay_remaining_ms} ms"
        else:
            msg = f"lock {name!r} is held by lease {holder_lease_id}"
        super().__init__(msg)
        self.name = name
        self.holder_lease_id = holder_lease_id
        self.lock_delay_remaining_ms = lock_delay_remaining_ms


class LeaseLostError(Exception):
    """The lease can no longer be trusted.

    ``why`` is one of: ``expired`` (no keepalive acknowledged in time: the local deadline, send
    time of the last acknowledged keepalive + TTL, passed), ``gone`` (the cluster says the lease no
    longer exists), ``revoked`` / ``closed`` (this client ended it).
    """

    def __init__(self, lease_id: int, why: str, detail: str = ""):
        super().__init__(f"lease {lease_id} lost ({why})" + (f": {detail}" if detail else ""))
        self.lease_id = lease_id
        self.why = why


class LockLostError(Exception):
    """The lock is no longer held with this token (its lease was lost, or it was released)."""

    def __init__(self, name: str, token: int, why: str):
        super().__init__(f"lock {name!r} (token {token}) no longer held ({why})")
        self.name = name
        self.token = token
        self.why = why


def metadata_value(md, key: str) -> Optional[str]:
    """The first value of ``key`` in gRPC metadata (a sequence of pairs), or None."""
    for k, v in md or ():
        if k == key:
            return v.decode() if isinstance(v, bytes) else v
    return None


_BY_CODE = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.ABORTED: AbortedError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
}


def lockd_error(code: grpc.StatusCode, details: str, trailers=()) -> LockdError:
    """The LockdError subclass of ``code`` (LockdError itself for the others: INTERNAL, UNKNOWN...)."""
    return _BY_CODE.get(code, LockdError)(code, details, trailers)


def from_rpc_error(e: grpc.RpcError) -> LockdError:
    """A LockdError from a gRPC failure (code, message, trailers)."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = (e.details() if hasattr(e, "details") else None) or str(e)
    trailers = e.trailing_metadata() if hasattr(e, "trailing_metadata") else ()
    return lockd_error(code, details, trailers)


def fence_error(e: LockdError) -> LockdError:
    """A fenced write's failure: FAILED_PRECONDITION (a stale token) becomes a StaleTokenError."""
    if e.code == grpc.StatusCode.FAILED_PRECONDITION and not isinstance(e, StaleTokenError):
        return StaleTokenError(e.code, e.details, e.trailers)
    return e
