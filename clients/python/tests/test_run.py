"""client.run(): work under a lock ended by the trust deadline (lockd/run.py). The deadline's timing
runs against a stand-in lease whose deadline the test sets (keepalives that stall cannot be made to
happen on a healthy cluster); a lease ended by the cluster (revoked by another client) against the
real cluster (test/client/python.test.ts starts it)."""

from __future__ import annotations

import signal
import threading
import time
import unittest

import lockd
from lockd.run import Run
from test_client import ClusterTest, name, poll

BOUND_S = 10.0


class _Lease:
    """A lease whose trust deadline is `ttl` seconds from now and never moves (keepalives stalled)."""

    def __init__(self, ttl: float):
        self.id = 1
        self.deadline = time.monotonic() + ttl

    def is_lost(self) -> bool:
        return time.monotonic() >= self.deadline

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def on_lost(self, _fn):
        return lambda: None


class _Lock:
    name = "stand-in"
    token = 42

    def __init__(self, ttl: float):
        self.lease = _Lease(ttl)
        self.released = 0

    def release(self) -> bool:
        self.released += 1
        return True


class _Client:
    def endpoints(self):
        return ["127.0.0.1:1"]


def spin(what: str) -> None:
    """Python work in short steps (where an asynchronous exception lands); fails if never stopped."""
    until = time.monotonic() + BOUND_S
    while time.monotonic() < until:
        time.sleep(0.01)
    raise AssertionError(f"{what}: the work was not stopped within {BOUND_S} s")


class DeadlineTest(unittest.TestCase):
    def test_python_work_is_stopped_grace_before_the_deadline_and_leaving_the_block_raises(self):
        lock = _Lock(0.6)
        with self.assertRaises(lockd.LockLostError) as e:
            with Run(_Client(), lock, grace_ms=200) as run:
                try:
                    spin("stalled keepalives")
                except lockd.LockLostError as inside:
                    stopped_at = time.monotonic()
                    self.assertEqual((inside.why, inside.token), ("deadline", 42))
                # Caught in the block: leaving it still says the work was cut short.
        self.assertEqual(e.exception.why, "deadline")
        # Not before only the grace is left; by the deadline unless this thread was not scheduled
        # (a loaded machine: half a second more is allowed, not hoped for).
        self.assertGreaterEqual(stopped_at, lock.lease.deadline - 0.2)
        self.assertLessEqual(stopped_at, lock.lease.deadline + 0.5)
        self.assertEqual(lock.released, 1)

    def test_a_command_gets_sigterm_then_sigkill_of_its_group_by_the_deadline(self):
        lock = _Lock(0.8)
        with self.assertRaises(lockd.LockLostError):
            with Run(_Client(), lock, grace_ms=300) as run:
                # Ignores SIGTERM; so does the child it starts in the group.
                proc = run.spawn(["sh", "-c", "trap '' TERM; sleep 30 & wait; sleep 30"])
                proc.wait(BOUND_S)
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        self.assertEqual(lock.released, 1)

    def test_finished_work_releases_the_lock_and_a_command_sees_the_grant(self):
        lock = _Lock(30)
        with Run(_Client(), lock, grace_ms=100) as run:
            code = run.call(["sh", "-c", 'test "$LOCKD_FENCING_TOKEN" = 42 && test "$LOCKD_LOCK_NAME" = stand-in && test "$LOCKD_ENDPOINTS" = 127.0.0.1:1'])
            self.assertEqual(code, 0)
            self.assertIsNone(run.stopped)
        self.assertEqual(lock.released, 1)

    def test_a_grace_over_half_the_ttl_is_refused_before_anything_is_acquired(self):
        with lockd.Client("127.0.0.1:1") as c, self.assertRaises(ValueError):
            c.run("x", ttl_ms=1000, grace_ms=600)


class RunOnClusterTest(ClusterTest):
    def test_a_lease_the_cluster_ends_stops_the_work_at_once_and_the_lock_is_freed(self):
        a, b = self.client(), self.client()
        n = name("run")
        ran = threading.Event()
        with self.assertRaises(lockd.LockLostError) as e:
            with a.run(n, ttl_ms=5000) as run:
                self.assertEqual(a.inspect(n).fencing_token, run.token)
                proc = run.spawn(["sleep", "30"])
                ran.set()
                b.revoke_lease(run.lock.lease.id)  # the cluster ends the grant
                spin("a revoked lease")
        self.assertTrue(ran.is_set())
        self.assertEqual(e.exception.why, "lease")
        self.assertEqual(proc.wait(BOUND_S), -signal.SIGTERM)
        poll(f"{n} free", lambda: True if not b.inspect(n).held else None)


if __name__ == "__main__":
    unittest.main()
