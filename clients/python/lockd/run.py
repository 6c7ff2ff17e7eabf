"""``client.run(name)``: hold a lock while work runs, and end the work by the lease's trust deadline,
as ``lockctl run`` does (src/client/lockctl/run.ts)::

    with client.run("nightly", ttl_ms=10_000) as run:
        for batch in batches:
            process(batch, token=run.token)          # Python code: stopped by LockLostError
        run.call(["./backup.sh"])                    # a command: stopped by SIGTERM, then SIGKILL

The trust deadline is the lease's (``sendTime(last acknowledged keepalive) + ttl``, which the
cluster's expiry never precedes), so work ended by it never overlaps the next holder. The work is
stopped when keepalives stalled so that only ``grace_ms`` of trust are left (default a quarter of
the TTL, at most half: a renewal is due every third), or at once when the cluster ends the grant:

- **Python code in the block** gets ``LockLostError`` raised in the thread that entered the block.
  It is an asynchronous exception: it lands between two bytecodes, so a call blocked in C (a
  socket read, ``time.sleep``) sees it only when that call returns. Bound such calls by
  ``run.remaining()``, or run that work as a command.
- **Commands** (``run.call``, ``run.spawn``) run in a process group of their own, with
  ``LOCKD_FENCING_TOKEN``, ``LOCKD_LEASE_ID``, ``LOCKD_LOCK_NAME`` and ``LOCKD_ENDPOINTS`` in their
  environment: the group gets SIGTERM then, and SIGKILL at the deadline (or ``grace_ms`` after a
  loss the cluster announced, if that is sooner). A process can be stopped for sure; a thread
  cannot, which is why hard work belongs in a command.

Leaving the block kills whatever is left of the commands' groups (it would run without the lock),
then releases the lock and revokes its lease. If the work was stopped, leaving the block raises
``LockLostError`` even when the block caught the first one or finished anyway. Its ``why`` is
``deadline`` (keepalives stalled: only ``grace_ms`` of trust were left) or ``lease`` (the lease was
lost: its deadline passed, or the cluster ended it).
"""

from __future__ import annotations

import ctypes
import math
import os
import signal
import subprocess
import threading
import time
from typing import TYPE_CHECKING, List, Optional, Sequence, Type

from .errors import LockLostError
from .lock import Lock

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

#: How long leaving the block waits for a SIGKILLed group to be gone.
GROUP_EXIT_WAIT_S = 2.0


def grace_for(ttl_ms: int, grace_ms: Optional[int]) -> int:
    """The grace before the deadline (ms): default ttl/4, at most ttl/2 (lockctl run's --grace)."""
    if grace_ms is None:
        return ttl_ms // 4
    if not isinstance(grace_ms, int) or grace_ms < 0:
        raise ValueError(f"grace_ms must be a non-negative integer, got {grace_ms!r}")
    if grace_ms > ttl_ms / 2:
        raise ValueError(f"grace_ms {grace_ms} must be at most half the lease TTL ({ttl_ms} ms): the work is stopped when only that much trust is left")
    return grace_ms


