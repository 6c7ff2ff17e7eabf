"""A held lock: its fencing token, a ``lost`` event, and release on leaving a ``with`` block.

``lost`` is set when the lock's lease is lost (its local deadline passed, or the cluster ended it)
and when this handle releases the lock. It cannot see the future: work done under the lock should
carry ``token`` to what it protects (``fence_write`` below shows how), and check ``held`` — which
reads the clock — right before acting.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import TYPE_CHECKING, Optional, Union

import grpc

from ._proto import pb
from .errors import LockdError, LockLostError
from .lease import Lease
from .router import Router

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


class Lock:
    def __init__(self, client: "Client", router: Router, name: str, token: int, lease: Lease, owns_lease: bool):
        #: The lock's name.
        self.name = name
        #: The fencing token of this grant (strictly increasing per name).
        self.token = token
        #: The lease holding it.
        self.lease = lease
        #: Set once the lock is no longer held by this grant (see the module docstring).
        self.lost = threading.Event()
        #: Why (a LockLostError), once lost.
        self.lost_reason: Optional[LockLostError] = None
        self._client = client
        self._router = router
        self._owns_lease = owns_lease
        self._mu = threading.Lock()
        self._release_mu = threading.Lock()  # one release at a time: a second caller gets the first's answer
        self._released: Optional[bool] = None
        self._unsubscribe = lease.on_lost(lambda _reason: self._lose("lease"))

    @property
    def held(self) -> bool:
        """True while neither lost nor released. Reads the lease's deadline on the clock: check it just before acting."""
        return not self.lost.is_set() and not self.lease.is_lost()

    def _lose(self, why: str) -> None:
        with self._mu:
            if self.lost.is_set():
                return
            self.lost_reason = LockLostError(self.name, self.token, why)
            self.lost.set()

    def release(self, timeout: float = 10.0) -> bool:
        """Release the lock (compare-and-delete on the token), revoking the lease if this handle created it.

        Returns whether this call released it: False when it was no longer held by this token. One
        request id on every attempt, so a retry of an attempt that did release answers True. Idempotent.
        """
        with self._release_mu:
            if self._released is None:
                self._released = self._release(timeout)
            return self._released

    def _release(self, timeout: float) -> bool:
        was_held = self.held
        self._unsubscribe()
        self._lose("released-here")
        released: Optional[bool] = None
        failure: Optional[LockdError] = None
        # lease_id: readers granted by one entry share its token; without it their Release is refused.
        req = pb.ReleaseRequest(name=self.name, fencing_token=self.token, lease_id=self.lease.id, request_id=str(uuid.uuid4()))
        try:
            released = self._router.call("Lock.Release", lambda ep: ep.lock.Release, req, time.monotonic() + timeout).released
        except LockdError as e:
            # A stale token, or the lock not held at all: not released by this call.
            if e.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                released = False
            else:
                failure = e
        if self._owns_lease:
            try:
                self.lease.revoke(timeout)
                # Revoking ends every lock of the lease: if the Release call failed, this released it.
                if released is None:
                    released = was_held
                failure = None
            except LockdError as e:
                failure = failure or e
        if released is None:
            raise failure  # type: ignore[misc]
        return released

    # ---- fenced store under this lock's token --------------------------------------------

    def fence_write(self, key: str, value: Union[bytes, str], **kw) -> int:
        """Fence.Write with this grant's token and ``lock`` set: refused (StaleTokenError) once the grant has ended."""
        return self._client.fence_write(key, value, self.token, lock=self.name, **kw)

    def fence_delete(self, key: str, **kw):
        """Fence.Delete with this grant's token and ``lock`` set."""
        return self._client.fence_delete(key, self.token, lock=self.name, **kw)

    # ---- with client.lock(...) as lock -----------------------------------------------------

    def __enter__(self) -> "Lock":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.release()
        except LockdError:
            if exc[0] is None:
                raise
            # The body's own error says more than a failed release.

    def __repr__(self) -> str:
        return f"<lockd.Lock {self.name!r} token={self.token} lease={self.lease.id}{' lost' if self.lost.is_set() else ''}>"
