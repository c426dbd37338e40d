"""What trainbudget creates is its owner's: the ledger keeps raw sacct lines (users, accounts)
and the reports name jobs and costs, so new files are 0600 and new folders 0700.

`TRAINBUDGET_SHARED_GROUP=1` makes them readable by the owner's group instead (0640 / 0750), for
a team that shares one ledger: give its folder the team's group and the setgid bit
(`chgrp team DIR && chmod 2770 DIR`) so new files take that group.

The umask is tightened only while something of ours is being created (an open ledger, a report
being written) and restored afterwards, so a process that runs trainbudget in-process (a test
session, a Prefect worker) keeps its own umask for everything else.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

SHARED_GROUP_ENV = "TRAINBUDGET_SHARED_GROUP"
PRIVATE_UMASK = 0o077
GROUP_UMASK = 0o027

# The umask is per process, not per thread: holders are counted, and the last one out
# restores the umask the first one in found.
_LOCK = threading.Lock()
_HELD: dict[str, int] = {"holders": 0, "saved": 0}


def creation_umask() -> int:
    """The umask new files are created under: private, or group-readable when shared."""
    shared = os.environ.get(SHARED_GROUP_ENV, "").strip().lower()
    return GROUP_UMASK if shared not in ("", "0", "false", "no") else PRIVATE_UMASK


def hold_private_umask() -> Callable[[], None]:
    """Apply `creation_umask` to this process (never loosening a stricter umask already set)
    until the returned function is called; calling it again does nothing.

    A umask, not a chmod after the fact: DuckDB creates the ledger's WAL file itself, at any
    time while the ledger is open, and a file must never exist for a moment with wider
    permissions.
    """
    with _LOCK:
        current = os.umask(0)
        if _HELD["holders"] == 0:
            _HELD["saved"] = current
        _HELD["holders"] += 1
        os.umask(current | creation_umask())
    released = False

    def release() -> None:
        nonlocal released
        with _LOCK:
            if released:
                return
            released = True
            _HELD["holders"] -= 1
            if _HELD["holders"] == 0:
                os.umask(_HELD["saved"])

    return release


@contextmanager
def private_files() -> Iterator[None]:
    """`hold_private_umask` for the duration of a `with` block."""
    release = hold_private_umask()
    try:
        yield
    finally:
        release()
