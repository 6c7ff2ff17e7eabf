"""Holds a lock through a leader failover, driven by test/client/python.test.ts.

Prints one JSON line per step. Takes a lock on a kept-alive lease and reports it ("holding"); on
the stdin line "failover" (sent once the test has killed the leader) it waits for a keepalive sent
after that moment to be acknowledged — the lease's deadline passing that send time + ttl — and
reports whether the lease stayed trusted, whom the client now takes for the leader, and the lock's
holder as the new leader sees it ("renewed"), or that the lease was lost ("lost").
"""

from __future__ import annotations

import json
import os
import sys
import time

import lockd


def report(**fields) -> None:
    print(json.dumps(fields), flush=True)


def main() -> int:
    ttl_ms = int(os.environ.get("LOCKD_TTL_MS", "5000"))
    with lockd.Client(os.environ["LOCKD_ENDPOINTS"]) as client:
        lease = client.grant_lease(ttl_ms)
        lock = client.lock("py/failover", lease=lease)
        report(event="holding", lease=lease.id, token=lock.token, leader=client.leader_address)
        if sys.stdin.readline().strip() != "failover":
            return 2
        since = time.monotonic()
        until = since + 20
        while time.monotonic() < until:
            if lease.is_lost():
                report(event="lost", why=lease.lost_reason.why, detail=str(lease.lost_reason))
                return 1
            if lease.deadline - ttl_ms / 1000 >= since:  # a keepalive sent after the failover was acknowledged
                info = client.inspect("py/failover")
                report(event="renewed", leader=client.leader_address, held=lock.held, holder=info.holder_lease_id, token=info.fencing_token)
                lock.release()
                return 0
            time.sleep(0.05)
        report(event="timeout", deadline_left=lease.deadline - time.monotonic())
        return 1


if __name__ == "__main__":
    sys.exit(main())
