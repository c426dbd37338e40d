"""The weekly report is built from typed results (the Review, the gate outcomes): no ledger."""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import orjson

from trainbudget.estimate.mfu_rule import MfuChoice
from trainbudget.gates.outcome import GateOutcome
from trainbudget.plan import parse_plan
from trainbudget.quality.checkpoint import QualityReport
from trainbudget.reconcile.review import Review
from trainbudget.report.weekly import build_weekly_report

REPORT = Path(__file__).resolve().parents[2] / "src" / "trainbudget" / "report"
PLAN = """\
campaign: c
unit_of_progress: tokens
prices: {gpu_hour_usd: 2.40}
ceiling: {gpu_hours: 2000}
main: {gpus: 8, hours: 10}
"""


def test_the_report_takes_accounting_by_week_from_the_review(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.json"
    jobs.write_bytes(orjson.dumps([{"job_id": "101", "state": "NODE_FAIL", "gpus": 8}]))
    by_week = (
        {"week": "2026-W47", "allocated_gpu_hours": 10.0, "useful_gpu_hours": 6.0,
         "recovery_gpu_hours": 1.0, "lost_gpu_hours": 2.0, "unverified_gpu_hours": 1.0},
        {"week": "2026-W48", "allocated_gpu_hours": 80.0, "useful_gpu_hours": 64.0,
         "recovery_gpu_hours": 0.0, "lost_gpu_hours": 16.0, "unverified_gpu_hours": 0.0},
    )  # fmt: skip
    totals = {f"{k}_gpu_hours": Decimal(0) for k in ("allocated", "useful", "recovery", "lost")}
    review = Review(
        jobs_path=jobs, totals={**totals, "unverified_gpu_hours": Decimal(0), "jobs": 1},
        variance=None, diagnosis=[], breakdown=[], audit=[], calibration=[],
        failure_fraction=None, tracked=[], top_jobs=[],
        week=(datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)),
        accounting_by_week=by_week,
    )  # fmt: skip
    gate = GateOutcome("retry", "deny", "cause-unaddressed", "Deny.", {"job_id": "101"})
    quality = QualityReport(True, (), None)
    mfu = MfuChoice(None, "plan-hours")
    report = build_weekly_report(
        parse_plan(PLAN), "2026-W48", review, [gate], quality, tmp_path, mfu
    )
    assert "Main-run MFU: none, the plan fixes the main run's hours." in report.summary
    tables = {t.title: t for t in report.tables}
    weeks = tables["Allocated GPU-hours by week"]
    assert [row[0] for row in weeks.rows] == ["2026-W47", "2026-W48", "campaign to date"]
    assert weeks.rows[1][weeks.columns.index("Lost")] == 16.0
    # The last row is the weeks summed: 10 + 80 allocated, 2 + 16 lost.
    assert weeks.rows[2][weeks.columns.index("Allocated GPU-hours")] == 90.0
    assert weeks.rows[2][weeks.columns.index("Lost")] == 18.0
    assert [c.title for c in report.charts] == ["Allocated GPU-hours by week"]
    gates = tables["Gate decisions"]
    assert gates.rows == [["retry", "101", "deny", "cause-unaddressed", "Deny."]]
    assert [v.subject for v in report.verdicts] == ["data quality", "retry (job 101)"]


def test_no_report_module_opens_or_reads_a_ledger() -> None:
    for path in sorted(REPORT.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in modules if m and ("ledger" in m or "duckdb" in m)}, path.name
        calls = {
            n.func.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        }
        assert not calls & {"records", "query", "execute"}, path.name


def test_without_a_job_list_the_report_shows_the_reviews_largest_jobs_in_hours(
    tmp_path: Path,
) -> None:
    top = [
        {"job_id": "7", "state": "NODE_FAIL", "work_class": "main", "gpus": 8,
         "elapsed_seconds": 4500, "allocated": 36000, "useful": 21600, "recovery": 3600,
         "lost": 7200, "unverified": 3600, "flags": None},
    ]  # fmt: skip
    totals = {f"{k}_gpu_hours": Decimal(0) for k in ("allocated", "useful", "recovery", "lost")}
    review = Review(
        jobs_path=None, totals={**totals, "unverified_gpu_hours": Decimal(0), "jobs": 1},
        variance=None, diagnosis=[], breakdown=[], audit=[], calibration=[],
        failure_fraction=None, tracked=[], top_jobs=top,
    )  # fmt: skip
    report = build_weekly_report(
        parse_plan(PLAN), "2026-W48", review, [], QualityReport(True, (), None), tmp_path,
        MfuChoice(None, "plan-hours"),
    )  # fmt: skip
    table = next(t for t in report.tables if t.title == "Jobs of 2026-W48")
    cells = dict(
        zip(table.columns, (table.cell(table.rows[0], i) for i in range(12)), strict=False)
    )
    # 36,000 GPU-seconds = 10 GPU-hours = 6 useful + 1 recovery + 2 lost + 1 unverified.
    split = ("Allocated GPU-hours", "Useful", "Recovery", "Lost", "Unverified")
    assert [cells[c] for c in split] == ["10", "6", "1", "2", "1"]
    assert cells["Elapsed (h)"] == "1.25" and "Flags" not in table.columns
    assert table.links == ()  # no CSV was written
