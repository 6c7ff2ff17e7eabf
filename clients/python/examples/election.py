#!/usr/bin/python3
"""Leader election with a crashed leader: the leadership ends with its lease, and the next campaigner leads.

1. A leader process campaigns in an election and leads ("worker-1"), its lease kept alive on its
   keepalive thread. This process observes the election, and campaigns too ("worker-2"): it waits.
2. The leader is killed (SIGKILL: no resign, no revoke). Its keepalives stop, the cluster expires its
   lease — and with it the leadership: no phantom leader — and worker-2 leads, with a higher token.
3. worker-2 proclaims a new value, then resigns on leaving its ``with`` block: nobody leads.

    /usr/bin/python3 examples/election.py --endpoints 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003

Prints what the observer saw; exits 0 when all of that happened, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import lockd  # noqa: E402


def leader(args) -> int:
    """The process that leads, then is killed."""
    with lockd.Client(args.endpoints) as client:
        with client.campaign(args.name, "worker-1", ttl_ms=args.ttl_ms) as leadership:
            print(json.dumps({"token": leadership.token, "lease": leadership.lease.id}), flush=True)
            leadership.lost.wait()  # until killed
    return 0


def describe(info: lockd.LeaderInfo) -> str:
    return f"led by lease {info.key.lease_id} (token {info.key.fencing_token}) as {info.value!r}" if info.key else "nobody leads"


def main(args) -> int:
    name = f"election-demo/{uuid.uuid4().hex[:8]}"
    with lockd.Client(args.endpoints) as client:
        seen: "queue.Queue[lockd.LeaderInfo]" = queue.Queue()
        stream = client.observe_leader(name)
        threading.Thread(target=lambda: [seen.put(i) for i in stream], daemon=True).start()
        if not stream.opened.wait(10):
            print("Election.Observe never subscribed")
            return 1
        cmd = [sys.executable, os.path.abspath(__file__), "--leader", "--endpoints", ",".join(args.endpoints), "--name", name, "--ttl-ms", str(args.ttl_ms)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        try:
            first = json.loads(proc.stdout.readline() or "null")
            if first is None:
                print(f"the leader exited ({proc.wait()}) without leading")
                return 1
            print(f"leader (pid {proc.pid}) leads {name} as 'worker-1': token {first['token']}, lease {first['lease']} (ttl {args.ttl_ms} ms)")
            won: "queue.Queue" = queue.Queue()

            def campaign() -> None:
                try:
                    won.put(client.campaign(name, "worker-2", ttl_ms=args.ttl_ms, timeout=30))
                except Exception as e:  # reported below
                    won.put(e)

            threading.Thread(target=campaign, daemon=True).start()
            until = time.monotonic() + 10
            while len(client.inspect(name).waiting_lease_ids) == 0:
                if time.monotonic() > until or not won.empty():
                    print("worker-2's campaign never queued")
                    return 1
                time.sleep(0.02)
            proc.kill()  # a crash: no resign, no revoke
            killed_at = time.monotonic()
            proc.wait()
            print("worker-2 campaigns (waiting); the leader is killed (SIGKILL)")
            second = won.get(timeout=30)
            if isinstance(second, Exception):
                print(f"worker-2's campaign failed: {second!r}")
                return 1
            with second:
                print(f"worker-2 leads after {time.monotonic() - killed_at:.1f} s: token {second.token}, lease {second.lease.id}")
                second.proclaim("worker-2 (ready)")
            print("worker-2 resigned")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        history = []
        while not history or history[-1].key is not None:  # until "nobody leads" after the resign
            history.append(seen.get(timeout=10))
        stream.close()
    print("the observer saw:")
    for info in history:
        print(f"  {describe(info)}")
    leaders = [(i.key.lease_id, i.value) for i in history if i.key]
    ok = (
        second.token > first["token"]
        and leaders == [(first["lease"], "worker-1"), (second.lease.id, "worker-2"), (second.lease.id, "worker-2 (ready)")]
        and second.lost.is_set()
    )
    print("election: OK — the crashed leader's leadership ended with its lease" if ok else "election: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--endpoints", default=os.environ.get("LOCKD_ENDPOINTS", "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003"))
    p.add_argument("--ttl-ms", type=int, default=1000)
    p.add_argument("--leader", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--name", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.endpoints = [e for e in a.endpoints.split(",") if e]
    sys.exit(leader(a) if a.leader else main(a))
