"""Leader election through the Python client (lockd.v1.Election), against a real cluster
(test/client/python.test.ts starts it; LOCKD_ENDPOINTS names it)."""

from __future__ import annotations

import queue
import threading
import unittest
from concurrent.futures import ThreadPoolExecutor

import lockd
from test_client import ClusterTest, name, poll


class ElectionTest(ClusterTest):
    def setUp(self):
        super().setUp()
        self.pool = ThreadPoolExecutor(4)

    def tearDown(self):
        self.pool.shutdown(wait=False)
        super().tearDown()

    def observe(self, c: lockd.Client, election: str) -> "queue.Queue":
        """Every LeaderInfo Election.Observe streams, on a queue; returns once the stream is subscribed."""
        stream = c.observe_leader(election)
        self.addCleanup(stream.close)
        seen: "queue.Queue" = queue.Queue()
        threading.Thread(target=lambda: [seen.put(info) for info in stream], daemon=True).start()
        self.assertTrue(stream.opened.wait(10), "Election.Observe never subscribed")
        return seen

    def queued(self, c: lockd.Client, election: str, count: int = 1) -> None:
        poll(f"{count} campaigner(s) queued on {election}", lambda: True if len(c.inspect(election).waiting_lease_ids) == count else None)

    def test_campaign_leads_proclaims_and_a_second_campaigner_wins_after_resign(self):
        a, b, watcher = self.client(), self.client(), self.client()
        e = name("elect")
        self.assertIsNone(watcher.leader(e))
        seen = self.observe(watcher, e)
        first = a.campaign(e, "a:1", ttl_ms=5000)
        self.assertEqual((first.key.name, first.key.lease_id), (e, first.lease.id))
        self.assertGreater(first.token, 0)
        self.assertEqual(first.key.fencing_token, first.token)
        self.assertTrue(first.held)
        self.assertEqual(watcher.leader(e), lockd.LeaderInfo(first.key, "a:1"))
        first.proclaim("a:2")
        self.assertEqual((first.value, watcher.leader(e).value), ("a:2", "a:2"))

        campaigning = self.pool.submit(b.campaign, e, "b:1", ttl_ms=5000, timeout=20)
        self.queued(watcher, e)
        self.assertFalse(campaigning.done())  # FIFO: waits while a leads
        self.assertTrue(first.resign())
        self.assertTrue(first.lost.is_set())
        self.assertEqual(first.lost_reason.why, "resigned-here")
        second = campaigning.result(20)
        self.assertGreater(second.token, first.token)
        self.assertEqual(watcher.leader(e), lockd.LeaderInfo(second.key, "b:1"))
        # The old key no longer leads: its Proclaim is refused, its Resign changes nothing.
        with self.assertRaises(lockd.FailedPreconditionError):
            a.proclaim(first.key, "stale")
        self.assertFalse(a.resign(first.key))
        self.assertEqual(watcher.leader(e).key, second.key)
        # The observer saw every leadership, in order.
        got = [seen.get(timeout=10) for _ in range(3)]
        self.assertEqual(got, [lockd.LeaderInfo(first.key, "a:1"), lockd.LeaderInfo(first.key, "a:2"), lockd.LeaderInfo(second.key, "b:1")])
        second.resign()
        self.assertEqual(seen.get(timeout=10), lockd.LeaderInfo(None, ""))  # nobody leads
        self.assertIsNone(watcher.leader(e))

    def test_an_election_is_not_a_semaphore_nor_a_read_write_lock(self):
        a, b = self.client(), self.client()
        e = name("elect-kind")
        first = a.campaign(e, "a", ttl_ms=5000)
        campaigning = self.pool.submit(b.campaign, e, "b", ttl_ms=5000, timeout=20)
        self.queued(b, e)
        with self.assertRaises(lockd.FailedPreconditionError):
            a.set_permits(e, 3)
        with self.assertRaises(lockd.FailedPreconditionError):
            a.acquire(e, first.lease.id, shared=True)
        self.assertFalse(campaigning.done())  # still one leader
        self.assertEqual(b.leader(e), lockd.LeaderInfo(first.key, "a"))
        first.proclaim("a:2")
        self.assertEqual(b.leader(e).value, "a:2")
        first.resign()
        campaigning.result(20).resign()

    def test_a_waiting_campaign_ends_not_found_when_its_lease_is_revoked(self):
        a, b = self.client(), self.client()
        e = name("elect-revoked")
        leading = a.campaign(e, "a", ttl_ms=5000)
        lease = b.grant_lease(5000)
        campaigning = self.pool.submit(b.campaign, e, "b", lease=lease, timeout=20)
        self.queued(a, e)
        a.revoke_lease(lease.id)  # from elsewhere: the campaign learns it from the cluster
        with self.assertRaises(lockd.NotFoundError):
            campaigning.result(20)
        self.assertEqual(list(a.inspect(e).waiting_lease_ids), [])
        self.assertEqual(a.leader(e).key, leading.key)
        leading.resign()

    def test_a_leadership_ends_with_its_lease_lost_is_set_and_nobody_leads(self):
        a, b = self.client(), self.client()
        e = name("elect-lease")
        with a.campaign(e, "a", ttl_ms=3000) as leadership:
            b.revoke_lease(leadership.lease.id)
            self.assertTrue(leadership.lost.wait(5), "leadership.lost was never set")
            self.assertEqual(leadership.lost_reason.why, "lease")
            self.assertFalse(leadership.held)
            self.assertIsNone(b.leader(e))  # no phantom leader
            with b.campaign(e, "b", ttl_ms=3000, timeout=5) as successor:
                self.assertGreater(successor.token, leadership.token)
        # Leaving the first block resigned nothing (it no longer led) and raised nothing.
        self.assertFalse(leadership.resign())
        self.assertIsNone(b.leader(e))

    def test_with_campaign_resigns_and_revokes_its_lease_a_timed_out_campaign_leaves_the_queue(self):
        a, b = self.client(), self.client()
        e = name("elect-with")
        with a.campaign(e, "a", ttl_ms=5000) as leadership:
            with self.assertRaises(lockd.DeadlineExceededError):
                b.campaign(e, "b", ttl_ms=5000, timeout=0.5)
            self.assertEqual(list(a.inspect(e).waiting_lease_ids), [])
            self.assertEqual(len(b._leases), 0)  # the campaign's own lease was revoked
            self.assertEqual(leadership.fence_write(e + "/k", b"leader"), leadership.token)
        self.assertIsNone(a.leader(e))
        with self.assertRaises(lockd.NotFoundError):
            a.time_to_live(leadership.lease.id)


if __name__ == "__main__":
    unittest.main()
