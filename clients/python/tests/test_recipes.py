"""Semaphores, read-write locks (downgrade) and lock-delay through the Python client, against a real
cluster (test/client/python.test.ts starts it; LOCKD_ENDPOINTS names it)."""

from __future__ import annotations

import unittest
from concurrent.futures import ThreadPoolExecutor

import grpc

import lockd
from test_client import ClusterTest, name, poll


class RecipeTest(ClusterTest):
    def setUp(self):
        super().setUp()
        self.pool = ThreadPoolExecutor(4)

    def tearDown(self):
        self.pool.shutdown(wait=False)
        super().tearDown()

    def queued(self, c: lockd.Client, n: str, lease_ids):
        poll(f"{lease_ids} queued on {n}", lambda: True if list(c.inspect(n).waiting_lease_ids) == list(lease_ids) else None)


class SemaphoreTest(RecipeTest):
    def test_permits_that_disagree_are_refused_failed_precondition_and_change_nothing(self):
        a, b = self.client(), self.client()
        sem = name("sem-disagree")
        one = a.lock(sem, permits=2, ttl_ms=5000)
        self.assertEqual(one.permits, 2)
        for asked in (3, 0):  # another semaphore, or a mutex
            with self.assertRaises(lockd.FailedPreconditionError) as e:
                b.lock(sem, permits=asked, ttl_ms=5000)
            self.assertEqual(e.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
            self.assertIn("permits 2", e.exception.details)
            self.assertIn(f"permits {asked if asked else 1}", e.exception.details)
        info = a.inspect(sem)
        self.assertEqual((info.permits, [h.lease_id for h in info.holders], list(info.waiting_lease_ids)), (2, [one.lease.id], []))
        self.assertEqual(len(b._leases), 0)  # each refused lock() revoked the lease it had granted itself
        self.assertTrue(one.release())

    def test_set_permits_growing_the_limit_grants_a_waiter_and_never_shrinks_below_the_holders(self):
        a, b, c = self.client(), self.client(), self.client()
        sem = name("sem-grow")
        one, two = a.lock(sem, permits=2, ttl_ms=5000), b.lock(sem, permits=2, ttl_ms=5000)
        lease_c = c.grant_lease(5000)
        waiting = self.pool.submit(c.lock, sem, lease=lease_c, permits=2, timeout=20)
        self.queued(a, sem, [lease_c.id])
        self.assertFalse(waiting.done())
        self.assertEqual(a.set_permits(sem, 3), lockd.PermitsChange(previous=2, granted=1))
        third = waiting.result(20)
        self.assertGreater(third.token, two.token)
        info = a.inspect(sem)
        self.assertEqual(info.permits, 3)
        self.assertEqual(sorted(h.lease_id for h in info.holders), sorted([one.lease.id, two.lease.id, lease_c.id]))
        self.assertEqual(list(info.waiting_lease_ids), [])
        with self.assertRaises(lockd.FailedPreconditionError):
            a.set_permits(sem, 2)  # below the 3 holders: no grant is taken back
        self.assertEqual(a.inspect(sem).permits, 3)
        with self.assertRaises(ValueError):
            a.set_permits(sem, 0)
        for held in (one, two, third):
            self.assertTrue(held.release())
        with self.assertRaises(lockd.NotFoundError):
            a.set_permits(sem, 4)  # nobody holds or waits: the next Acquire's permits decide
        lease_c.revoke()


class ReadWriteTest(RecipeTest):
    def test_downgrade_lets_the_waiting_reader_in_then_another_shared_holder(self):
        a, b, c = self.client(), self.client(), self.client()
        rw, key = name("rw-downgrade"), name("rw-key")
        writer = a.lock(rw, ttl_ms=5000)
        self.assertFalse(writer.shared)
        self.assertEqual(writer.fence_write(key, b"exclusive"), writer.token)
        lease_b = b.grant_lease(5000)
        reading = self.pool.submit(b.lock, rw, lease=lease_b, shared=True, timeout=20)
        self.queued(a, rw, [lease_b.id])
        self.assertFalse(reading.done())
        writer.downgrade()
        self.assertTrue(writer.shared)
        self.assertTrue(writer.held)
        reader_b = reading.result(20)  # the reader at the head of the queue joined the downgraded grant
        self.assertTrue(reader_b.shared)
        reader_c = c.try_lock(rw, shared=True, ttl_ms=5000)  # and a later reader gets in at once
        self.assertIsNotNone(reader_c)
        info = a.inspect(rw)
        self.assertEqual([(h.lease_id, h.shared) for h in info.holders], [(writer.lease.id, True), (lease_b.id, True), (reader_c.lease.id, True)])
        self.assertEqual(info.holders[0].fencing_token, writer.token)  # downgraded in place: same token
        # A fence bound to the lock accepts only an exclusive holder: no longer this one.
        with self.assertRaises(lockd.StaleTokenError):
            writer.fence_write(key, b"shared now")
        # No way back: an upgrade is refused (two readers upgrading would deadlock).
        with self.assertRaises(lockd.FailedPreconditionError):
            a.acquire(rw, writer.lease.id)
        writer.downgrade()  # already shared: nothing to do
        for held in (writer, reader_b, reader_c):
            self.assertTrue(held.release())
        lease_b.revoke()

    def test_a_retry_of_the_exclusive_request_after_a_downgrade_answers_shared(self):
        a = self.client()
        rw = name("rw-retry")
        lease = a.grant_lease(5000)
        writer = a.lock(rw, lease=lease, request_id="py-rw-retry")
        self.assertFalse(writer.shared)
        writer.downgrade()
        again = a.lock(rw, lease=lease, request_id="py-rw-retry")  # the same request, retried
        self.assertEqual((again.token, again.shared), (writer.token, True))
        self.assertTrue(a.acquire(rw, lease.id, wait=True, request_id="py-rw-retry").shared)  # lock() waits
        lease.revoke()

    def test_a_semaphore_grant_cannot_be_downgraded_nor_an_ended_one(self):
        a = self.client()
        sem = a.lock(name("rw-sem"), permits=2, ttl_ms=5000)
        with self.assertRaises(ValueError):
            sem.downgrade()
        self.assertFalse(sem.shared)
        sem.release()
        lock = a.lock(name("rw-ended"), ttl_ms=5000)
        lock.release()
        with self.assertRaises(lockd.LockLostError):
            lock.downgrade()


class LockDelayTest(RecipeTest):
    def test_after_a_revoked_lease_the_name_stays_ungranted_for_the_delay_then_the_waiter_gets_it(self):
        a, b = self.client(), self.client()
        n, delay_ms = name("delay"), 2000
        lease = a.grant_lease(5000)
        held = a.lock(n, lease=lease, lock_delay_ms=delay_ms)
        self.assertEqual([h.lock_delay_ms for h in a.inspect(n).holders], [delay_ms])
        lease.revoke()
        self.assertTrue(held.lost.is_set())
        with self.assertRaises(lockd.LockHeldError) as refused:
            b.lock(n, wait=False, ttl_ms=5000)
        self.assertEqual(refused.exception.holder_lease_id, 0)
        self.assertTrue(0 < refused.exception.lock_delay_remaining_ms <= delay_ms, refused.exception.lock_delay_remaining_ms)
        self.assertIn("lock-delay", str(refused.exception))
        lease_b = b.grant_lease(5000)
        waiting = self.pool.submit(b.lock, n, lease=lease_b, timeout=20)
        # One linearizable read: queued, nobody holds it, the delay still runs — no grant during a delay.
        info = poll("the waiter queued", lambda: (lambda i: i if list(i.waiting_lease_ids) == [lease_b.id] else None)(b.inspect(n)))
        self.assertFalse(info.held)
        self.assertGreater(info.lock_delay_until_ms, 0)
        self.assertTrue(0 < info.lock_delay_remaining_ms <= delay_ms, info.lock_delay_remaining_ms)
        nxt = waiting.result(20)  # granted by the tick that ends the delay
        after = b.inspect(n)
        self.assertEqual((after.holder_lease_id, after.lock_delay_until_ms, after.lock_delay_remaining_ms), (lease_b.id, 0, 0))
        self.assertGreater(nxt.token, held.token)
        self.assertTrue(nxt.release())
        lease_b.revoke()

    def test_a_release_starts_no_lock_delay(self):
        a, b = self.client(), self.client()
        n = name("delay-release")
        with a.lock(n, ttl_ms=5000, lock_delay_ms=30_000):
            pass  # released, then its lease revoked: the grant ended by Release
        got = b.try_lock(n, ttl_ms=5000)
        self.assertIsNotNone(got)
        got.release()


if __name__ == "__main__":
    unittest.main()
