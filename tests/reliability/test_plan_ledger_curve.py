"""`reliability: {mtbf: ledger}` end to end: `campaign` forecasts with the MTBF(n) fitted to the
demo cluster's landed failure history, and refuses in one line when there is none."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest

from trainbudget.demo_data import DEMO_CLUSTER, demo_inputs

RELIABILITY = "reliability: {mtbf: ledger, restart_minutes: 10, checkpoint_write_minutes: 2}\n"


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "forecast.plan.yaml"
    path.write_text(demo_inputs().plan.read_text() + RELIABILITY)
    return path


def test_campaign_forecasts_with_the_ledger_fit(plan: Path, tmp_path: Path, cli) -> None:
    demo = demo_inputs()
    ledger = tmp_path / "ledger.duckdb"
    sacct = [a for path in (*demo.history, *demo.sacct) for a in ("--sacct", str(path))]
    landed = cli(
        "--ledger", str(ledger), "reconcile", *sacct, "--registry", str(demo.registry),
        "--progress", str(demo.progress), "--plan", str(demo.plan), "--cluster", DEMO_CLUSTER,
        "--week", demo.review_week, "--json",
    )  # fmt: skip
    assert landed.code == 0, landed.stderr
    fit = cli("--ledger", str(ledger), "reliability", "--campaign", "demo-1b", "--json")
    assert fit.code == 0, fit.stderr
    result = cli("--ledger", str(ledger), "campaign", str(plan), "--json")
    assert result.code == 0, result.stderr
    forecast = orjson.loads(result.stdout)["forecast"]
    assert forecast["mtbf_source"] == "ledger"
    # The campaign's 8-GPU main run at the curve `reliability` fitted, from its own JSON.
    curve = orjson.loads(fit.stdout)["fit"]
    expected = curve["reference_hours"] * (8 / curve["reference_gpus"]) ** curve["exponent"]
    assert forecast["mtbf_hours"] == pytest.approx(expected, rel=1e-9)
    lines = forecast["overhead_gpu_hours"]
    total = Decimal(str(forecast["compute_gpu_hours"])) + sum(
        Decimal(str(v)) for v in lines.values()
    )
    assert total == pytest.approx(Decimal(str(forecast["main_gpu_hours"])), rel=Decimal("1e-12"))
    low, high = forecast["ettr_interval"]
    assert low <= forecast["ettr"] <= high < 1


def test_no_history_is_one_line(plan: Path, tmp_path: Path, cli) -> None:
    ledger = tmp_path / "empty.duckdb"
    assert cli("--ledger", str(ledger), "ledger", "init").code == 0
    result = cli("--ledger", str(ledger), "campaign", str(plan), "--json")
    assert result.code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "failure history" in result.stderr


def test_weekly_review_audits_the_forecast(tmp_path: Path, cli) -> None:
    demo = demo_inputs()
    plan = tmp_path / "forecast.plan.yaml"
    plan.write_text(
        demo.plan.read_text()
        + "reliability: {job_mtbf_hours: 40, restart_minutes: 10, checkpoint_write_minutes: 2}\n"
    )
    forecast = orjson.loads(cli("campaign", str(plan), "--json").stdout)["forecast"]
    sacct = [a for path in demo.sacct for a in ("--sacct", str(path))]
    result = cli(
        "--ledger", str(tmp_path / "l.duckdb"), "reconcile", *sacct,
        "--registry", str(demo.registry), "--progress", str(demo.progress), "--plan", str(plan),
        "--cluster", DEMO_CLUSTER, "--week", demo.review_week, "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    rows = {row["line"]: row for row in orjson.loads(result.stdout)["forecast_audit"]}
    assert set(rows) == {
        "ettr", "mtbf_hours", "checkpoint_writes", "lost_progress", "restarts", "recomputation"
    }  # fmt: skip
    ettr = rows["ettr"]
    assert ettr["forecast"] == pytest.approx(forecast["ettr"])
    assert 0 < ettr["actual"] < 1
    assert ettr["actual_over_forecast"] == pytest.approx(ettr["actual"] / ettr["forecast"])
    lost = rows["lost_progress"]
    share = forecast["overhead_gpu_hours"]["lost_progress"] / forecast["main_gpu_hours"]
    assert lost["forecast"] == pytest.approx(share)
