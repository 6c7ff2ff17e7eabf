"""The Python client's TLS options against a cluster started with TLS and --client-cert-auth.

Not part of the default discovery (its name does not start with test_): test/client/python.test.ts
runs it against such a cluster. Environment: LOCKD_ENDPOINTS, LOCKD_CA (the CA that issued the
node certificates), LOCKD_CERT / LOCKD_KEY (a client certificate of that CA), LOCKD_OTHER_CA (a CA
that issued nothing here). Run: /usr/bin/python3 -m unittest tls_cluster -v (with tests/ on the path)
"""

from __future__ import annotations

import os
import unittest
import uuid

import grpc

import lockd
from lockd.errors import LockdError

ENDPOINTS = os.environ["LOCKD_ENDPOINTS"].split(",")
CA, CERT, KEY, OTHER_CA = (os.environ[k] for k in ("LOCKD_CA", "LOCKD_CERT", "LOCKD_KEY", "LOCKD_OTHER_CA"))


class TlsTest(unittest.TestCase):
    def test_with_the_ca_and_a_client_certificate_it_locks_and_writes(self):
        with lockd.Client(ENDPOINTS, ca=CA, cert=CERT, key=KEY) as c:
            self.assertEqual(c.status().role, "leader")
            key = f"py/tls/{uuid.uuid4().hex[:8]}"
            with c.lock(key, ttl_ms=3000) as lock:
                self.assertEqual(lock.fence_write(key, b"over tls"), lock.token)
            self.assertEqual(c.fence_read(key), (b"over tls", lock.token))

    def test_pem_bytes_work_like_paths(self):
        pems = [open(p, "rb").read() for p in (CA, CERT, KEY)]
        with lockd.Client(ENDPOINTS, ca=pems[0], cert=pems[1], key=pems[2]) as c:
            self.assertEqual(c.status().role, "leader")

    def test_a_server_certificate_from_another_ca_is_refused(self):
        with lockd.Client(ENDPOINTS, ca=OTHER_CA, cert=CERT, key=KEY, timeout=2) as c:
            with self.assertRaises(LockdError) as e:
                c.status()
            self.assertIn(e.exception.code, (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED))

    def test_without_a_client_certificate_the_cluster_refuses(self):
        with lockd.Client(ENDPOINTS, ca=CA, timeout=2) as c:
            with self.assertRaises(LockdError) as e:
                c.status()
            self.assertIn(e.exception.code, (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED))

    def test_a_certificate_without_its_key_or_a_missing_file_fails_at_construction(self):
        with self.assertRaises(ValueError):
            lockd.Client(ENDPOINTS, ca=CA, cert=CERT)
        with self.assertRaises(OSError):
            lockd.Client(ENDPOINTS, ca="/nonexistent/ca.crt")


if __name__ == "__main__":
    unittest.main()
