"""Application progress events (JSONL): start, step reached, checkpoint accepted, end.

DESIGN.md's format: one event a line, ISO-8601 times with their zone; a step or checkpoint
needs its step number, a start may give resumed_from_step. DuckDB reads and checks the file
(sql/reconcile/land/progress_stage.sql); bad lines are quarantined with their reason.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from trainbudget.files.literal import duckdb_path

if TYPE_CHECKING:
    from trainbudget.ledger import Ledger, Source


def land_progress_file(ledger: Ledger, source: Source, path: Path) -> tuple[int, int]:
    """Land the events of one JSONL file under `source`; return (landed, quarantined)."""
    with duckdb_path(path) as literal:  # a name with `*` or `[` is one file, not a pattern
        ledger.execute("reconcile/land/progress_stage", path=literal)
    ledger.execute(
        "reconcile/land/progress_quarantine",
        source_id=source.source_id,
        source_path=source.source_path,
        now=datetime.now(UTC),
    )
    landed = ledger.execute(
        "reconcile/land/progress_insert",
        source_id=source.source_id,
        source_path=source.source_path,
        source_sha256=source.source_sha256,
        landed_at=source.landed_at,
    ).fetchone()[0]
    (quarantined,) = ledger.query("reconcile/land/source_quarantined", source_id=source.source_id)[
        0
    ]
    return landed, quarantined
