#!/usr/bin/python3
"""The GC-pause scenario (Kleppmann, "How to do distributed locking"), with a real pause.

1. A holder process takes the lock and is about to write under it: it checks ``lock.held`` (true)
   — and then the whole process stops (SIGSTOP: every thread, as a stop-the-world GC pause would),
   between the check and the write.
2. Its lease expires on the cluster; this process, the next holder, is granted the lock with a
   higher fencing token and writes.
3. The old holder resumes and does the write it had decided on. The fenced store refuses it: its
   token is no longer the lock's live grant. And the old holder's own ``lock.held`` is false (it
   reads the clock), ``lock.lost`` is set: it knows, too late to stop the write, but the fence did.

    /usr/bin/python3 examples/gc_pause.py --endpoints 127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003

Exits 0 when all of that happened, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import lockd  # noqa: E402


def report(**fields) -> None:
    print(json.dumps(fields), flush=True)


def holder(args) -> int:
    """The process that gets paused."""
    with lockd.Client(args.endpoints) as client:
        with client.lock(args.name, ttl_ms=args.ttl_ms) as lock:
            report(event="holding", token=lock.token, lease=lock.lease.id)
            if lock.held:
                os.kill(os.getpid(), signal.SIGSTOP)  # the "GC pause", right after the check
                try:
                    lock.fence_write(args.key, b"written by the paused holder")
                    report(event="write", refused=False)
                except lockd.StaleTokenError as e:
                    report(event="write", refused=True, error=str(e))
            report(event="after", held=lock.held, lost=lock.lost.is_set(), why=lock.lost_reason.why if lock.lost_reason else None)
    return 0


def read_report(proc: subprocess.Popen) -> dict:
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"the holder exited ({proc.wait()}) without reporting")
    return json.loads(line)


def main(args) -> int:
    name, key = f"gc-pause/{uuid.uuid4().hex[:8]}", f"gc-pause/{uuid.uuid4().hex[:8]}/state"
    cmd = [sys.executable, os.path.abspath(__file__), "--holder", "--endpoints", ",".join(args.endpoints), "--name", name, "--key", key, "--ttl-ms", str(args.ttl_ms)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        first = read_report(proc)
        print(f"holder (pid {proc.pid}) holds {name} with token {first['token']} (lease {first['lease']}, ttl {args.ttl_ms} ms), checked lock.held ...")
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            print(f"the holder did not pause (wait status {status})")
            return 1
        print("... and is paused (SIGSTOP) before its write")
        with lockd.Client(args.endpoints) as client:
            with client.lock(name, ttl_ms=args.ttl_ms, timeout=30) as lock:
                print(f"next holder granted {name} with token {lock.token} once the paused holder's lease expired")
                lock.fence_write(key, b"written by the next holder")
                proc.send_signal(signal.SIGCONT)
                print("paused holder resumed (SIGCONT)")
                write, after = read_report(proc), read_report(proc)
                value, token = client.fence_read(key)
        code = proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            proc.kill()
            proc.wait()
    print(f"paused holder's write: {'refused: ' + write.get('error', '') if write['refused'] else 'ACCEPTED'}")
    print(f"paused holder afterwards: held={after['held']} lost={after['lost']} ({after['why']})")
    print(f"stored: {value.decode()!r} under token {token}")
    ok = (
        code == 0
        and lock.token > first["token"]
        and write["refused"]
        and not after["held"]
        and after["lost"]
        and after["why"] == "lease"
        and (value, token) == (b"written by the next holder", lock.token)
    )
    print("gc-pause: OK — the fencing token stopped the paused holder's write" if ok else "gc-pause: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--endpoints", default=os.environ.get("LOCKD_ENDPOINTS", "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003"))
    p.add_argument("--ttl-ms", type=int, default=1000)
    p.add_argument("--holder", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--name", help=argparse.SUPPRESS)
    p.add_argument("--key", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.endpoints = [e for e in a.endpoints.split(",") if e]
    sys.exit(holder(a) if a.holder else main(a))
