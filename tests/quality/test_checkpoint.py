"""Great Expectations checkpoints over landed frames: pass on good data, name each failure."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from trainbudget.demo_data import demo_inputs
from trainbudget.quality.checkpoint import QualityReport, run_quality_checks
from trainbudget.quality.expectations import pilot_suite, progress_suite, sacct_suite
from trainbudget.reconcile.week import week_bounds

WEEK = week_bounds("2026-W47")


def _sacct(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema={
            "cluster": pl.String,
            "job_id": pl.String,
            "state": pl.String,
            "gpus": pl.Int32,
            "elapsed_seconds": pl.Int64,
            "submit_time": pl.Datetime("us", "UTC"),
            "start_time": pl.Datetime("us", "UTC"),
        },
        orient="row",
    )


def _progress() -> pl.DataFrame:
    return pl.read_ndjson(demo_inputs().progress).select(
        "job_id",
        pl.col("time").str.to_datetime(time_zone="UTC").alias("event_time"),
        "event",
        pl.col("step").cast(pl.Int64),
        pl.col("resumed_from_step").cast(pl.Int64),
    )


def _pilot() -> pl.DataFrame:
    return pl.concat([pl.read_csv(p) for p in demo_inputs().pilot_logs])


GOOD_SACCT = [
    (
        "c",
        "3001",
        "COMPLETED",
        2,
        9000,
        datetime(2026, 11, 16, 7, 55, tzinfo=UTC),
        datetime(2026, 11, 16, 8, tzinfo=UTC),
    ),
    (
        "c",
        "3006",
        "FAILED",
        2,
        3600,
        datetime(2026, 11, 17, 10, 55, tzinfo=UTC),
        datetime(2026, 11, 17, 11, tzinfo=UTC),
    ),
    ("c", "1008", "CANCELLED", 0, 0, datetime(2026, 11, 16, 11, tzinfo=UTC), None),
]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> tuple[QualityReport, Path]:
    docs = tmp_path_factory.mktemp("docs")
    frames = {"sacct": _sacct(GOOD_SACCT), "progress": _progress(), "pilot": _pilot()}
    report = run_quality_checks(
        frames, [sacct_suite(WEEK), progress_suite(WEEK), pilot_suite()], docs
    )
    return report, docs


@pytest.fixture(scope="module")
def bad() -> QualityReport:
    rows = [
        *GOOD_SACCT,
        ("c", "3001", "COMPLETED", 2, 9000, GOOD_SACCT[0][5], GOOD_SACCT[0][6]),  # duplicate
        (
            "c",
            "9",
            "BOGUS",
            -8,
            -1,
            datetime(2026, 11, 1, tzinfo=UTC),
            datetime(2026, 11, 30, tzinfo=UTC),
        ),  # from the future: after the review week
    ]
    return run_quality_checks({"sacct": _sacct(rows)}, [sacct_suite(WEEK)])


def test_clean_demo_shaped_data_passes_every_expectation(good) -> None:
    report, _ = good
    assert report.success, report.summary()
    suites = [sacct_suite(WEEK), progress_suite(WEEK), pilot_suite()]
    assert len(report.outcomes) == sum(len(s.expectations) for s in suites)


def test_data_docs_are_written_into_the_given_folder(good) -> None:
    report, docs = good
    assert report.docs_index == docs / "index.html"
    assert "sacct" in report.docs_index.read_text(encoding="utf-8")
    assert list(docs.rglob("validations/**/*.html"))


def test_each_broken_rule_is_named(bad) -> None:
    assert not bad.success
    failed = {(f.dataset, f.expectation) for f in bad.failures}
    assert failed == {
        ("sacct", "expect_column_values_to_be_in_set(state)"),
        ("sacct", "expect_column_values_to_be_between(gpus)"),
        ("sacct", "expect_column_values_to_be_between(elapsed_seconds)"),
        ("sacct", "expect_compound_columns_to_be_unique(cluster,job_id,submit_time)"),
        ("sacct", "expect_column_max_to_be_between(start_time)"),
    }
    assert "failed: sacct:" in bad.summary()


def test_stale_data_fails_freshness() -> None:
    later = week_bounds("2026-W49")
    report = run_quality_checks({"sacct": _sacct(GOOD_SACCT)}, [sacct_suite(later)])
    assert [f.expectation for f in report.failures] == [
        "expect_column_max_to_be_between(start_time)"
    ]


def test_missing_frame_is_an_error() -> None:
    with pytest.raises(KeyError, match="progress"):
        run_quality_checks({}, [progress_suite(WEEK)])
