"""Lock.Observe through the Python client (client.observe), against a real cluster
(test/client/python.test.ts starts it; LOCKD_ENDPOINTS names it)."""

from __future__ import annotations

import queue
import threading
import unittest

import lockd
from test_client import ClusterTest, name


class ObserveTest(ClusterTest):
    def test_observe_streams_each_change_of_the_lock_in_log_order(self):
        watcher, a, b = self.client(), self.client(), self.client()
        n = name("observe")
        stream = watcher.observe(n)
        self.addCleanup(stream.close)
        seen: "queue.Queue" = queue.Queue()
        threading.Thread(target=lambda: [seen.put(ev) for ev in stream], daemon=True).start()
        self.assertTrue(stream.opened.wait(10), "Lock.Observe never subscribed")

        first = a.lock(n, ttl_ms=5000)
        lease_b = b.grant_lease(5000)
        waiting = threading.Thread(target=lambda: b.lock(n, lease=lease_b, timeout=20), daemon=True)
        waiting.start()
        events = [seen.get(timeout=10) for _ in range(2)]
        self.assertEqual([(e.type, e.lease_id) for e in events], [("ACQUIRED", first.lease.id), ("QUEUED", lease_b.id)])
        self.assertEqual((events[0].fencing_token, events[0].name), (first.token, n))
        self.assertTrue(first.release())
        handed = [seen.get(timeout=10) for _ in range(2)]
        self.assertEqual([(e.type, e.lease_id) for e in handed], [("RELEASED", first.lease.id), ("ACQUIRED", lease_b.id)])
        self.assertGreater(handed[1].fencing_token, first.token)
        self.assertGreater(handed[1].index, events[0].index)
        self.assertFalse(any(e.HasField("state") for e in events + handed))  # only a RESYNC carries state
        waiting.join(10)
        lease_b.revoke()

    def test_closing_the_stream_ends_the_iteration(self):
        c = self.client()
        stream = c.observe(name("observe-close"))
        done = threading.Event()
        threading.Thread(target=lambda: ([None for _ in stream], done.set()), daemon=True).start()
        self.assertTrue(stream.opened.wait(10))
        stream.close()
        self.assertTrue(done.wait(10), "iteration did not end after close()")

    def test_a_closed_client_refuses_to_observe(self):
        c = lockd.Client(self.client().endpoints())
        c.close()
        with self.assertRaises(RuntimeError):
            c.observe("x")


if __name__ == "__main__":
    unittest.main()
