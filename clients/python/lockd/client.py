"""lockd.Client: the Python client of lockd.v1.

It talks to whichever endpoint leads (see router.py), retries UNAVAILABLE within each call's
deadline, and makes every mutating call (Grant, Revoke, Acquire, Release, CancelWait, SetPermits,
Campaign, Resign, Fence.Write, Fence.Delete) safe to retry by sending one request_id on all its
attempts: the cluster applies it once, also when an attempt lands late. Pass ``request_id=``
yourself to retry a call this process gave up on. Leases keep themselves alive (lease.py); held
locks and leaderships report their loss (grant.py).
"""

from __future__ import annotations

import math
import os
import threading
import time
import uuid
from typing import Callable, Iterator, NamedTuple, Optional, Sequence, Tuple, Union

import grpc

from ._proto import pb
from .election import LeaderInfo, LeaderKey, Leadership, leader_info_or_none
from .errors import LockdError, LockHeldError, LockLostError, fence_error
from .followed_stream import FollowedStream
from .lease import Lease
from .lock import Lock
from .router import Router
from .run import Run, grace_for

DEFAULT_LOCK_TTL_MS = 10_000
#: A PEM file larger than this is not a certificate.
MAX_PEM_BYTES = 1024 * 1024

Pem = Union[bytes, str, None]


class PermitsChange(NamedTuple):
    """What Lock.SetPermits did: the permits before, and how many waiters it granted."""

    previous: int
    granted: int


def _pem(what: str, src: Pem) -> Optional[bytes]:
    """PEM bytes from bytes, PEM text, or a file path (read now: a missing file fails here, not at the first call)."""
    if src is None:
        return None
    if isinstance(src, bytes):
        return src
    if "-----BEGIN " in src:
        return src.encode()
    with open(src, "rb") as f:
        data = f.read(MAX_PEM_BYTES + 1)
    if len(data) > MAX_PEM_BYTES or b"-----BEGIN " not in data:
        raise ValueError(f"the {what} file {src} is not a PEM document")
    return data


def _endpoints(given: Union[str, Sequence[str], None]) -> list:
    if given is None:
        given = os.environ.get("LOCKD_ENDPOINTS") or ",".join(f"127.0.0.1:{p}" for p in range(7001, 7006))
    if isinstance(given, str):
        given = given.split(",")
    out = [e.strip() for e in given if e.strip()]
    if not out:
        raise ValueError("lockd.Client needs at least one endpoint (host:port)")
    return out


def _deadline(timeout: Optional[float]) -> float:
    return math.inf if timeout is None else time.monotonic() + timeout


