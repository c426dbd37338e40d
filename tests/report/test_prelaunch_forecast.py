"""The pre-launch report shows the main-run forecast with the same figures as `campaign --json`
(one number through every door)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson

from trainbudget.demo_data import demo_inputs
from trainbudget.report import format as fmt

RELIABILITY = (
    "reliability: {job_mtbf_hours: 40, restart_minutes: 10, checkpoint_write_minutes: 2}\n"
)


def test_prelaunch_report_has_the_forecast_lines(tmp_path: Path, cli) -> None:
    demo = demo_inputs()
    plan = tmp_path / "forecast.plan.yaml"
    plan.write_text(demo.plan.read_text() + RELIABILITY)
    campaign = cli("campaign", str(plan), "--json")
    assert campaign.code == 0, campaign.stderr
    forecast = orjson.loads(campaign.stdout)["forecast"]
    result = cli(
        "prelaunch", str(plan), "--pilot-log", str(demo.pilot_logs[0]),
        "--gain", "0.05", "--gain-uncertainty", "0.01", "--no-ledger",
        "--report-root", str(tmp_path / "reports"), "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    html = Path(orjson.loads(result.stdout)["report"]).read_text(encoding="utf-8")
    assert "Main-run forecast" in html
    for name in ("compute", "checkpoint writes", "lost progress", "restarts", "main run"):
        assert f"<td>{name}</td>" in html
    # The run prices compute at the pilot's MFU; the other work classes do not depend on it,
    # so its main-run forecast = its planned total − what campaign --json plans besides main.
    others = Decimal(str(orjson.loads(campaign.stdout)["planned_gpu_hours"])) - Decimal(
        str(forecast["main_gpu_hours"])
    )
    planned = Decimal(str(orjson.loads(result.stdout)["planned_gpu_hours"]))
    main = fmt.gpu_hours(planned - others)
    assert f'<td class="num">{main}</td>' in html or f"<td>{main}</td>" in html, main
    assert forecast["mtbf_source"] == "plan" and "job MTBF 40" in html


def test_without_reliability_the_report_shows_the_band_beside_the_main_line(
    tmp_path: Path, cli
) -> None:
    demo = demo_inputs()
    plan = tmp_path / "prior.plan.yaml"
    plan.write_text(demo.plan.read_text().replace(", mfu: 0.4}", "}"))
    result = cli(
        "prelaunch", str(plan), "--pilot-log", str(demo.pilot_logs[0]),
        "--gain", "0.05", "--gain-uncertainty", "0.01", "--no-ledger",
        "--report-root", str(tmp_path / "reports"), "--json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    html = Path(orjson.loads(result.stdout)["report"]).read_text(encoding="utf-8")
    # The pilot measured the MFU: its band (p90/p10 1.3) and what moves it, on the main line.
    assert "band p10–p90" in html and "(throughput pilot; moved most by the throughput)" in html
