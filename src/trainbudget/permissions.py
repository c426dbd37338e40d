"""What trainbudget creates is its owner's: the ledger keeps raw sacct lines (users, accounts)
and the reports name jobs and costs, so new files are 0600 and new folders 0700.

`TRAINBUDGET_SHARED_GROUP=1` makes them readable by the owner's group instead (0640 / 0750), for
a team that shares one ledger: give its folder the team's group and the setgid bit
(`chgrp team DIR && chmod 2770 DIR`) so new files take that group.
"""

from __future__ import annotations

import os

SHARED_GROUP_ENV = "TRAINBUDGET_SHARED_GROUP"
PRIVATE_UMASK = 0o077
GROUP_UMASK = 0o027


def creation_umask() -> int:
    """The umask new files are created under: private, or group-readable when shared."""
    shared = os.environ.get(SHARED_GROUP_ENV, "").strip().lower()
    return GROUP_UMASK if shared not in ("", "0", "false", "no") else PRIVATE_UMASK


def restrict_new_files() -> None:
    """Apply `creation_umask` to this process (never loosening a stricter umask already set).

    A umask, not a chmod after the fact: DuckDB creates the ledger's WAL file itself, and a
    file must never exist for a moment with wider permissions.
    """
    current = os.umask(0)
    os.umask(current | creation_umask())
