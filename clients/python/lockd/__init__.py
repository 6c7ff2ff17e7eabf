"""lockd: a Python client of the lockd distributed lock server (lockd.v1, proto/lockd.proto).

    import lockd
    with lockd.Client(["127.0.0.1:7001", "127.0.0.1:7002"]) as client:
        with client.lock("jobs/nightly") as lock:
            client.fence_write("jobs/nightly/state", b"running", lock.token, lock=lock.name)

See clients/python/README.md.
"""

from .client import Client
from .errors import LeaseLostError, LockdError, LockHeldError, LockLostError, StaleTokenError
from .lease import Lease
from .lock import Lock

__all__ = ["Client", "Lease", "Lock", "LockdError", "StaleTokenError", "LockHeldError", "LeaseLostError", "LockLostError"]
