"""Leader election (lockd.v1.Election): a leadership is the grant of the election's mutex.

The leader of election ``name`` is the holder of the lock ``name``; its key is that grant (name,
lease, fencing token), so a ``Leadership`` is a grant like a ``Lock`` (grant.py): ``lost`` is set
when its lease is lost — the cluster ends the leadership with the lease, no phantom leader — or when
this handle resigns; ``token`` fences like a lock's (``fence_write`` binds the write to it).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import grpc

from ._proto import pb
from .errors import FailedPreconditionError, LockdError
from .grant import Grant
from .lease import Lease
from .router import Router

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client


@dataclass(frozen=True)
class LeaderKey:
    """A leadership: the election's name, the leading lease, the grant's fencing token."""

    name: str
    lease_id: int
    fencing_token: int

    def to_pb(self):
        return pb.LeaderKey(name=self.name, lease_id=self.lease_id, fencing_token=self.fencing_token)

    @staticmethod
    def from_pb(k) -> "LeaderKey":
        return LeaderKey(k.name, k.lease_id, k.fencing_token)


@dataclass(frozen=True)
class LeaderInfo:
    """An election's leadership at some moment: ``key`` None when nobody leads (then ``value`` is "")."""

    key: Optional[LeaderKey]
    value: str

    @staticmethod
    def from_pb(r) -> "LeaderInfo":
        return LeaderInfo(LeaderKey.from_pb(r.leader), r.value) if r.has_leader else LeaderInfo(None, "")


class Leadership(Grant):
    """This client leads an election (``Client.campaign``): a context manager that resigns on exit."""

    _ended_here = "resigned-here"

    def __init__(self, client: "Client", router: Router, key: LeaderKey, value: str, lease: Lease, owns_lease: bool):
        super().__init__(client, router, key.name, key.fencing_token, lease, owns_lease)
        #: The leadership key (what Proclaim and Resign name).
        self.key = key
        #: The value last proclaimed by this handle (the campaign's at first).
        self.value = value

    def proclaim(self, value: str, timeout: float = 10.0) -> None:
        """Set the leader's value. FailedPreconditionError if this key no longer leads (then ``lost`` is set)."""
        try:
            self._client.proclaim(self.key, value, timeout=timeout)
        except FailedPreconditionError:
            self._lose("superseded")
            raise
        self.value = value

    def resign(self, timeout: float = 10.0) -> bool:
        """Give the leadership up (the next campaigner leads), revoking the lease if the campaign
        created it. Whether this call ended it; idempotent. The same as ``release()``."""
        return self.release(timeout)

    def _release_call(self, timeout: float) -> bool:
        req = pb.ResignRequest(leader=self.key.to_pb(), request_id=str(uuid.uuid4()))
        return self._router.call("Election.Resign", lambda ep: ep.election.Resign, req, time.monotonic() + timeout).resigned

    def __enter__(self) -> "Leadership":
        return self

    def __repr__(self) -> str:
        return f"<lockd.Leadership {self.name!r} token={self.token} lease={self.lease.id} value={self.value!r}{' lost' if self.lost.is_set() else ''}>"


def leader_info_or_none(fn) -> Optional[LeaderInfo]:
    """Election.Leader: NOT_FOUND (nobody leads) as None."""
    try:
        return LeaderInfo.from_pb(fn())
    except LockdError as e:
        if e.code == grpc.StatusCode.NOT_FOUND:
            return None
        raise
