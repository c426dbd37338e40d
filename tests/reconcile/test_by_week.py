"""Allocated GPU-hours by week (reconcile/by_week.py): every job, untracked included, and the
weeks sum to the campaign to date. The demo's 2026-W45 once showed 63.17 while its sacct job
lines total 65.17 (job 1009, `jupyter`, untracked, 2 GPU-hours was missing)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

import pytest

from trainbudget.demo_data import DEMO_CLUSTER, demo_inputs
from trainbudget.ledger import Ledger
from trainbudget.weekly import WeeklyInputs, reconcile

W45 = (datetime(2026, 11, 2, tzinfo=UTC), datetime(2026, 11, 9, tzinfo=UTC))


def _job_lines_gpu_seconds(path, bounds) -> tuple[int, list[str]]:
    """GPUs × ElapsedRaw of every job line (no step lines) that started in `bounds`, read from
    the sacct file itself: the hand calculation the review must agree with."""
    total, names = 0, []
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="|"):
            if "." in row["JobID"] or row["Start"] in ("None", "Unknown", ""):
                continue  # a step line, or a job that never started (no allocation)
            start = datetime.fromisoformat(row["Start"]).replace(tzinfo=UTC)
            if not bounds[0] <= start < bounds[1]:
                continue
            tres = dict(item.split("=", 1) for item in row["AllocTRES"].split(","))
            total += int(tres.get("gres/gpu", 0)) * int(row["ElapsedRaw"])
            names.append(f"{row['JobID']} {row['JobName']}")
    return total, names


@pytest.fixture(scope="module")
def demo_review(tmp_path_factory):
    demo = demo_inputs()
    root = tmp_path_factory.mktemp("by-week")
    with Ledger.open(root / "l.duckdb") as book:
        result = reconcile(
            book,
            WeeklyInputs(
                sacct=demo.sacct, registry=demo.registry, progress=demo.progress,
                manifest=demo.manifest, plan=demo.plan, week="2026-W47", cluster=DEMO_CLUSTER,
            ),
            None,
        )  # fmt: skip
    return demo, result


def test_the_demos_first_week_counts_its_untracked_jupyter_job(demo_review) -> None:
    demo, result = demo_review
    expected, names = _job_lines_gpu_seconds(demo.sacct[0], W45)
    assert "1009 jupyter" in names and len(names) == 8
    assert expected == 234_600  # 65.1666… GPU-hours
    rows = {r["week"]: r for r in result.review.accounting_by_week}
    assert rows["2026-W45"]["allocated_gpu_seconds"] == expected
    assert rows["2026-W45"]["allocated_gpu_hours"] == Decimal(234_600) / 3600
    # 1009 has no progress events: its 2 GPU-hours are unverified.
    assert rows["2026-W45"]["untracked_unread_gpu_seconds"] == 2 * 3600
    assert rows["2026-W45"]["unverified_gpu_seconds"] == 2 * 3600


def test_the_weeks_sum_to_the_campaign_to_date(demo_review) -> None:
    demo, result = demo_review
    weeks = result.review.accounting_by_week
    assert [r["week"] for r in weeks] == ["2026-W45", "2026-W46", "2026-W47"]
    # Each week's job lines, read from its own file.
    by_file = [
        _job_lines_gpu_seconds(path, (start, end))[0]
        for path, (start, end) in zip(
            demo.sacct,
            [W45, (W45[1], datetime(2026, 11, 16, tzinfo=UTC)),
             (datetime(2026, 11, 16, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=UTC))],
            strict=True,
        )
    ]  # fmt: skip
    assert [r["allocated_gpu_seconds"] for r in weeks] == by_file
    variance = result.review.variance
    assert sum(by_file) == variance["actual_gpu_seconds"]
    # 65.1666… + 536 + 57 GPU-hours, "658.17" on screen: the summary's campaign to date.
    assert variance["actual_gpu_seconds"] == 234_600 + (536 + 57) * 3600
    assert abs(Fraction(variance["actual_gpu_hours"]) - Fraction(2_369_400, 3600)) < 1e-20
    # The reviewed week's row is the week's totals, class by class.
    last = weeks[-1]
    for k in ("allocated", "useful", "recovery", "lost", "unverified"):
        assert last[f"{k}_gpu_seconds"] == result.review.totals[f"{k}_gpu_seconds"]
