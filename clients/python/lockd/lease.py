"""A lease kept alive on a background thread, and the moment its holder must stop trusting it.

The contract is the TypeScript client's (src/client/lease.ts, lease-deadline.ts; docs/design.md §4): the
lease is trusted until ``sendTime(last acknowledged keepalive) + ttl`` on this client's monotonic
clock (``time.monotonic()``). The cluster sets each deadline after the request was sent, at
``now + ttl + margin`` on a logical clock that never runs faster than real time, so it cannot expire
the lease before that moment. ``lost`` (a ``threading.Event``) is set then — or at once when the
cluster says the lease is gone (ttl 0, NOT_FOUND), or on close()/revoke().

Keepalives go every ttl/3 on one KeepAlive stream to the leader (a follower proxies it). Each answer
acknowledges the oldest unanswered request sent on that stream, so it is matched to that request's
send time — if the server ever answered fewer times than asked, to an older one: an earlier
deadline, never a later one. A stream that fails, or leaves a keepalive unanswered for two periods,
is replaced (following a ``lockd-leader`` hint at once); none of that makes the lease lost — only
its deadline passing does.

A thread that is not scheduled (a long GC pause, a stopped process) sets ``lost`` late: ``is_lost()``
(and ``Lock.held``) also read the clock, so they are right the moment the holder runs again.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections import deque
from typing import Callable, List, Optional

import grpc

from ._proto import pb
from .errors import LeaseLostError, LockdError, from_rpc_error
from .router import Backoff, Router

#: How long a keepalive may stay unanswered (at least) before its stream is taken as stuck.
STUCK_FLOOR_S = 0.5


class _Stream:
    """One KeepAlive stream: requests fed from a queue, answers read on their own thread."""

    def __init__(self, lease: "Lease", address: str, stub):
        self.address = address
        self.unanswered: deque = deque()  # send times (monotonic) of keepalives not yet answered
        self._requests: "queue.SimpleQueue" = queue.SimpleQueue()
        self._call = stub.KeepAlive(self._feed())
        self._lease = lease

    def start_reading(self) -> None:
        """Read answers on a thread of their own. Called once the lease has made this its stream:
        a stream that fails at once (its node is down) must find itself current, or its end is
        ignored and the lease waits on a dead stream."""
        threading.Thread(target=self._read, name=f"lockd-keepalive-{self._lease.id}", daemon=True).start()

    def _feed(self):
        while True:
            req = self._requests.get()
            if req is None:
                return
            yield req

    def send(self, req, at: float) -> None:
        self.unanswered.append(at)
        self._requests.put(req)

    def _read(self) -> None:
        try:
            for res in self._call:
                self._lease._on_answer(self, res)
            self._lease._on_end(self, None)
        except grpc.RpcError as e:
            self._lease._on_end(self, from_rpc_error(e))
        finally:
            # Ends _feed: grpc's thread consuming it would otherwise wait in get() forever.
            self._requests.put(None)

    def close(self) -> None:
        self._requests.put(None)
        self._call.cancel()


class Lease:
    """A lease this client keeps alive until close(), revoke() or its loss."""

    def __init__(self, router: Router, lease_id: int, ttl_ms: int, initial_deadline: float, keepalive_interval: Optional[float] = None, renew_now: bool = True):
        if lease_id <= 0 or ttl_ms <= 0:
            raise ValueError(f"bad lease {lease_id} (ttl {ttl_ms} ms)")
        if keepalive_interval is not None and not keepalive_interval > 0:
            raise ValueError(f"keepalive_interval must be positive seconds, got {keepalive_interval!r}")
        #: The lease id.
        self.id = lease_id
        #: The TTL the cluster granted (ms).
        self.ttl_ms = ttl_ms
        #: Set the moment the lease can no longer be trusted (see the module docstring).
        self.lost = threading.Event()
        #: Why it was lost (a LeaseLostError), once it is.
        self.lost_reason: Optional[LeaseLostError] = None
        #: time.monotonic() when it was found lost.
        self.lost_at: Optional[float] = None
        self._router = router
        self._deadline = initial_deadline
        self._interval = keepalive_interval if keepalive_interval is not None else ttl_ms / 3000
        self._cond = threading.Condition()
        self._stream: Optional[_Stream] = None
        self._done = False
        self._next_send = time.monotonic() if renew_now else time.monotonic() + self._interval
        self._backoff = Backoff(0.05, 1.0)
        self._listeners: List[Callable[[LeaseLostError], None]] = []
        self._thread = threading.Thread(target=self._run, name=f"lockd-lease-{lease_id}", daemon=True)
        self._thread.start()

    # ---- what the holder reads -----------------------------------------------------------

    @property
    def deadline(self) -> float:
        """The time.monotonic() until which the lease is trusted."""
        return self._deadline

    def remaining(self) -> float:
        """Seconds the lease is still trusted for (0 once lost)."""
        return 0.0 if self.is_lost() else max(0.0, self._deadline - time.monotonic())

    def is_lost(self) -> bool:
        """True once the lease can no longer be trusted; reads the clock, so it is right at once after a pause."""
        if not self.lost.is_set() and time.monotonic() >= self._deadline:
            self._lose("expired", "no keepalive was acknowledged in time")
        return self.lost.is_set()

    def on_lost(self, fn: Callable[[LeaseLostError], None]) -> Callable[[], None]:
        """Call ``fn(reason)`` once when the lease is lost (at once if it already is). Returns a
        function that unsubscribes ``fn`` (a lock released before its lease ends lets go of it)."""
        with self._cond:
            if not self._done:
                self._listeners.append(fn)
                return lambda: self._unsubscribe(fn)
        fn(self.lost_reason)  # type: ignore[arg-type]
        return lambda: None

    def _unsubscribe(self, fn) -> None:
        with self._cond:
            if fn in self._listeners:
                self._listeners.remove(fn)

    # ---- ending it -----------------------------------------------------------------------

    def close(self) -> None:
        """Stop keepalives: the lease is no longer trusted here and expires on the cluster after its TTL."""
        self._lose("closed")

    def revoke(self, timeout: float = 10.0, request_id: Optional[str] = None) -> None:
        """End the lease on the cluster now (releasing its locks). Already gone: fine."""
        # Not trusted from before the request leaves: the revoke may apply even if the call fails.
        self._lose("revoked")
        req = pb.LeaseRevokeRequest(lease_id=self.id, request_id=request_id or str(uuid.uuid4()))
        try:
            self._router.call("Lease.Revoke", lambda ep: ep.lease.Revoke, req, time.monotonic() + timeout)
        except LockdError as e:
            if e.code != grpc.StatusCode.NOT_FOUND:
                raise

    # ---- the keepalive thread ------------------------------------------------------------

    def _run(self) -> None:
        while True:
            stale: Optional[_Stream] = None
            with self._cond:
                if self._done:
                    return
                now = time.monotonic()
                if now >= self._deadline:
                    break
                if now < self._next_send:
                    self._cond.wait(min(self._next_send, self._deadline) - now)
                    continue
                self._next_send = now + self._interval
                stream = self._stream
                if stream is not None and stream.unanswered and now - stream.unanswered[0] > max(2 * self._interval, STUCK_FLOOR_S):
                    # No answer for too long: the node may be hung (paused, partitioned). Try another.
                    self._router.demote(stream.address)
                    stale, stream, self._stream = stream, None, None
            if stale is not None:
                stale.close()
            if stream is None:
                stream = self._open()
            if stream is not None:
                self._send_keepalive(stream)
        self._lose("expired", "no keepalive was acknowledged in time")

    def _open(self) -> Optional[_Stream]:
        try:
            ep = self._router.pick(min(self._deadline, time.monotonic() + 1.0))
            stream = _Stream(self, ep.address, ep.lease)
        except RuntimeError as e:  # the client was closed under us: nothing left to keep alive
            self._lose("closed", str(e))
            return None
        with self._cond:
            if self._done:
                stream.close()
                return None
            self._stream = stream
        stream.start_reading()
        return stream

    def _send_keepalive(self, stream: _Stream) -> None:
        with self._cond:
            if self._done or stream is not self._stream:
                return
            # The send time is taken before the request is queued: it leaves later, never earlier.
            stream.send(pb.LeaseKeepAliveRequest(lease_id=self.id), time.monotonic())

    def _on_answer(self, stream: _Stream, res) -> None:
        with self._cond:
            if self._done or stream is not self._stream or res.lease_id != self.id:
                return
            if res.ttl_ms <= 0:
                gone = True
            else:
                gone = False
                sent_at = stream.unanswered.popleft() if stream.unanswered else None
                if sent_at is None:
                    return
                if time.monotonic() >= self._deadline:
                    late = True
                else:
                    late = False
                    self._deadline = max(self._deadline, sent_at + res.ttl_ms / 1000)
                    self._backoff.reset()
                    self._cond.notify_all()
        if gone:
            self._lose("gone", "the cluster reports the lease gone (ttl 0)")
        elif late:
            self._lose("expired", "a keepalive was acknowledged only after the local deadline")

    def _on_end(self, stream: _Stream, err: Optional[LockdError]) -> None:
        with self._cond:
            if self._done or stream is not self._stream:
                return
            self._stream = None
            if err is not None and err.code == grpc.StatusCode.NOT_FOUND:
                gone = True
            else:
                gone = False
                redirected = False
                if err is not None:
                    _, redirected = self._router.on_failure(stream.address, err, False)
                    if err.code != grpc.StatusCode.UNAVAILABLE and not redirected:
                        self._router.demote(stream.address)
                self._next_send = time.monotonic() + (0 if redirected else self._backoff.next())
                self._cond.notify_all()
        if gone:
            self._lose("gone", err.details if err else "")

    def _lose(self, why: str, detail: str = "") -> None:
        with self._cond:
            if self._done:
                return
            self._done = True
            self.lost_at = time.monotonic()
            self.lost_reason = LeaseLostError(self.id, why, detail)
            stream, self._stream = self._stream, None
            listeners, self._listeners = self._listeners, []
            self.lost.set()
            self._cond.notify_all()
        if stream is not None:
            stream.close()
        for fn in listeners:
            fn(self.lost_reason)