def _raise_in(thread_id: int, exc: Optional[Type[BaseException]]) -> None:
    """Raise ``exc`` asynchronously in thread ``thread_id`` (None: drop one not yet delivered)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


def _raisable(err: LockLostError) -> Type[LockLostError]:
    """A LockLostError class whose no-argument construction makes a copy of ``err``: an asynchronous
    exception is raised as a class, constructed without arguments in the thread that gets it."""
    def init(self: LockLostError) -> None:
        LockLostError.__init__(self, err.name, err.token, err.why)
    return type("LockLostError", (LockLostError,), {"__init__": init, "__module__": LockLostError.__module__})


class Run:
    """A held lock whose work is ended by its trust deadline (see the module docstring)."""

    def __init__(self, client: "Client", lock: Lock, grace_ms: int):
        #: The lock held for the work.
        self.lock = lock
        self._client = client
        self._grace = grace_ms / 1000
        self._thread_id: Optional[int] = None
        self._groups: List[subprocess.Popen] = []
        self._mu = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._stopped: Optional[LockLostError] = None  # why the work was stopped, once it was
        self._kill_at = math.inf  # time.monotonic() at which the groups get SIGKILL
        self._unsubscribe = lock.lease.on_lost(lambda _reason: self._wake.set())
        self._watcher = threading.Thread(target=self._watch, name=f"lockd-run-{lock.name}", daemon=True)

    @property
    def token(self) -> int:
        """The lock's fencing token: carry it to whatever the lock protects."""
        return self.lock.token

    @property
    def stopped(self) -> Optional[LockLostError]:
        """Why the work was stopped (a LockLostError), or None while it may go on."""
        return self._stopped

    def remaining(self) -> float:
        """Seconds until the work is stopped (0 once it is): a bound for a blocking call."""
        if self._stopped is not None:
            return 0.0
        return max(0.0, self.lock.lease.remaining() - self._grace)

    # ---- commands ------------------------------------------------------------------------

    def spawn(self, argv: Sequence[str], **popen_kw) -> subprocess.Popen:
        """Start a command under the lock, in a process group of its own (``subprocess.Popen``'s
        other arguments pass through; ``env`` is extended with the grant)."""
        if not argv:
            raise ValueError("run.spawn needs a command (argv is empty)")
        if "start_new_session" in popen_kw or "preexec_fn" in popen_kw or "process_group" in popen_kw:
            raise ValueError("run.spawn puts the command in a process group of its own: start_new_session, process_group and preexec_fn are its")
        env = dict(popen_kw.pop("env", None) or os.environ)
        env.update(LOCKD_FENCING_TOKEN=str(self.lock.token), LOCKD_LEASE_ID=str(self.lock.lease.id), LOCKD_LOCK_NAME=self.lock.name, LOCKD_ENDPOINTS=",".join(self._client.endpoints()))
        with self._mu:
            if self._stopped is not None:
                raise self._stopped
            proc = subprocess.Popen(list(argv), env=env, start_new_session=True, **popen_kw)
            self._groups.append(proc)
        return proc

    def call(self, argv: Sequence[str], **popen_kw) -> int:
        """Run a command under the lock to its end: its exit status. Raises LockLostError if it was stopped by the deadline."""
        proc = self.spawn(argv, **popen_kw)
        code = proc.wait()
        if self._stopped is not None:
            raise self._stopped
        return code

    # ---- the watcher ---------------------------------------------------------------------

    def _watch(self) -> None:
        lease = self.lock.lease
        while True:
            self._wake.clear()  # before reading the state: a wake-up after this is not lost
            now = time.monotonic()
            if not self._stopped:
                if lease.is_lost():
                    self._stop("lease", min(now + self._grace, lease.deadline))
                elif lease.deadline - now <= self._grace:
                    self._stop("deadline", lease.deadline)
            with self._mu:
                if self._closed:
                    return
                if now >= self._kill_at:
                    self._signal_groups(signal.SIGKILL)
                    self._kill_at = math.inf
                wake_at = self._kill_at if self._stopped else lease.deadline - self._grace
            # Woken early by a loss (on_lost) or by leaving the block; a renewal moves the deadline
            # later, which this finds at the old moment and sleeps again.
            self._wake.wait(None if wake_at == math.inf else max(0.0, wake_at - time.monotonic()))

    def _stop(self, why: str, kill_at: float) -> None:
        with self._mu:
            if self._closed or self._stopped is not None:
                return
            self._stopped = LockLostError(self.lock.name, self.lock.token, why)
            self._kill_at = kill_at
            self._signal_groups(signal.SIGTERM)
            if self._thread_id is not None:
                _raise_in(self._thread_id, _raisable(self._stopped))

    def _signal_groups(self, sig: int) -> None:
        for proc in self._groups:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass  # the whole group is gone

    # ---- with ... as run -----------------------------------------------------------------

    def __enter__(self) -> "Run":
        self._thread_id = threading.get_ident()
        self._watcher.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # From here on nothing is raised into this thread; one raised but not yet delivered is
        # dropped. It may land in these very lines instead: caught, and the loop closes again.
        while True:
            try:
                with self._mu:
                    self._closed = True
                    _raise_in(self._thread_id or 0, None)
                break
            except LockLostError:
                continue
        self._wake.set()
        self._unsubscribe()
        # What the commands left running would run without the lock: gone before the release.
        self._signal_groups(signal.SIGKILL)
        for proc in self._groups:
            self._wait_group_gone(proc)
        try:
            self.lock.release()
        except Exception:
            if exc_type is None and self._stopped is None:
                raise
        if self._stopped is not None:
            # Raised here even when the block caught the first one or finished: its work was cut short.
            raise self._stopped from (None if isinstance(exc, LockLostError) else exc)

    @staticmethod
    def _wait_group_gone(proc: subprocess.Popen) -> None:
        until = time.monotonic() + GROUP_EXIT_WAIT_S
        try:
            proc.wait(GROUP_EXIT_WAIT_S)  # reap the leader, or the group stays a zombie forever
        except subprocess.TimeoutExpired:
            pass
        while time.monotonic() < until:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.01)
