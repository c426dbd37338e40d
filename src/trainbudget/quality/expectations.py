"""What the landed data must look like before anything is reported from it, as plain data.

Each dataset (a landed ledger table) has a list of `Expect` items naming a Great Expectations
1.x expectation class and its arguments; `quality.checkpoint` turns them into GE suites. A
review week is the (start, end) pair of `trainbudget.reconcile.week.week_bounds`. Kept free of
GE imports so the rules can be read, tested and listed without loading GE (~10 s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trainbudget.reconcile.progress import EVENTS as PROGRESS_EVENTS
from trainbudget.reconcile.sacct_format import SLURM_STATES

# One allocation of more GPUs than this is a parsing error, not a job (largest public
# clusters schedule a few tens of thousands; a single job rarely asks for more than 32k).
MAX_GPUS_PER_JOB = 32_768


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


def _not_null(*columns: str) -> list[Expect]:
    return [Expect("ExpectColumnValuesToNotBeNull", {"column": c}) for c in columns]


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
            *_not_null("cluster", "job_id", "state", "gpus", "elapsed_seconds"),
            Expect("ExpectColumnValuesToBeInSet", {"column": "state", "value_set": SLURM_STATES}),
            Expect(
                "ExpectColumnValuesToBeBetween",
                {"column": "gpus", "min_value": 0, "max_value": MAX_GPUS_PER_JOB},
            ),
            Expect("ExpectColumnValuesToBeBetween", {"column": "elapsed_seconds", "min_value": 0}),
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
            *_not_null("job_id", "event_time", "event"),
            Expect(
                "ExpectColumnValuesToBeInSet", {"column": "event", "value_set": PROGRESS_EVENTS}
            ),
            Expect("ExpectColumnValuesToBeBetween", {"column": "step", "min_value": 0}),
            Expect(
                "ExpectColumnValuesToBeBetween", {"column": "resumed_from_step", "min_value": 0}
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
    return DatasetSuite(
        "pilot",
        (
            Expect("ExpectTableRowCountToBeBetween", {"min_value": 1}),
            *_not_null("run_id", "step", "wall_seconds", "gpus"),
            Expect(
                "ExpectColumnValuesToBeBetween",
                {"column": "wall_seconds", "min_value": 0, "strict_min": True},
            ),
            Expect("ExpectColumnValuesToBeBetween", {"column": "gpus", "min_value": 1}),
            Expect("ExpectColumnValuesToBeBetween", {"column": "tokens", "min_value": 0}),
            Expect(
                "ExpectColumnValuesToBeBetween", {"column": "peak_memory_bytes", "min_value": 0}
            ),
            Expect("ExpectCompoundColumnsToBeUnique", {"column_list": ["run_id", "step"]}),
        ),
    )
