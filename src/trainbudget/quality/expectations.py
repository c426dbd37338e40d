"""What the landed data must look like before anything is reported from it, as plain data.

Each dataset (a landed ledger table) has a list of `Expect` items naming a Great Expectations
1.x expectation class and its arguments; `quality.checkpoint` turns them into GE suites. A
review week is the (start, end) pair of `trainbudget.reconcile.week.week_bounds`. Kept free of
GE imports so the rules can be read, tested and listed without loading GE (~10 s).

The null, range and set expectations of a column are derived from the rules the landing
enforces (`quality.rules`; for pilot steps, the PilotStep model), so the report and the gate
check what landed against the same thresholds; what only a whole table can say (row count,
uniqueness, freshness) is written here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trainbudget.quality.rules import (
    PILOT_STEP_RULES,
    PROGRESS_EVENTS_RULES,
    SACCT_ROWS,
    FieldRule,
    TableRules,
)


@dataclass(frozen=True)
class Expect:
    """One expectation: the GE class name (e.g. "ExpectColumnValuesToNotBeNull") and kwargs."""

    kind: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DatasetSuite:
    """The expectations for one landed dataset (read by its sql/quality/ query)."""

    name: str
    expectations: tuple[Expect, ...]


def column_expectations(rules: tuple[FieldRule, ...], columns: tuple[str, ...]) -> list[Expect]:
    """Not-null, in-set and between expectations of `columns`, from their declared rules."""
    out: list[Expect] = []
    for rule in (r for r in rules if r.column in columns):
        if not rule.nullable:
            out.append(Expect("ExpectColumnValuesToNotBeNull", {"column": rule.column}))
        if rule.isin is not None:
            out.append(
                Expect(
                    "ExpectColumnValuesToBeInSet",
                    {"column": rule.column, "value_set": list(rule.isin)},
                )
            )
        if rule.ge is not None or rule.gt is not None or rule.le is not None:
            bounds: dict[str, Any] = {"column": rule.column}
            if rule.ge is not None:
                bounds["min_value"] = rule.ge
            elif rule.gt is not None:
                bounds.update(min_value=rule.gt, strict_min=True)
            if rule.le is not None:
                bounds["max_value"] = rule.le
            out.append(Expect("ExpectColumnValuesToBeBetween", bounds))
    return out


def _columns(rules: TableRules, *columns: str) -> list[Expect]:
    return column_expectations(rules.fields, columns)


def _fresh(column: str, week: tuple[datetime, datetime]) -> Expect:
    # Freshness: the newest record must fall inside the review week [start, end), neither stale
    # (an export from an earlier week) nor from the future (a clock or time-zone error).
    return Expect(
        "ExpectColumnMaxToBeBetween",
        {"column": column, "min_value": week[0], "max_value": week[1]},
    )


def sacct_suite(week: tuple[datetime, datetime]) -> DatasetSuite:
    """Allocation lines of sacct (steps excluded): ids, states, GPU counts, elapsed, freshness."""
    return DatasetSuite(
        "sacct",
        (
            Expect("ExpectTableRowCountToBeBetween", {"min_value": 1}),
            *_columns(SACCT_ROWS, "cluster", "job_id", "state", "gpus", "elapsed_seconds"),
            Expect(
                "ExpectCompoundColumnsToBeUnique",
                {"column_list": ["cluster", "job_id", "submit_time"]},
            ),
            _fresh("start_time", week),
        ),
    )


def progress_suite(week: tuple[datetime, datetime]) -> DatasetSuite:
    """Application progress events: known event kinds, non-negative steps, freshness."""
    return DatasetSuite(
        "progress",
        (
            Expect("ExpectTableRowCountToBeBetween", {"min_value": 1}),
            *_columns(
                PROGRESS_EVENTS_RULES, "job_id", "event_time", "event", "step", "resumed_from_step"
            ),
            Expect(
                "ExpectCompoundColumnsToBeUnique",
                {"column_list": ["job_id", "event_time", "event", "step"]},
            ),
            _fresh("event_time", week),
        ),
    )


def pilot_suite() -> DatasetSuite:
    """Pilot step logs: positive step times and token counts, one row per (run, step)."""
    columns = ("run_id", "step", "wall_seconds", "tokens", "gpus", "peak_memory_bytes")
    return DatasetSuite(
        "pilot",
        (
            Expect("ExpectTableRowCountToBeBetween", {"min_value": 1}),
            *column_expectations(PILOT_STEP_RULES.fields, columns),
            Expect("ExpectCompoundColumnsToBeUnique", {"column_list": ["run_id", "step"]}),
        ),
    )