class Client:
    """A lockd client. ``endpoints``: host:port of any nodes' client ports (a list or "a,b,c";
    default $LOCKD_ENDPOINTS, else 127.0.0.1:7001..7005). TLS: ``ca`` (the CA to trust), and for
    mTLS ``cert`` + ``key`` — each PEM bytes, PEM text or a file path. ``timeout``: seconds a call
    that does not wait may take, retries included."""

    def __init__(
        self,
        endpoints: Union[str, Sequence[str], None] = None,
        *,
        ca: Pem = None,
        cert: Pem = None,
        key: Pem = None,
        timeout: float = 10.0,
        attempt_timeout: float = 2.0,
        discover_timeout: float = 0.5,
        interceptors: Sequence = (),
        channel_options: Sequence[Tuple[str, object]] = (),
    ):
        if (cert is None) != (key is None):
            raise ValueError("a client certificate needs its key: give both cert and key, or neither")
        tls = ca is not None or cert is not None
        creds = grpc.ssl_channel_credentials(_pem("CA certificate", ca), _pem("client key", key), _pem("client certificate", cert)) if tls else None
        options = list(channel_options)

        def channel(address: str) -> grpc.Channel:
            ch = grpc.secure_channel(address, creds, options) if creds else grpc.insecure_channel(address, options)
            return grpc.intercept_channel(ch, *interceptors) if interceptors else ch

        self._timeout = timeout
        self._router = Router(_endpoints(endpoints), channel, attempt_timeout=attempt_timeout, discover_timeout=discover_timeout)
        self._leases: "set[Lease]" = set()
        self._leases_mu = threading.Lock()  # keepalive threads drop lost leases from it
        self._closed = False

    # ---- the cluster ---------------------------------------------------------------------

    @property
    def leader_address(self) -> Optional[str]:
        """The leader's client address as last learned (None when unknown)."""
        return self._router.leader

    def endpoints(self) -> list:
        """Every endpoint known (configured, then learned from the cluster)."""
        return self._router.endpoints()

    def status(self, timeout: Optional[float] = None):
        """Cluster.Status of the leader (or of whichever node answers): a StatusResponse."""
        return self._call("Cluster.Status", lambda ep: ep.cluster.Status, pb.StatusRequest(), timeout)

    def _call(self, what: str, method: Callable, req, timeout: Optional[float], attempt_timeout: bool = True):
        if self._closed:
            raise RuntimeError("lockd.Client is closed")
        return self._router.call(what, method, req, _deadline(self._timeout if timeout is None else timeout), attempt_timeout)

    # ---- leases --------------------------------------------------------------------------

    def grant_lease(self, ttl_ms: int, *, request_id: Optional[str] = None, timeout: Optional[float] = None, keepalive_interval: Optional[float] = None) -> Lease:
        """Grant a lease of ttl_ms and keep it alive on a background thread until close()/revoke() or loss."""
        if not isinstance(ttl_ms, int) or ttl_ms <= 0:
            raise ValueError(f"ttl_ms must be a positive integer, got {ttl_ms!r}")
        req = pb.LeaseGrantRequest(ttl_ms=ttl_ms, request_id=request_id or str(uuid.uuid4()))
        # The first attempt's send time: whichever attempt applied was sent no earlier.
        sent_at = time.monotonic()
        res = self._call("Lease.Grant", lambda ep: ep.lease.Grant, req, timeout)
        if res.lease_id <= 0 or res.ttl_ms <= 0:
            raise LockdError(grpc.StatusCode.INTERNAL, f"Lease.Grant answered an invalid lease {res}")
        lease = Lease(self._router, res.lease_id, res.ttl_ms, sent_at + res.ttl_ms / 1000, keepalive_interval)
        with self._leases_mu:
            self._leases.add(lease)
        lease.on_lost(lambda _r: self._forget(lease))
        return lease

    def _forget(self, lease: Lease) -> None:
        with self._leases_mu:
            self._leases.discard(lease)

    def revoke_lease(self, lease_id: int, *, request_id: Optional[str] = None, timeout: Optional[float] = None) -> None:
        """End a lease by id (releasing its locks). NOT_FOUND if unknown or already gone."""
        self._call("Lease.Revoke", lambda ep: ep.lease.Revoke, pb.LeaseRevokeRequest(lease_id=lease_id, request_id=request_id or str(uuid.uuid4())), timeout)

    def time_to_live(self, lease_id: int, timeout: Optional[float] = None):
        """Lease.TimeToLive: granted_ttl_ms, remaining_ms, locks (a linearizable read)."""
        return self._call("Lease.TimeToLive", lambda ep: ep.lease.TimeToLive, pb.LeaseTimeToLiveRequest(lease_id=lease_id), timeout)

    def list_leases(self, timeout: Optional[float] = None, page_size: int = 0) -> list:
        """Every live lease the caller may see, ascending by id: follows Lease.List's pages to the end."""
        out: list = []
        for page in self.lease_pages(timeout=timeout, page_size=page_size):
            out.extend(page)
        return out

    def lease_pages(self, timeout: Optional[float] = None, page_size: int = 0) -> Iterator[list]:
        """Lease.List one page at a time (page_size 0: the server's default, 1,000; at most 10,000).
        Each page is a linearizable read of its own: a lease live throughout is listed exactly once.
        Pages ascend by id, so each is cut to the ids after the last one yielded: a failover to a
        leader of the release before paging (it answers every lease, ignoring the token) repeats none."""
        token = ""
        last = 0
        while True:
            r = self._call("Lease.List", lambda ep: ep.lease.List, pb.LeaseListRequest(page_size=page_size, page_token=token), timeout)
            fresh = [l for l in r.leases if l.lease_id > last]
            if fresh:
                last = fresh[-1].lease_id
            yield fresh
            token = r.next_page_token
            if not token:
                return

    # ---- locks ---------------------------------------------------------------------------

    def acquire(self, name: str, lease_id: int, *, wait: bool = False, permits: int = 0, shared: bool = False, lock_delay_ms: int = 0, request_id: Optional[str] = None, timeout: Optional[float] = None):
        """One Lock.Acquire for a lease id, answered as the server answers it (an AcquireResponse) — no
        handle, no keepalives; prefer lock(). Retries reuse one request id. A waiting call has no
        deadline unless ``timeout`` is given. ``permits`` > 1: a semaphore; ``shared``: a read lock
        (the writer asking shared downgrades); ``lock_delay_ms``: the name stays ungranted that long
        after this grant's lease ends (AcquireRequest's fields, passed as they are). The answer's
        ``shared`` is the grant's mode now: a retry after a downgrade answers shared. On an election
        name (see campaign()) any Acquire is FailedPreconditionError."""
        req = pb.AcquireRequest(name=name, lease_id=lease_id, wait=wait, permits=permits, shared=shared, lock_delay_ms=lock_delay_ms, request_id=request_id or str(uuid.uuid4()))
        if self._closed:
            raise RuntimeError("lockd.Client is closed")
        deadline = _deadline(timeout if timeout is not None or wait else self._timeout)
        res = self._router.call("Lock.Acquire", lambda ep: ep.lock.Acquire, req, deadline, attempt_timeout=not wait)
        if res.acquired and res.grant_ended:
            raise LockdError(grpc.StatusCode.INTERNAL, f"Lock.Acquire answered both acquired and grant_ended for {name!r}")
        return res

    def lock(self, name: str, *, lease: Optional[Lease] = None, ttl_ms: int = DEFAULT_LOCK_TTL_MS, wait: bool = True, permits: int = 0, shared: bool = False, lock_delay_ms: int = 0, timeout: Optional[float] = None, request_id: Optional[str] = None) -> Lock:
        """Take the lock ``name`` and return its handle, also a context manager::

            with client.lock("name") as lock:
                lock.fence_write("key", b"value")   # carries lock.token
                if lock.lost.is_set(): ...

        Waits in the cluster's FIFO queue (``wait=True``, the default) until granted, ``timeout``
        (DEADLINE_EXCEEDED) or the lease's end (NOT_FOUND); ``wait=False`` raises LockHeldError when
        it is held. Without ``lease``, a lease of ttl_ms is granted for the lock and revoked on
        release (or when acquiring fails). Leaving the ``with`` block releases the lock.
        ``permits``, ``shared`` and ``lock_delay_ms`` are acquire()'s.
        """
        own = lease is None
        if lease is None:
            lease = self.grant_lease(ttl_ms, timeout=timeout)
        try:
            if lease.is_lost():
                raise lease.lost_reason  # type: ignore[misc]
            res = self.acquire(name, lease.id, wait=wait, permits=permits, shared=shared, lock_delay_ms=lock_delay_ms, request_id=request_id, timeout=timeout)
            # A retry of our request was told its grant had ended before we saw it: never ours to use.
            if res.grant_ended:
                raise LockLostError(name, res.ended_fencing_token, "released")
            if not res.acquired:
                raise LockHeldError(name, res.holder_lease_id, res.lock_delay_remaining_ms)
            if res.fencing_token <= 0:
                raise LockdError(grpc.StatusCode.INTERNAL, f"Lock.Acquire granted {name!r} with an invalid token {res.fencing_token}")
            # A retry of an exclusive request after a downgrade is answered shared (a server before
            # AcquireResponse.shared answers false: a shared request stays shared).
            return Lock(self, self._router, name, res.fencing_token, lease, own, permits=permits, shared=shared or res.shared)
        except BaseException as e:
            self._leave_nothing_behind(name, lease, own, wait and not isinstance(e, LockLostError))
            raise

    def _leave_nothing_behind(self, name: str, lease: Lease, own: bool, waited: bool) -> None:
        """After a failed lock() or campaign(): our own lease goes (with any wait or grant it got); a
        caller's lease leaves the queue, and releases the lock if it was granted just as we gave up."""
        if own:
            try:
                lease.revoke()
            except LockdError:
                pass
        elif waited and not lease.is_lost():
            self._abandon_wait(name, lease.id)

    def run(self, name: str, *, ttl_ms: int = DEFAULT_LOCK_TTL_MS, grace_ms: Optional[int] = None, wait: bool = True, permits: int = 0, shared: bool = False, lock_delay_ms: int = 0, timeout: Optional[float] = None) -> Run:
        """Take the lock ``name`` with a lease of its own, for work that must end by the lease's
        trust deadline (as ``lockctl run``); use it as ``with client.run(name) as run:``::

            with client.run("nightly", ttl_ms=10_000) as run:
                step(run.token)                    # LockLostError is raised here once trust runs out
                run.call(["./backup.sh"])          # SIGTERM, then SIGKILL by the deadline

        The work is stopped when only ``grace_ms`` of trust are left (default ttl/4, at most ttl/2)
        or when the cluster ends the grant; leaving the block then raises LockLostError. See lockd/run.py.
        """
        grace = grace_for(ttl_ms, grace_ms)  # a bad grace is refused before anything is acquired
        lock = self.lock(name, ttl_ms=ttl_ms, wait=wait, permits=permits, shared=shared, lock_delay_ms=lock_delay_ms, timeout=timeout)
        return Run(self, lock, grace)

    def try_lock(self, name: str, **kw) -> Optional[Lock]:
        """lock(name, wait=False), or None when another lease holds it."""
        try:
            return self.lock(name, wait=False, **kw)
        except LockHeldError:
            return None

    def _abandon_wait(self, name: str, lease_id: int) -> None:
        try:
            r = self._call("Lock.CancelWait", lambda ep: ep.lock.CancelWait, pb.CancelWaitRequest(name=name, lease_id=lease_id, request_id=str(uuid.uuid4())), min(self._timeout, 5.0))
            if r.fencing_token > 0:
                self.release(name, r.fencing_token, lease_id=lease_id, timeout=min(self._timeout, 5.0))
        except LockdError:
            pass  # best effort: the server drops a cancelled wait after a grace period anyway

    def release(self, name: str, fencing_token: int, *, lease_id: int = 0, request_id: Optional[str] = None, timeout: Optional[float] = None) -> bool:
        """Release by name and token (compare-and-delete): False when the token is stale. ``lease_id``
        picks the holder when one entry granted the token to several (shared readers, a semaphore)."""
        req = pb.ReleaseRequest(name=name, fencing_token=fencing_token, lease_id=lease_id, request_id=request_id or str(uuid.uuid4()))
        return self._call("Lock.Release", lambda ep: ep.lock.Release, req, timeout).released

    def inspect(self, name: str, timeout: Optional[float] = None):
        """Lock.Inspect: held, fencing_token, holder_lease_id, waiting_lease_ids, and for the recipes
        permits, holders (lease_id, fencing_token, shared, lock_delay_ms), waiting_shared,
        lock_delay_until_ms / lock_delay_remaining_ms (a linearizable read)."""
        return self._call("Lock.Inspect", lambda ep: ep.lock.Inspect, pb.InspectRequest(name=name), timeout)

    def observe(self, name: str) -> "FollowedStream":
        """Lock.Observe: an iterator of the lock's changes as ``lockd.v1`` LockEvent messages
        (``type`` a string — ACQUIRED, RELEASED, EXPIRED, QUEUED, ...; skip a type you do not know),
        reopened across failures. Changes made while no stream was open are not told: after every
        reopen it first yields ``LockEvent(name, type="RESYNC")`` without ``state``
        (``HasField("state")`` is false): call ``inspect(name)`` then. A RESYNC the server sends (a
        node that caught up by snapshot) carries ``state``: take it as the truth. ``close()`` it
        (or use ``with``) from any thread to stop; ``.opened`` is set once subscribed."""
        if self._closed:
            raise RuntimeError("lockd.Client is closed")
        return FollowedStream(self._router, lambda ep: ep.lock.Observe(pb.ObserveRequest(name=name)), lambda m: m, reopened=lambda: pb.LockEvent(name=name, type="RESYNC"))

    def set_permits(self, name: str, permits: int, *, request_id: Optional[str] = None, timeout: Optional[float] = None) -> PermitsChange:
        """Lock.SetPermits: change a held or awaited semaphore's permits (1..1024); growing grants the
        waiters that now fit at once. FailedPreconditionError below the current holders (or on a
        read-write lock or an election), NotFoundError when nobody holds or waits for ``name``, PermissionDeniedError
        for a non-admin on a cluster with --acl."""
        if not isinstance(permits, int) or isinstance(permits, bool) or not 0 < permits < 2**32:
            raise ValueError(f"permits must be a positive integer, got {permits!r}")
        req = pb.SetPermitsRequest(name=name, permits=permits, request_id=request_id or str(uuid.uuid4()))
        r = self._call("Lock.SetPermits", lambda ep: ep.lock.SetPermits, req, timeout)
        return PermitsChange(r.previous, r.granted)

    # ---- leader election -----------------------------------------------------------------

    def campaign(self, name: str, value: str = "", *, lease: Optional[Lease] = None, ttl_ms: int = DEFAULT_LOCK_TTL_MS, timeout: Optional[float] = None, request_id: Optional[str] = None) -> Leadership:
        """Campaign in election ``name`` and return once this lease leads it, a context manager::

            with client.campaign("scheduler", "node-a:7001") as leadership:
                leadership.token                  # the leadership's fencing token
                leadership.proclaim("node-a:7002")
                if leadership.lost.is_set(): ...  # its lease was lost (or it resigned)

        Waits in FIFO order among campaigners, with no deadline unless ``timeout``
        (DeadlineExceededError, leaving the queue). NotFoundError the moment the lease ends while
        waiting. Without ``lease``, a lease of ttl_ms is granted for the campaign, kept alive, and
        revoked on resign (or when campaigning fails). Leaving the ``with`` block resigns.
        """
        own = lease is None
        if lease is None:
            lease = self.grant_lease(ttl_ms, timeout=timeout)
        try:
            if lease.is_lost():
                raise lease.lost_reason  # type: ignore[misc]
            req = pb.CampaignRequest(name=name, lease_id=lease.id, value=value, request_id=request_id or str(uuid.uuid4()))
            if self._closed:
                raise RuntimeError("lockd.Client is closed")
            res = self._router.call("Election.Campaign", lambda ep: ep.election.Campaign, req, _deadline(timeout), attempt_timeout=False)
            key = LeaderKey.from_pb(res.leader)
            if key.fencing_token <= 0 or key.lease_id != lease.id or key.name != name:
                raise LockdError(grpc.StatusCode.INTERNAL, f"Election.Campaign answered a leadership that is not ours: {key}")
            return Leadership(self, self._router, key, value, lease, own)
        except BaseException:
            self._leave_nothing_behind(name, lease, own, True)
            raise

    def proclaim(self, key: LeaderKey, value: str, *, timeout: Optional[float] = None) -> None:
        """Election.Proclaim: set the leader's value; FailedPreconditionError unless ``key`` leads."""
        self._call("Election.Proclaim", lambda ep: ep.election.Proclaim, pb.ProclaimRequest(leader=key.to_pb(), value=value), timeout)

    def leader(self, name: str, *, timeout: Optional[float] = None) -> Optional[LeaderInfo]:
        """Election.Leader: who leads ``name`` and its value (a linearizable read), None when nobody leads."""
        return leader_info_or_none(lambda: self._call("Election.Leader", lambda ep: ep.election.Leader, pb.LeaderRequest(name=name), timeout))

    def resign(self, key: LeaderKey, *, request_id: Optional[str] = None, timeout: Optional[float] = None) -> bool:
        """Election.Resign: end the leadership ``key`` (the next campaigner leads); False if it no longer led."""
        req = pb.ResignRequest(leader=key.to_pb(), request_id=request_id or str(uuid.uuid4()))
        return self._call("Election.Resign", lambda ep: ep.election.Resign, req, timeout).resigned

    def observe_leader(self, name: str) -> "FollowedStream[LeaderInfo]":
        """Election.Observe: an iterator of LeaderInfo — the current leadership first (if any), then
        every change (a new leader, a Proclaim, nobody: ``key`` None), reopened across failures.
        ``close()`` it (or use ``with``) from any thread to stop."""
        if self._closed:
            raise RuntimeError("lockd.Client is closed")
        return FollowedStream(self._router, lambda ep: ep.election.Observe(pb.LeaderRequest(name=name)), LeaderInfo.from_pb)

    # ---- fenced store --------------------------------------------------------------------

    def fence_write(self, key: str, value: Union[bytes, str], fencing_token: int, *, lock: str = "", request_id: Optional[str] = None, timeout: Optional[float] = None) -> int:
        """Write under a fencing token; returns the key's highest accepted token. A token below the
        key's highest — or, with ``lock``, not that lock's live grant — raises StaleTokenError."""
        data = value.encode() if isinstance(value, str) else bytes(value)
        req = pb.FenceWriteRequest(key=key, value=data, fencing_token=fencing_token, lock=lock, request_id=request_id or str(uuid.uuid4()))
        try:
            return self._call("Fence.Write", lambda ep: ep.fence.Write, req, timeout).highest_token
        except LockdError as e:
            raise fence_error(e) from None

    def fence_delete(self, key: str, fencing_token: int, *, lock: str = "", request_id: Optional[str] = None, timeout: Optional[float] = None) -> Tuple[bool, int]:
        """Delete a key, fenced like a write: (deleted, highest token)."""
        req = pb.FenceDeleteRequest(key=key, fencing_token=fencing_token, lock=lock, request_id=request_id or str(uuid.uuid4()))
        try:
            r = self._call("Fence.Delete", lambda ep: ep.fence.Delete, req, timeout)
        except LockdError as e:
            raise fence_error(e) from None
        return r.deleted, r.highest_token

    def fence_read(self, key: str, timeout: Optional[float] = None) -> Tuple[bytes, int]:
        """(value, token that wrote it); a key never written: (b"", 0)."""
        r = self._call("Fence.Read", lambda ep: ep.fence.Read, pb.FenceReadRequest(key=key), timeout)
        return r.value, r.fencing_token

    # ---- closing -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every lease this client keeps alive (lost: closed) and close all connections."""
        if self._closed:
            return
        self._closed = True
        with self._leases_mu:
            leases = list(self._leases)
        for lease in leases:
            lease.close()
        self._router.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
