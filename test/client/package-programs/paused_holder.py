"""The installed Python package (lockd-client, pip-installed into a scratch venv) as a user runs it:
hold a lock with client.run(), fence-write with its token, get paused by the test (SIGSTOP) past
the lease, and on waking see the work stopped (LockLostError) and the late write refused.
JSON lines on stdout: holding, lost, write, read. Exits 0 when the story ran to its end.

    python paused_holder.py ENDPOINTS NAME KEY TTL_MS
"""

import json
import sys
import time

import lockd


def report(**fields):
    print(json.dumps(fields), flush=True)


def main(endpoints, name, key, ttl_ms):
    report(event="imported", file=lockd.__file__)
    with lockd.Client(endpoints) as client:
        token = 0
        try:
            with client.run(name, ttl_ms=ttl_ms) as run:
                token = run.token
                client.fence_write(key, b"v1", token, lock=name)
                report(event="holding", token=token, lease=run.lock.lease.id)
                while True:  # the work: short steps, so the stop lands between them
                    time.sleep(0.02)
        except lockd.LockLostError as e:
            report(event="lost", why=e.why, token=e.token)
        try:
            client.fence_write(key, b"late", token, lock=name)
            report(event="write", refused=False)
        except lockd.StaleTokenError as e:
            report(event="write", refused=True, code=e.code.name, error=str(e))
        value, written_by = client.fence_read(key)
        report(event="read", value=value.decode(), token=written_by)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
