"""The Python client against a real lockd cluster (test/clients/python.test.ts starts one).

Environment: LOCKD_ENDPOINTS (every node's client address), LOCKD_LEADER (the leader's),
LOCKD_FOLLOWER (a follower's). Run: /usr/bin/python3 -m unittest discover -s tests -v
"""

from __future__ import annotations

import os
import threading
import time
import unittest
import uuid
from unittest import mock

import grpc

import lockd
from lockd.errors import LockHeldError, LockdError, StaleTokenError
from lockd._proto import pb
from lockd.lease import _Stream

from lost_answer_node import LostAnswerNode

ENDPOINTS = os.environ["LOCKD_ENDPOINTS"].split(",")
LEADER = os.environ["LOCKD_LEADER"]
FOLLOWER = os.environ["LOCKD_FOLLOWER"]


def name(what: str) -> str:
    """A lock or key name no other test (or run) uses."""
    return f"py/{what}/{uuid.uuid4().hex[:8]}"


def poll(what: str, probe, timeout: float = 10.0, every: float = 0.02):
    """probe() until it returns something other than None, or fail after timeout seconds."""
    until = time.monotonic() + timeout
    while True:
        v = probe()
        if v is not None:
            return v
        if time.monotonic() > until:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class ClusterTest(unittest.TestCase):
    def setUp(self):
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()

    def client(self, endpoints=None, **kw) -> lockd.Client:
        c = lockd.Client(endpoints or ENDPOINTS, **kw)
        self.clients.append(c)
        return c


