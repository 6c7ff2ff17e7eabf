"""A server stream followed across failures (the TypeScript client's followed-stream.ts).

Each message is mapped and yielded; when the stream ends (UNAVAILABLE, a node going away, or a clean
end) it is reopened at the leader — at once when a ``lockd-leader`` trailer named a new one, else
after a jittered backoff. Any other status ends the iteration with its LockdError (e.g.
RESOURCE_EXHAUSTED for a reader too slow to keep up). ``close()``, from any thread, or closing the client, ends it quietly.
Messages sent while no stream was open are missed: a stream whose server sends the current state
first on every open (Election.Observe) resynchronises by itself; for one that does not (Lock.Observe),
``reopened()`` makes the message yielded first on every open after the first (a marker: look again). Iterate it from one thread at a
time (it is a generator); close() may come from any.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Generic, Iterator, Optional, TypeVar

import grpc

from .errors import LockdError, from_rpc_error
from .router import Backoff, Endpoint, Router

Out = TypeVar("Out")


class FollowedStream(Generic[Out]):
    def __init__(self, router: Router, open_stream: Callable[[Endpoint], Iterator], convert: Callable[[object], Out], reopened: Optional[Callable[[], Out]] = None):
        self._router = router
        self._reopened = reopened
        self._open = open_stream
        self._convert = convert
        self._mu = threading.Lock()
        self._call: Optional[grpc.Call] = None
        self._closed = threading.Event()
        #: Set once a stream is subscribed on the server (after the first ``next()`` has opened it).
        self.opened = threading.Event()
        self._messages = self._follow()

    def __iter__(self) -> "FollowedStream[Out]":
        return self

    def __next__(self) -> Out:
        return next(self._messages)

    def _follow(self):
        backoff = Backoff(0.05, 1.0)
        opened_before = False
        while not self._closed.is_set():
            try:
                ep = self._router.pick(time.monotonic() + 1.0)
            except RuntimeError:  # the client was closed: nothing left to follow
                return
            call = self._open(ep)
            with self._mu:
                if self._closed.is_set():
                    call.cancel()
                    return
                self._call = call
            err: Optional[LockdError] = None
            try:
                # The server sends its headers once the subscription is active: nothing after is missed.
                call.initial_metadata()
                if call.is_active():
                    self.opened.set()
                    if opened_before and self._reopened is not None:
                        yield self._reopened()
                    opened_before = True
                for message in call:
                    backoff.reset()
                    yield self._convert(message)
            except grpc.RpcError as e:
                err = from_rpc_error(e)
            finally:
                call.cancel()
            if self._closed.is_set() or self._router.closed:  # a closed client cancels its calls
                return
            redirected = False
            if err is not None:
                retry, redirected = self._router.on_failure(ep.address, err, False)
                if not retry:
                    raise err
            if not redirected and self._closed.wait(backoff.next()):
                return

    def close(self) -> None:
        """End the iteration (a blocked ``next()`` in another thread returns StopIteration)."""
        with self._mu:
            self._closed.set()
            call = self._call
        if call is not None:
            call.cancel()

    def __enter__(self) -> "FollowedStream[Out]":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
