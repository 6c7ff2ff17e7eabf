"""What a held lock and a leadership share: a grant of a name to a lease, with its fencing token.

``lost`` is set when the grant's lease is lost (its local deadline passed, or the cluster ended it)
and when this handle gives the grant up. It cannot see the future: work done under the grant should
carry ``token`` to what it protects (``fence_write`` below shows how), and check ``held`` — which
reads the clock — right before acting. ``lockd.Lock`` and ``lockd.Leadership`` are the two kinds.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Optional, Union

import grpc

from .errors import LockdError, LockLostError
from .lease import Lease
from .router import Router

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


class Grant:
    #: What giving the grant up is called in lost_reason.why (``released-here``, ``resigned-here``).
    _ended_here = "released-here"

    def __init__(self, client: "Client", router: Router, name: str, token: int, lease: Lease, owns_lease: bool):
        #: The lock's (or election's) name.
        self.name = name
        #: The fencing token of this grant (strictly increasing per name).
        self.token = token
        #: The lease holding it.
        self.lease = lease
        #: Set once the grant is no longer held (see the module docstring).
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
        """True while neither lost nor given up. Reads the lease's deadline on the clock: check it just before acting."""
        return not self.lost.is_set() and not self.lease.is_lost()

    def _lose(self, why: str) -> None:
        with self._mu:
            if self.lost.is_set():
                return
            self.lost_reason = LockLostError(self.name, self.token, why)
            self.lost.set()

    def _release_call(self, timeout: float) -> bool:
        """The RPC that gives the grant up: whether it did (raises LockdError)."""
        raise NotImplementedError

    def release(self, timeout: float = 10.0) -> bool:
        """Give the grant up (compare-and-delete on the token), revoking the lease if this handle created it.

        Returns whether this call ended it: False when it was no longer held by this token. One
        request id on every attempt, so a retry of an attempt that did release answers True. Idempotent.
        """
        with self._release_mu:
            if self._released is None:
                self._released = self._release(timeout)
            return self._released

    def _release(self, timeout: float) -> bool:
        was_held = self.held
        self._unsubscribe()
        self._lose(self._ended_here)
        released: Optional[bool] = None
        failure: Optional[LockdError] = None
        try:
            released = self._release_call(timeout)
        except LockdError as e:
            # A stale token, or the lock not held at all: not released by this call.
            if e.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                released = False
            else:
                failure = e
        if self._owns_lease:
            try:
                self.lease.revoke(timeout)
                # Revoking ends every grant of the lease: if the release call failed, this released it.
                if released is None:
                    released = was_held
                failure = None
            except LockdError as e:
                failure = failure or e
        if released is None:
            raise failure  # type: ignore[misc]
        return released

    # ---- fenced store under this grant's token -------------------------------------------

    def fence_write(self, key: str, value: Union[bytes, str], **kw) -> int:
        """Fence.Write with this grant's token and ``lock`` set: refused (StaleTokenError) once the grant has ended."""
        return self._client.fence_write(key, value, self.token, lock=self.name, **kw)

    def fence_delete(self, key: str, **kw):
        """Fence.Delete with this grant's token and ``lock`` set."""
        return self._client.fence_delete(key, self.token, lock=self.name, **kw)

    # ---- with ... as grant ---------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.release()
        except LockdError:
            if exc[0] is None:
                raise
            # The body's own error says more than a failed release.
