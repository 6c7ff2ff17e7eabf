"""A held lock: its fencing token, a ``lost`` event, and release on leaving a ``with`` block (grant.py).

A lock may be a mutex (the default), one of a semaphore's ``permits`` grants, or a read-write lock's
shared (``shared=True``) or exclusive grant; an exclusive grant can ``downgrade()`` to shared in
place (same token), never back.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from ._proto import pb
from .errors import LockLostError
from .grant import Grant
from .lease import Lease
from .router import Router

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


class Lock(Grant):
    def __init__(self, client: "Client", router: Router, name: str, token: int, lease: Lease, owns_lease: bool, *, permits: int = 0, shared: bool = False):
        super().__init__(client, router, name, token, lease, owns_lease)
        #: The permits asked for (0 or 1: a mutex or read-write lock; N > 1: a semaphore).
        self.permits = permits
        self._shared = shared

    @property
    def shared(self) -> bool:
        """Whether this grant is shared (a read lock, or downgraded)."""
        return self._shared

    def _release_call(self, timeout: float) -> bool:
        # lease_id: readers granted by one entry share its token; without it their Release is refused.
        req = pb.ReleaseRequest(name=self.name, fencing_token=self.token, lease_id=self.lease.id, request_id=str(uuid.uuid4()))
        return self._router.call("Lock.Release", lambda ep: ep.lock.Release, req, time.monotonic() + timeout).released

    def downgrade(self, timeout: float = 10.0) -> None:
        """Read-write locks: turn this exclusive grant into a shared one (same token; readers waiting
        at the head of the queue join it). There is no way back (an upgrade deadlocks two readers):
        release, then acquire exclusive. Already shared: nothing to do. LockLostError if the grant
        has ended; LockdError if the call failed (then whether it applied is unknown)."""
        if self._shared:
            return
        if self.permits > 1:
            raise ValueError(f"{self.name!r} is a semaphore (permits {self.permits}): only a read-write lock's exclusive grant can be downgraded")
        if not self.held:
            raise self.lost_reason or LockLostError(self.name, self.token, "lease")
        # The exclusive holder asking shared downgrades in place (AcquireRequest.shared).
        req = pb.AcquireRequest(name=self.name, lease_id=self.lease.id, wait=False, shared=True, request_id=str(uuid.uuid4()))
        res = self._router.call("Lock.Acquire", lambda ep: ep.lock.Acquire, req, time.monotonic() + timeout)
        if not res.acquired or res.fencing_token != self.token:
            self._lose("released")
            raise LockLostError(self.name, self.token, "released")
        self._shared = True

    def __enter__(self) -> "Lock":
        return self

    def __repr__(self) -> str:
        kind = f" permits={self.permits}" if self.permits > 1 else " shared" if self._shared else ""
        return f"<lockd.Lock {self.name!r} token={self.token} lease={self.lease.id}{kind}{' lost' if self.lost.is_set() else ''}>"
