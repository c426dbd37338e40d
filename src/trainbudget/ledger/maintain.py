"""`trainbudget ledger maintain`: the team ledger's upkeep, in DuckLake's own functions.

In order: flush the rows small inserts kept inline in the catalog into Parquet, merge small
adjacent files, expire snapshots older than the retention (time travel before it ends),
delete the files those left behind once they are older than the safe age, and delete orphaned
files (a killed writer's Parquet, never committed) older than the safe age. The safe age
keeps files a reader or a running writer may still need. Each step is its own transaction;
one that conflicts with a writer is left for the next run (it says so), as maintenance
must never hold up a review.

The DuckDB file needs none of this: there `maintain` runs CHECKPOINT (folds the write-ahead
log into the file) and says there is nothing else to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import duckdb

from trainbudget.base.errors import InputError
from trainbudget.ledger.store import Ledger

DEFAULT_RETENTION_DAYS = 30
DEFAULT_SAFE_AGE_DAYS = 7
_STEPS = (
    (
        "ledger/maintain/flush_inlined",
        "rows flushed from the catalog to Parquet",
        "rows_flushed",
        False,
    ),
    ("ledger/maintain/merge_files", "small files merged", "files_processed", False),
    ("ledger/maintain/expire_snapshots", "snapshots expired", None, "retention"),
    ("ledger/maintain/cleanup_files", "expired files deleted", None, "safe"),
    ("ledger/maintain/delete_orphans", "orphaned files deleted", None, "safe"),
)


@dataclass(frozen=True)
class MaintainResult:
    """What `maintain` did: one entry per step (step, what, count, skipped reason)."""

    ledger: str
    store: str
    steps: list[dict[str, object]] = field(default_factory=list)


def maintain(
    book: Ledger,
    *,
    retention_days: int = DEFAULT_RETENTION_DAYS,
    safe_age_days: int = DEFAULT_SAFE_AGE_DAYS,
) -> MaintainResult:
    """Run the upkeep of `book` (see the module docstring); never inside a run's transaction."""
    if retention_days < 1 or safe_age_days < 1:
        raise InputError("ledger maintain: --retention-days and --safe-age-days must be >= 1")
    if not book.is_team:
        book.con.execute("CHECKPOINT")
        return MaintainResult(book.location, "file", [
            {"step": "checkpoint", "what": "write-ahead log folded into the file", "count": None,
             "skipped": None},
        ])  # fmt: skip
    now = datetime.now(UTC)
    ages = {"retention": now - timedelta(days=retention_days),
            "safe": now - timedelta(days=safe_age_days)}  # fmt: skip
    steps = []
    for query, what, column, age in _STEPS:
        name = query.rsplit("/", 1)[1]
        params = {"older_than": ages[age]} if age else {}
        try:
            cursor = book.execute(query, **params)
            columns = [d[0] for d in cursor.description or []]
            rows = cursor.fetchall()
        except duckdb.Error as exc:
            if "conflict" not in str(exc).lower():
                raise
            steps.append({"step": name, "what": what, "count": None,
                          "skipped": "conflicted with a writer; the next run does it"})  # fmt: skip
            continue
        if column is None:
            count = len(rows)
        else:
            index = columns.index(column)
            count = sum(int(row[index] or 0) for row in rows)
        steps.append({"step": name, "what": what, "count": count, "skipped": None})
    return MaintainResult(book.location, "team", steps)
