"""The weekly-review procedure as plain calls (no Prefect): the week, the summary, one landing
for `reconcile` and the review, and a refused run that leaves the ledger as it was."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import orjson
import pytest

from trainbudget.base.errors import InputError
from trainbudget.demo_data import DEMO_CLUSTER, demo_inputs
from trainbudget.ledger import Ledger
from trainbudget.quality.landed import DataQualityError
from trainbudget.weekly import WeeklyInputs, previous_week, reconcile, run_weekly


def _inputs(tmp_path: Path, week: str = "2026-W47") -> WeeklyInputs:
    demo = demo_inputs()
    return WeeklyInputs(
        sacct=demo.sacct, registry=demo.registry, progress=demo.progress, manifest=demo.manifest,
        plan=demo.plan, week=week, cluster=DEMO_CLUSTER, report_root=tmp_path / "reports",
    )  # fmt: skip


def test_previous_week_is_the_iso_week_before() -> None:
    # Monday 2026-11-23 06:00 (week 48) reviews week 47; 2026-01-05 (W02) reviews 2026-W01.
    assert previous_week(datetime(2026, 11, 23, 6, tzinfo=UTC)) == "2026-W47"
    assert previous_week(datetime(2026, 1, 5, 6, tzinfo=UTC)) == "2026-W01"


def test_run_weekly_writes_its_summary_beside_the_report(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, summary = run_weekly(_inputs(tmp_path), book)
    folder = tmp_path / "reports" / "weekly-review-demo-1b-2026-W47"
    written = orjson.loads((folder / "summary.json").read_bytes())
    assert written == orjson.loads(orjson.dumps(summary, default=float))
    assert (written["flow"], written["week"]) == ("weekly-review", "2026-W47")
    assert [(g["gate"], g["outcome"]) for g in written["gates"]] == [
        ("continuation", "continue"), ("retry", "authorize"), ("retention", "expire"),
    ]  # fmt: skip
    # No pre-launch run stored an MFU, so the plan's own 0.4 prices its main run.
    assert (written["mfu"], written["mfu_source"]) == (0.4, "plan")
    # W47: eleven evaluation jobs of 2 GPUs × 2.5 h, 3006 failed after 1 h, the re-run 3012.
    assert summary["totals"]["allocated_gpu_hours"] == Decimal(10 * 5 + 2 + 5)
    assert (folder / "report.html").is_file() and (folder / "jobs.json").is_file()
    assert result.review.totals == summary["totals"]


def test_reconcile_lands_and_reviews_the_same_week(tmp_path: Path) -> None:
    with Ledger.open(tmp_path / "a.duckdb") as book:
        weekly, _ = run_weekly(_inputs(tmp_path), book)
    with Ledger.open(tmp_path / "b.duckdb") as book:
        alone = reconcile(book, _inputs(tmp_path), tmp_path / "jobs.json")
    assert alone.review.totals == weekly.review.totals
    assert alone.review.variance == weekly.review.variance
    assert alone.mfu == weekly.mfu
    assert orjson.loads((tmp_path / "jobs.json").read_bytes()) == orjson.loads(
        weekly.review.jobs_path.read_bytes()
    )


def test_the_week_s_jobs_go_to_jobs_parquet_beside_jobs_csv_and_the_report_links_both(
    tmp_path: Path,
) -> None:
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, _ = run_weekly(_inputs(tmp_path), book)
    folder = result.folder
    jobs = orjson.loads(result.review.jobs_path.read_bytes())
    rel = duckdb.sql(f"SELECT * FROM read_parquet('{folder / 'jobs.parquet'}')")
    rows = [dict(zip(rel.columns, row, strict=True)) for row in rel.fetchall()]
    assert rel.columns == list(jobs[0])  # every key of the JSON, in its order
    assert [r["job_id"] for r in rows] == [j["job_id"] for j in jobs]
    # The hours are exact decimals: each is its job's GPU-seconds / 3600 at 12 places.
    for row in rows:
        exact = Decimal(row["allocated_gpu_seconds"]) / 3600
        assert row["allocated_gpu_hours"] == exact.quantize(Decimal("1e-12"))
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert 'href="jobs.csv"' in page and 'href="jobs.parquet"' in page


def test_a_failed_quality_check_keeps_nothing(tmp_path: Path) -> None:
    # Reviewing 2026-W49 with data that ends in W47 breaks freshness.
    with Ledger.open(tmp_path / "ledger.duckdb") as book, pytest.raises(DataQualityError):
        run_weekly(_inputs(tmp_path, "2026-W49"), book)
    with duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM mfu_choices").fetchone() == (0,)


def test_the_weekly_review_needs_a_plan(tmp_path: Path) -> None:
    inputs = WeeklyInputs(sacct=demo_inputs().sacct, week="2026-W47")
    with Ledger.open(tmp_path / "ledger.duckdb") as book, pytest.raises(InputError, match="plan"):
        run_weekly(inputs, book)


def test_the_weekly_result_report_and_artifact_say_what_was_quarantined(tmp_path: Path) -> None:
    """Issue 23, deliverable 7: a quarantined row is in the result (typed), summary.json's
    `quarantined`, the HTML report and the Prefect verdict artifact's markdown."""
    from dataclasses import replace

    from trainbudget.report.prefect_view import verdict_markdown
    from trainbudget.weekly import build_report

    bad = tmp_path / "late.psv"
    bad.write_text(
        "JobID|State|ElapsedRaw|Start|End|AllocTRES\n"
        "9999|BOGUS|3600|2026-11-17T00:00:00|2026-11-17T01:00:00|gres/gpu=1\n",
        encoding="utf-8",
    )
    inputs = replace(_inputs(tmp_path), sacct=[*demo_inputs().sacct, bad])
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, summary = run_weekly(inputs, book)
    first = 'line 2: State: not a Slurm state: "BOGUS"'
    assert [(f.path, f.kind, f.rows, f.first) for f in result.quarantine.files] == [
        (str(bad), "sacct", 1, first)
    ]
    assert summary["quarantined"] == {
        "rows": 1, "files": [{"path": str(bad), "kind": "sacct", "rows": 1, "first": first}]
    }  # fmt: skip
    report = build_report(result)
    (verdict,) = [v for v in report.verdicts if v.subject == "quarantine"]
    assert (verdict.outcome, verdict.tone) == ("1 row quarantined", "warn")
    assert f"{bad}: 1 row(s) (first: {first})" in verdict.reason
    assert f"**quarantine: 1 row quarantined** — {bad}" in verdict_markdown(report, result.folder)
    html = (result.folder / "report.html").read_text(encoding="utf-8")
    assert "1 row quarantined" in html and bad.name in html


def test_a_clean_week_has_no_quarantine_verdict(tmp_path: Path) -> None:
    from trainbudget.weekly import build_report

    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, summary = run_weekly(_inputs(tmp_path), book)
    assert summary["quarantined"] == {"rows": 0, "files": []}
    assert all(v.subject != "quarantine" for v in build_report(result).verdicts)


def test_a_review_without_a_registry_says_what_to_pass(tmp_path: Path) -> None:
    """issue 23: without a registry every job's class is unknown; the weekly review's report
    and warnings say what the registry is for and how to pass it (once), not with one."""
    from dataclasses import replace

    from trainbudget.reconcile.diagnosis import NO_REGISTRY

    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, _ = run_weekly(replace(_inputs(tmp_path), registry=None), book)
    assert list(result.review.warnings).count(NO_REGISTRY) == 1
    report = (tmp_path / "reports" / "weekly-review-demo-1b-2026-W47" / "report.html").read_text()
    assert "pass --registry FILE" in report
    with Ledger.open(tmp_path / "with.duckdb") as book:
        given, _ = run_weekly(_inputs(tmp_path / "with"), book)
    assert NO_REGISTRY not in given.review.warnings
