"""Must fail mypy against the installed package: a fencing token is an int, not a str."""

import lockd


def wrong(run: lockd.Run) -> str:
    return run.token
