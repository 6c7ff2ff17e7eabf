"""lockd: a Python client of the lockd distributed lock server (lockd.v1, proto/lockd.proto).

    import lockd
    with lockd.Client(["127.0.0.1:7001", "127.0.0.1:7002"]) as client:
        with client.lock("jobs/nightly") as lock:
            client.fence_write("jobs/nightly/state", b"running", lock.token, lock=lock.name)
        with client.campaign("scheduler", "node-a") as leadership:
            ...  # leads until the block ends (or leadership.lost is set)

See clients/python/README.md.
"""

from .client import Client, PermitsChange
from .election import LeaderInfo, LeaderKey, Leadership
from .errors import (
    AbortedError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    LeaseLostError,
    LockdError,
    LockHeldError,
    LockLostError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    StaleTokenError,
    UnauthenticatedError,
    UnavailableError,
)
from .followed_stream import FollowedStream
from .lease import Lease
from .lock import Lock
from .run import Run

__all__ = [
    "Client", "Lease", "Lock", "Run", "Leadership", "LeaderKey", "LeaderInfo", "PermitsChange", "FollowedStream",
    "LockdError", "InvalidArgumentError", "NotFoundError", "FailedPreconditionError", "PermissionDeniedError",
    "UnauthenticatedError", "ResourceExhaustedError", "AbortedError", "DeadlineExceededError", "UnavailableError",
    "StaleTokenError", "LockHeldError", "LeaseLostError", "LockLostError",
]
