"""Tables both reports show: gate decisions, data-quality expectations, the Data Docs link."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainbudget.report import format as fmt
from trainbudget.report.format import Column
from trainbudget.report.model import Table

if TYPE_CHECKING:
    from trainbudget.gates.outcome import GateOutcome
    from trainbudget.quality.checkpoint import QualityReport

GATE_COLUMNS = [
    Column("gate", "Gate"),
    Column("job_id", "Job"),
    Column("outcome", "Outcome"),
    Column("reason", "Reason code"),
    Column("sentence", "Why"),
]
QUALITY_COLUMNS = [
    Column("dataset", "Data set"),
    Column("check", "Check"),
    Column("expectation", "Expectation (Great Expectations)"),
    Column("success", "Held", fmt.yes_no),
    Column("observed", "Observed"),
    Column("unexpected_count", "Rows failing it", fmt.number),
]
_UNEXPECTED = re.compile(r"^(\d+) unexpected of (\d+)$")
_EXPECTATION = re.compile(r"^(expect_[a-z_]+)(?:\((.*)\))?$")
# What each expectation the checkpoints use asks, in words ({} is its column list).
_CHECKS = {
    "expect_table_row_count_to_be_between": "has rows",
    "expect_compound_columns_to_be_unique": "each ({}) appears once",
    "expect_column_values_to_not_be_null": "{} is never empty",
    "expect_column_values_to_be_between": "{} is within its bounds",
    "expect_column_values_to_be_in_set": "{} is a known value",
    "expect_column_max_to_be_between": "the latest {} is in the week (fresh data)",
}


def data_docs_links(quality: QualityReport, folder: Path) -> dict[str, str]:
    """A link to the run's Great Expectations Data Docs, relative to the report's folder."""
    if quality.docs_index is None:
        return {}
    return {"Great Expectations Data Docs": quality.docs_index.relative_to(folder).as_posix()}


def gate_rows(gates: list[GateOutcome]) -> list[dict[str, Any]]:
    """One table row per gate decision (the retry gate names its job)."""
    return [
        {
            "gate": g.gate,
            "job_id": g.inputs.get("job_id", ""),
            "outcome": g.outcome,
            "reason": g.reason,
            "sentence": g.sentence,
        }
        for g in gates
    ]


def _observed(value: Any) -> str:
    """`0 unexpected of 24` → `0 of 24 rows`; a number with separators; other text as is."""
    if isinstance(value, str) and (match := _UNEXPECTED.match(value)):
        return f"{int(match[1]):,} of {fmt.plural(int(match[2]), 'row')}"
    if isinstance(value, str) and value.isdigit():
        return fmt.plural(int(value), "row")
    return fmt.number(value) if isinstance(value, int | float) else str(value or "")


def check_words(expectation: str) -> str:
    """`expect_column_values_to_not_be_null(job_id)` → `job_id is never empty`."""
    match = _EXPECTATION.match(expectation)
    if not match or match[1] not in _CHECKS:
        return ""
    columns = ", ".join(c.strip() for c in (match[2] or "").split(",") if c.strip())
    return _CHECKS[match[1]].format(columns or "the value")


def quality_rows(quality: QualityReport) -> list[dict[str, Any]]:
    """The checkpoint's outcomes with the check and the observed value in words."""
    return [
        r | {"check": check_words(r["expectation"]), "observed": _observed(r["observed"])}
        for r in quality.rows()
    ]


def quality_table(quality: QualityReport, note: str = "") -> Table:
    """The data-quality expectations, one row per expectation; failed ones flagged."""
    rows = quality_rows(quality)
    flagged = tuple(i for i, r in enumerate(rows) if not r["success"])
    return Table.of("Data-quality expectations", rows, QUALITY_COLUMNS, note, flagged=flagged)


def table_row_count(quality: QualityReport, dataset: str) -> int | None:
    """The row count the checkpoint observed for `dataset` (its table-row-count expectation)."""
    for row in quality.rows():
        observed = str(row["observed"])
        if row["dataset"] == dataset and "row_count" in row["expectation"] and observed.isdigit():
            return int(observed)
    return None
