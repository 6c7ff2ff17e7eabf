"""Which endpoint to call, and unary calls retried across endpoints.

The same contract as the TypeScript client (src/client/router.ts). Any node accepts any unary call
(followers forward), but the leader answers fastest, so calls go to the known leader; when none is
known, to the leader named by any node's Cluster.Status, else to the endpoints in rotation.
UNAVAILABLE — and an attempt that hung past its own timeout — is retried until the caller's
deadline: at once when the failure named a leader in its ``lockd-leader`` trailer, else after a
jittered backoff. Every other status is the answer.

The caller builds the request once, so every attempt of one call carries the same request_id (see
proto/lockd.proto, "Request ids"): a retry of an attempt that did apply is answered from its outcome.
"""

from __future__ import annotations

import math
import random
import threading
import time
from concurrent.futures import CancelledError
from typing import Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

import grpc

from ._proto import pb, pb_grpc
from .errors import LockdError, from_rpc_error, lockd_error

T = TypeVar("T")

#: Redirects followed at once in a row before backing off: two nodes naming each other cannot spin.
MAX_IMMEDIATE_REDIRECTS = 2
#: grpc-js on the server misreads a grpc-timeout above 2^31-1 ms and fails the call at once: a
#: longer deadline is kept here and the call cancelled when it passes (see the Acquire rpc).
MAX_WIRE_TIMEOUT_S = (2**31 - 1) / 1000


class Endpoint:
    """One node's channel and its lockd.v1 stubs."""

    def __init__(self, address: str, channel: grpc.Channel):
        self.address = address
        self.channel = channel
        self.lease = pb_grpc.LeaseStub(channel)
        self.lock = pb_grpc.LockStub(channel)
        self.fence = pb_grpc.FenceStub(channel)
        self.cluster = pb_grpc.ClusterStub(channel)
        self.election = pb_grpc.ElectionStub(channel)


class Backoff:
    """Jittered exponential backoff, in seconds."""

    def __init__(self, initial: float, maximum: float):
        self.initial, self.maximum, self.attempt = initial, maximum, 0

    def next(self) -> float:
        base = min(self.maximum, self.initial * (2**self.attempt))
        self.attempt += 1
        return base / 2 + random.random() * base / 2

    def reset(self) -> None:
        self.attempt = 0


def remaining(deadline: float) -> float:
    """Seconds until a monotonic deadline (math.inf: none)."""
    return deadline - time.monotonic()