class LeaseAndLockTest(ClusterTest):
    def test_lock_with_its_own_lease_yields_a_token_and_release_ends_both(self):
        c = self.client()
        n = name("basic")
        with c.lock(n, ttl_ms=5000) as lock:
            self.assertGreater(lock.token, 0)
            self.assertTrue(lock.held)
            self.assertFalse(lock.lost.is_set())
            info = c.inspect(n)
            self.assertEqual((info.held, info.fencing_token, info.holder_lease_id), (True, lock.token, lock.lease.id))
            self.assertIn(n, list(c.time_to_live(lock.lease.id).locks))
            lease = lock.lease
        self.assertTrue(lock.lost.is_set())
        self.assertEqual(lock.lost_reason.why, "released-here")
        self.assertFalse(c.inspect(n).held)
        with self.assertRaises(LockdError) as e:
            c.time_to_live(lease.id)
        self.assertEqual(e.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_a_lease_is_kept_alive_past_its_ttl(self):
        c = self.client()
        lease = c.grant_lease(600)
        first = lease.deadline
        until = time.monotonic() + 1.5  # 2.5 TTLs: only renewals keep it; fail at the first sign of loss
        while time.monotonic() < until:
            self.assertFalse(lease.is_lost(), lease.lost_reason)
            time.sleep(0.05)
        self.assertGreater(lease.deadline, first + 0.5)
        self.assertGreater(c.time_to_live(lease.id).remaining_ms, 0)
        lease.revoke()
        self.assertTrue(lease.lost.is_set())
        self.assertEqual(lease.lost_reason.why, "revoked")

    def test_contention_between_two_clients_is_fifo_and_tokens_increase(self):
        a, b = self.client(), self.client()
        n = name("contended")
        first = a.lock(n, ttl_ms=5000)
        self.assertIsNone(b.try_lock(n, ttl_ms=5000))
        with self.assertRaises(LockHeldError) as held:
            b.lock(n, wait=False, ttl_ms=5000)
        self.assertEqual(held.exception.holder_lease_id, first.lease.id)

        got = {}
        lease_b = b.grant_lease(5000)

        def wait_for_it():
            try:
                got["lock"] = b.lock(n, lease=lease_b, timeout=20)
            except Exception as e:  # surfaced by the assertions below
                got["error"] = e

        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        poll("b queued", lambda: True if list(a.inspect(n).waiting_lease_ids) == [lease_b.id] else None)
        self.assertTrue(waiter.is_alive())  # still waiting while a holds it
        self.assertTrue(first.release())
        waiter.join(20)
        self.assertNotIn("error", got)
        second = got["lock"]
        self.assertGreater(second.token, first.token)
        self.assertEqual(a.inspect(n).holder_lease_id, lease_b.id)
        self.assertTrue(second.release())
        lease_b.revoke()


    def test_recipes_pass_through_a_semaphore_and_readers_granted_by_one_entry_get_tokens_of_their_own(self):
        a, b, c = self.client(), self.client(), self.client()
        sem = name("sem")
        one, two = a.lock(sem, permits=2, ttl_ms=5000), b.lock(sem, permits=2, ttl_ms=5000)
        self.assertIsNone(c.try_lock(sem, permits=2, ttl_ms=5000))
        self.assertEqual(sorted(h.lease_id for h in c.inspect(sem).holders), sorted([one.lease.id, two.lease.id]))
        self.assertTrue(one.release())
        self.assertTrue(two.release())

        rw = name("rw")
        writer = a.lock(rw, ttl_ms=5000)
        got = {}
        leases = {k: cl.grant_lease(5000) for k, cl in (("b", b), ("c", c))}

        def read(k, cl):
            try:
                got[k] = cl.lock(rw, lease=leases[k], shared=True, timeout=20)
            except Exception as e:  # surfaced by the assertions below
                got[k + "-error"] = e

        readers = [threading.Thread(target=read, args=(k, cl)) for k, cl in (("b", b), ("c", c))]
        for t in readers:
            t.start()
        poll("both readers queued", lambda: True if len(a.inspect(rw).waiting_lease_ids) == 2 else None)
        self.assertTrue(writer.release())  # one entry grants both readers, each its own token
        for t in readers:
            t.join(20)
        self.assertEqual(sorted(got), ["b", "c"])
        self.assertNotEqual(got["b"].token, got["c"].token)
        self.assertEqual(got["b"].token >> 10, got["c"].token >> 10)  # both name the granting entry
        self.assertTrue(got["b"].release())
        self.assertEqual([h.lease_id for h in a.inspect(rw).holders], [leases["c"].id])
        self.assertTrue(got["c"].release())
        for lease in leases.values():
            lease.revoke()

    def test_a_wait_that_times_out_leaves_the_queue_and_keeps_the_callers_lease(self):
        a, b = self.client(), self.client()
        n = name("timeout")
        held = a.lock(n, ttl_ms=5000)
        lease = b.grant_lease(5000)
        with self.assertRaises(LockdError) as e:
            b.lock(n, lease=lease, timeout=0.5)
        self.assertEqual(e.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertNotIn(lease.id, list(a.inspect(n).waiting_lease_ids))
        self.assertFalse(lease.is_lost())  # the caller's lease is the caller's: not revoked
        self.assertGreater(b.time_to_live(lease.id).remaining_ms, 0)
        held.release()
        lease.revoke()


class LossTest(ClusterTest):
    def test_lost_is_set_at_the_send_time_of_the_last_acknowledged_keepalive_plus_ttl(self):
        c = self.client()
        ttl_ms = 1000
        sent = []  # the send time recorded for every keepalive
        real_send = _Stream.send

        def recording_send(stream, req, at):
            sent.append(at)
            real_send(stream, req, at)

        with mock.patch.object(_Stream, "send", recording_send):
            lease = c.grant_lease(ttl_ms)
            lock = c.lock(name("lost"), lease=lease)
            initial = lease.deadline
            poll("a renewal", lambda: True if lease.deadline > initial else None, timeout=5)
            # The client's keepalives stop (as if its thread were starved); the cluster hears nothing more.
            lease._send_keepalive = lambda stream: None
            stopped = time.monotonic()
            self.assertTrue(lock.lost.wait(ttl_ms / 1000 + 5), "lock.lost was never set")
        # The deadline is exactly one keepalive's send time + ttl (not its answer's arrival).
        self.assertTrue(any(abs(lease.deadline - (at + ttl_ms / 1000)) < 1e-6 for at in sent), f"deadline {lease.deadline} is no send time + ttl: {sent}")
        self.assertTrue(lease.lost.is_set())
        self.assertEqual(lease.lost_reason.why, "expired")
        self.assertEqual(lock.lost_reason.why, "lease")
        self.assertFalse(lock.held)
        # Never before the deadline; the deadline is that of a keepalive sent before they stopped.
        self.assertGreaterEqual(lease.lost_at, lease.deadline)
        self.assertLessEqual(lease.deadline, stopped + ttl_ms / 1000)
        self.assertLess(lease.lost_at - lease.deadline, 1.0, "lost was set late")
        # The cluster, which never expires a lease before that moment, ends it after it.
        def gone():
            try:
                c.time_to_live(lease.id)
                return None
            except LockdError as e:
                return e.code

        self.assertEqual(poll("the cluster to expire the lease", gone, timeout=10), grpc.StatusCode.NOT_FOUND)

    def test_a_fenced_write_with_a_stale_token_is_refused(self):
        a, b = self.client(), self.client()
        n, key = name("fenced"), name("fenced-key")
        old = a.lock(n, ttl_ms=5000)
        self.assertEqual(old.fence_write(key, b"from a"), old.token)
        old.release()
        new = b.lock(n, ttl_ms=5000)
        self.assertGreater(new.token, old.token)
        # The old holder's write, bound to the lock: refused as soon as its grant has ended.
        with self.assertRaises(StaleTokenError):
            a.fence_write(key, b"stale, bound to the lock", old.token, lock=n)
        self.assertEqual(new.fence_write(key, b"from b"), new.token)
        # And by the per-key rule alone, once the newer token has written.
        with self.assertRaises(StaleTokenError) as stale:
            a.fence_write(key, b"stale", old.token)
        self.assertEqual(stale.exception.highest_token, new.token)
        self.assertEqual(a.fence_read(key), (b"from b", new.token))
        new.release()


class LeaseListTest(ClusterTest):
    def test_lease_pages_follow_the_tokens_and_list_leases_gets_every_page(self):
        c = self.client()
        mine = [c.grant_lease(60_000).id for _ in range(3)]
        try:
            pages = list(c.lease_pages(page_size=1))
            self.assertTrue(all(len(p) <= 1 for p in pages))
            paged = [l.lease_id for p in pages for l in p]
            self.assertEqual(paged, sorted(paged))
            for lid in mine:
                self.assertEqual(paged.count(lid), 1)
            listed = [l.lease_id for l in c.list_leases()]
            self.assertTrue(set(mine) <= set(listed))
        finally:
            for lid in mine:
                c.revoke_lease(lid)

    def test_a_failover_to_a_leader_without_paging_lists_no_lease_twice(self):
        # Page 1 from this release's leader, then the release before paging answers page 2: every
        # lease and no token. Pages ascend by id, so the client keeps only ids after page 1's last.
        c = self.client()
        every = [pb.LeaseInfo(lease_id=i, granted_ttl_ms=1000, remaining_ms=900) for i in (1, 2, 3, 4)]
        answers = iter([pb.LeaseListResponse(leases=every[:2], next_page_token="l1.2"), pb.LeaseListResponse(leases=every)])
        with mock.patch.object(c, "_call", side_effect=lambda *a, **k: next(answers)):
            ids = [l.lease_id for p in c.lease_pages(page_size=2) for l in p]
        self.assertEqual(ids, [1, 2, 3, 4])


class RetryTest(ClusterTest):
    def test_the_same_request_id_returns_the_same_result(self):
        c = self.client()
        rid = str(uuid.uuid4())
        l1 = c.grant_lease(5000, request_id=rid)
        l2 = c.grant_lease(5000, request_id=rid)
        self.assertEqual(l1.id, l2.id)
        self.assertEqual([l.lease_id for l in c.list_leases()].count(l1.id), 1)

        n, acq = name("retry"), str(uuid.uuid4())
        r1 = c.acquire(n, l1.id, request_id=acq)
        r2 = c.acquire(n, l1.id, request_id=acq)
        self.assertTrue(r1.acquired)
        self.assertEqual((r2.acquired, r2.fencing_token), (True, r1.fencing_token))
        rel = str(uuid.uuid4())
        self.assertTrue(c.release(n, r1.fencing_token, request_id=rel))
        self.assertTrue(c.release(n, r1.fencing_token, request_id=rel))  # a retry of a release that applied
        # The request's grant has ended since: never reported as held again.
        r3 = c.acquire(n, l1.id, request_id=acq)
        self.assertEqual((r3.acquired, r3.grant_ended, r3.ended_fencing_token), (False, True, r1.fencing_token))
        l1.revoke()
        l2.close()

    def test_a_lost_answer_is_retried_at_the_named_leader_with_the_same_request_id(self):
        node = LostAnswerNode(LEADER)
        try:
            c = self.client([node.address])
            lease = c.grant_lease(5000)
            # The node forwarded the Grant (applied), lost the answer, named the leader; the
            # client's retry there, same request id, got the same lease rather than a second one.
            self.assertEqual(c.leader_address, LEADER)
            self.assertEqual(len(node.forwarded), 1)
            method, req, res = node.forwarded[0]
            self.assertEqual(method, "/lockd.v1.Lease/Grant")
            self.assertEqual(lease.id, res.lease_id)
            self.assertTrue(req.request_id)

            # Acquire, from a second client that knows only the node: the same story.
            n = name("lost-answer")
            lock = self.client([node.address]).lock(n, lease=lease)
            method, req, res = node.forwarded[1]
            self.assertEqual(method, "/lockd.v1.Lock/Acquire")
            self.assertTrue(res.acquired)
            self.assertEqual(lock.token, res.fencing_token)
            info = c.inspect(n)
            self.assertEqual((info.fencing_token, info.holder_lease_id), (res.fencing_token, lease.id))
            lock.release()
            lease.revoke()
        finally:
            node.close()

    def test_pointed_at_a_follower_it_finds_and_uses_the_leader(self):
        c = self.client([FOLLOWER])
        st = c.status()
        self.assertEqual(st.role, "leader")
        self.assertEqual(c.leader_address, LEADER)
        self.assertEqual(set(c.endpoints()), set(ENDPOINTS))  # every member learned from Cluster.Status
        with c.lock(name("via-follower"), ttl_ms=3000) as lock:
            self.assertGreater(lock.token, 0)


if __name__ == "__main__":
    unittest.main()
