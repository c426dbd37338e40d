"""Ledger upkeep (scheduled, Sunday 03:00): `trainbudget ledger maintain` as a flow.

On the team ledger: flush inlined rows, merge small files, expire snapshots older than
`retention_days`, delete unreferenced and orphaned files older than `safe_age_days`
(trainbudget.ledger.maintain). On a DuckDB file it runs CHECKPOINT and holds the ledger's
slot meanwhile, like every run that writes the file.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from ledger_slot import ledger_slot
from trainbudget.ledger import Ledger
from trainbudget.ledger.maintain import (
    DEFAULT_RETENTION_DAYS,
    DEFAULT_SAFE_AGE_DAYS,
    maintain,
)


@flow(name="ledger-maintain", log_prints=True)
def ledger_maintain(
    ledger: Path | str | None = None,
    retention_days: int = DEFAULT_RETENTION_DAYS,
    safe_age_days: int = DEFAULT_SAFE_AGE_DAYS,
) -> dict:
    """Maintain the ledger; returns what each step did."""
    with ledger_slot(ledger), Ledger.open_existing(ledger) as book:
        result = maintain(book, retention_days=retention_days, safe_age_days=safe_age_days)
    for step in result.steps:
        print(f"{step['what']}: {step['skipped'] or step['count']}")
    return {"ledger": result.ledger, "store": result.store, "steps": result.steps}
