"""A run retried whole when its team-ledger commit conflicts with another writer's.

DuckLake commits optimistically: two runs that change the same thing at once (the same
source landed twice, a MERGE into one table) cannot both commit, and the later one's
transaction is rolled back whole (`LedgerConflict`). `retrying` runs the run again from the
start, a bounded number of times with exponential backoff and jitter, and says so on stderr;
the DuckDB file never conflicts (one writer at a time), so there it runs once.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from trainbudget.base.errors import LedgerConflict

T = TypeVar("T")
ATTEMPTS = 6
FIRST_WAIT_S = 0.5
BACKOFF = 2.0


def retrying(run: Callable[[], T], *, attempts: int = ATTEMPTS, what: str = "the run") -> T:
    """`run()`, again from the start after each LedgerConflict, at most `attempts` times in
    all; the last conflict is raised (an environment failure: exit 1, one line)."""
    for attempt in range(1, attempts + 1):
        try:
            return run()
        except LedgerConflict as conflict:
            if attempt == attempts:
                raise LedgerConflict(f"{conflict}; gave up after {attempts} attempts") from None
            wait = FIRST_WAIT_S * BACKOFF ** (attempt - 1) * (0.5 + random.random())
            print(
                f"trainbudget: the team ledger's commit conflicted with another run's; "
                f"retrying {what} from the start in {wait:.1f} s "
                f"(attempt {attempt + 1} of {attempts})",
                file=sys.stderr,
                flush=True,
            )
            time.sleep(wait)
    raise AssertionError("unreachable")
