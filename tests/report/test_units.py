"""The weekly report's cluster-units section (report/units.py): billing-hours by class and
week, what disagrees with the plan, and the burn-down's sentence and chart."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from types import SimpleNamespace

from matplotlib.dates import date2num

from trainbudget.reconcile.billing import BillingReview
from trainbudget.reconcile.burndown import Week, project_burn_down
from trainbudget.report.units import billing_section, burn_down_figure, burn_down_section

W47 = datetime(2026, 11, 16, tzinfo=UTC)
W48 = datetime(2026, 11, 23, tzinfo=UTC)


def _billing(**extra) -> BillingReview:
    return BillingReview(
        allocated_billing_seconds=240 * 3600,
        billed_jobs=2,
        unbilled_jobs=1,
        by_class=({"work_class": "main", "billing_hours": 256, "billing_seconds": 256 * 3600},
                  {"work_class": "pilot", "billing_hours": 16, "billing_seconds": 16 * 3600}),
        by_week=({"week": "2026-W47", "week_start": W47, "billing_hours": 32,
                  "billing_seconds": 32 * 3600},
                 {"week": "2026-W48", "week_start": W48, "billing_hours": 240,
                  "billing_seconds": 240 * 3600}),
        **extra,
    )  # fmt: skip


def test_billing_lines_and_table_sum_to_the_campaign() -> None:
    lines, tables = billing_section(SimpleNamespace(billing=_billing()))
    assert lines == [
        "Billing units: 240 billing-hours this week (2 jobs with billing=N, 1 without); "
        "272 to date."
    ]
    (table,) = tables
    assert [row[0] for row in table.rows] == [
        "main", "pilot", "2026-W47", "2026-W48", "campaign to date",
    ]  # fmt: skip
    assert table.rows[-1][1] == 272


def test_disagreements_get_their_own_table() -> None:
    row = {"partition": "gpu", "cpus": 16, "mem_gib": 128, "gpus": 2, "nodes": 1,
           "recorded_billing": 16, "plan_billing": 52, "jobs": 1, "job_ids": ["2"]}  # fmt: skip
    lines, tables = billing_section(
        SimpleNamespace(billing=_billing(disagreements=(row,), checked=True, rule="sum"))
    )
    assert "disagrees with the plan's weights" in lines[-1]
    assert tables[-1].title == "Billing against the plan"


def test_the_burn_down_is_a_sentence_and_a_chart() -> None:
    burn = project_burn_down(
        [Week("2026-W47", date(2026, 11, 16), Decimal(100)),
         Week("2026-W48", date(2026, 11, 23), Decimal(140))],
        date(2026, 11, 23), Decimal(240), Decimal(600),
    )  # fmt: skip
    review = SimpleNamespace(
        burn_down=burn,
        accounting_by_week=(
            {"week": "2026-W47", "week_start": W47, "allocated_gpu_hours": Decimal(100)},
            {"week": "2026-W48", "week_start": W48, "allocated_gpu_hours": Decimal(140)},
        ),
    )
    lines, charts = burn_down_section(review)
    assert lines[0].startswith("Burn-down: At 120.0 GPU-hours a week (over the last 2 weeks)")
    assert "2026-W51" in lines[0]
    assert charts[0].png.startswith(b"\x89PNG")
    assert burn_down_section(SimpleNamespace(burn_down=None)) == ([], [])


def test_the_chart_marks_the_day_the_allocation_runs_out() -> None:
    # 1,000 GPU-hours of allocation left, burned at (100 + 140) / 2 = 120 a week; day 1 is the
    # Monday after W48 (2026-11-30) and d = ceil(7 × 1000 / 120) = 59, so 2027-01-27.
    weeks = [Week("2026-W47", date(2026, 11, 16), Decimal(100)),
             Week("2026-W48", date(2026, 11, 23), Decimal(140))]  # fmt: skip
    burn = project_burn_down(
        weeks, date(2026, 11, 23), Decimal(240), Decimal(600),
        allocation_unit="gpu_hours", allocation_remaining=Decimal(1000),
    )  # fmt: skip
    assert burn.allocation_runs_out == date(2027, 1, 27)
    figure = burn_down_figure([(date(2026, 11, 16), 100.0), (date(2026, 11, 23), 140.0)], burn)
    (axes,) = figure.axes
    labels = [line.get_label() for line in axes.get_lines()]
    assert "allocation runs out (2027-01-27)" in labels
    assert axes.get_xlim()[1] >= date2num(date(2027, 1, 27))
