"""The data-quality rules as data: ISO weeks and what each suite checks."""

from __future__ import annotations

from datetime import UTC, datetime

from trainbudget.quality.expectations import pilot_suite, progress_suite, sacct_suite

# ISO week 2026-W47 in UTC: Monday 16 November to Monday 23 November.
WEEK = (datetime(2026, 11, 16, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=UTC))


def test_freshness_bounds_are_the_review_week() -> None:
    for suite, column in ((sacct_suite(WEEK), "start_time"), (progress_suite(WEEK), "event_time")):
        (fresh,) = [e for e in suite.expectations if e.kind == "ExpectColumnMaxToBeBetween"]
        assert fresh.kwargs == {"column": column, "min_value": WEEK[0], "max_value": WEEK[1]}


def test_every_suite_checks_row_count_and_uniqueness() -> None:
    for suite in (sacct_suite(WEEK), progress_suite(WEEK), pilot_suite()):
        kinds = {e.kind for e in suite.expectations}
        assert {"ExpectTableRowCountToBeBetween", "ExpectCompoundColumnsToBeUnique"} <= kinds
        assert any(e.kind == "ExpectColumnValuesToNotBeNull" for e in suite.expectations)