class Router:
    def __init__(
        self,
        endpoints: Sequence[str],
        channel_factory: Callable[[str], grpc.Channel],
        attempt_timeout: float = 2.0,
        discover_timeout: float = 0.5,
        backoff_initial: float = 0.05,
        backoff_max: float = 1.0,
    ):
        if not endpoints:
            raise ValueError("lockd.Client needs at least one endpoint")
        self._factory = channel_factory
        self._attempt_timeout = attempt_timeout
        self._discover_timeout = discover_timeout
        self._backoff = (backoff_initial, backoff_max)
        self._mu = threading.Lock()
        self._known: List[str] = list(dict.fromkeys(endpoints))
        self._channels: Dict[str, Endpoint] = {}
        self._leader: Optional[str] = None
        self._cursor = 0
        self._closed = False

    # ---- what is known -------------------------------------------------------------------

    def endpoints(self) -> List[str]:
        """Every endpoint known: the configured ones, then members and leaders learned from the cluster."""
        with self._mu:
            return list(self._known)

    @property
    def leader(self) -> Optional[str]:
        """The leader's client address as last learned, or None."""
        return self._leader

    @property
    def closed(self) -> bool:
        """Whether close() was called (the client is closed)."""
        return self._closed

    def _learn(self, address: str) -> None:
        if address and address not in self._known:
            self._known.append(address)

    def note_leader(self, address: str) -> None:
        with self._mu:
            self._learn(address)
            self._leader = address

    def demote(self, address: str) -> None:
        """``address`` failed without naming a leader: stop preferring it."""
        with self._mu:
            if self._leader == address:
                self._leader = None

    def endpoint(self, address: str) -> Endpoint:
        with self._mu:
            if self._closed:
                raise RuntimeError("lockd.Client is closed")
            ep = self._channels.get(address)
            if ep is None:
                ep = self._channels[address] = Endpoint(address, self._factory(address))
            return ep

    def on_failure(self, address: str, err: LockdError, attempt_timed_out: bool) -> Tuple[bool, bool]:
        """A call or stream on ``address`` failed: (retry elsewhere?, was a new leader named?)."""
        if err.code == grpc.StatusCode.UNAVAILABLE:
            hint = err.leader
            if hint and hint != address:
                self.note_leader(hint)
                return True, True
            self.demote(address)
            return True, False
        if err.code == grpc.StatusCode.DEADLINE_EXCEEDED and attempt_timed_out:
            self.demote(address)
            return True, False
        return False, False

    # ---- picking -------------------------------------------------------------------------

    def pick(self, deadline: float) -> Endpoint:
        """The leader if known, else discover it (bounded), else the next endpoint in rotation."""
        if self._leader is None:
            self.discover(deadline)
        leader = self._leader
        if leader is not None:
            return self.endpoint(leader)
        with self._mu:
            address = self._known[self._cursor % len(self._known)]
            self._cursor += 1
        return self.endpoint(address)

    def discover(self, deadline: float) -> Optional[str]:
        """Ask every known endpoint's Cluster.Status who leads; the first answer naming a leader wins."""
        timeout = max(0.0, min(remaining(deadline), self._discover_timeout))
        found = threading.Event()
        lock = threading.Lock()
        left = [0]
        winner: List[str] = []

        def done(fut) -> None:
            try:
                st = fut.result()
            except (grpc.RpcError, CancelledError):
                st = None
            with lock:
                if st is not None:
                    with self._mu:
                        for m in st.members:
                            self._learn(m.address)
                    if st.leader_address and not winner:
                        winner.append(st.leader_address)
                        self.note_leader(st.leader_address)
                left[0] -= 1
                if winner or left[0] == 0:
                    found.set()

        addresses = self.endpoints()
        left[0] = len(addresses)
        futures = []
        for address in addresses:
            futures.append(self.endpoint(address).cluster.Status.future(pb.StatusRequest(), timeout=timeout))
        for f in futures:
            f.add_done_callback(done)
        found.wait(timeout + 0.1)
        return winner[0] if winner else None

    # ---- calls ---------------------------------------------------------------------------

    def call(self, what: str, attempt: Callable[[Endpoint], Callable], request, deadline: float = math.inf, attempt_timeout: bool = True):
        """One unary call, retried on UNAVAILABLE across endpoints until ``deadline`` (monotonic).

        ``attempt(ep)`` returns the stub method to call; ``request`` is sent unchanged on every
        attempt (one request_id). Raises LockdError.
        """
        backoff = Backoff(*self._backoff)
        redirects = 0
        last: Optional[LockdError] = None
        while True:
            if remaining(deadline) <= 0:
                raise last or lockd_error(grpc.StatusCode.DEADLINE_EXCEEDED, f"{what}: deadline exceeded before an endpoint answered")
            ep = self.pick(deadline)
            attempt_deadline = min(deadline, time.monotonic() + self._attempt_timeout) if attempt_timeout else deadline
            try:
                return self._once(attempt(ep), request, attempt_deadline)
            except LockdError as err:
                # The caller's deadline cut a retry short: the UNAVAILABLE before it says more about why.
                if err.code == grpc.StatusCode.DEADLINE_EXCEEDED and attempt_deadline >= deadline and last is not None:
                    raise last from err
                retry, redirected = self.on_failure(ep.address, err, attempt_deadline < deadline)
                if not retry:
                    raise
                last = err
                if redirected and redirects < MAX_IMMEDIATE_REDIRECTS:
                    redirects += 1
                    continue
                redirects = 0
                pause = backoff.next()
                if pause >= remaining(deadline):
                    raise
                time.sleep(pause)

    @staticmethod
    def _once(method, request, deadline: float):
        left = remaining(deadline)
        if left <= 0:
            raise lockd_error(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded")
        wire = left if left <= MAX_WIRE_TIMEOUT_S else None
        fut = method.future(request, timeout=wire)
        try:
            return fut.result(timeout=None if wire is not None or math.isinf(left) else left)
        except grpc.FutureTimeoutError:
            fut.cancel()
            raise lockd_error(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded (enforced by the client)") from None
        except grpc.RpcError as e:
            raise from_rpc_error(e) from None
        except BaseException:
            fut.cancel()  # KeyboardInterrupt and the like: do not leave the call running
            raise

    def close(self) -> None:
        with self._mu:
            self._closed = True
            channels, self._channels = list(self._channels.values()), {}
        for ep in channels:
            ep.channel.close()
