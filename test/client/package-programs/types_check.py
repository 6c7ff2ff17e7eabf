"""Type-checked (mypy, in the scratch venv) against the installed package: py.typed makes mypy
read lockd's own annotations instead of taking it as Any. types_check_bad.py must fail."""

import lockd


def guarded(client: lockd.Client, key: str) -> int:
    with client.run("types", ttl_ms=1000) as run:
        token: int = run.token
        return client.fence_write(key, b"v", token, lock=run.lock.name)


def lost_why(e: lockd.LockLostError) -> str:
    return e.why
