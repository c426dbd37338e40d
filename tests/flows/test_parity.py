"""One procedure, two doors: the Prefect flows and the CLI land the same ledger rows and report
the same figures (planned GPU-hours, MFU and its source, gate outcomes) on the same inputs."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson
import pytest

from trainbudget.demo_data import DEMO_BASELINE_LOSS, DEMO_CLUSTER, demo_inputs

pytestmark = pytest.mark.slow
# What differs between two runs by nature: when a row was written. Everything else must match.
_CLOCK_TYPES = ("TIMESTAMP WITH TIME ZONE", "TIMESTAMP", "DATE")


def ledger_rows(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows without their clock columns, sorted, by table name."""
    with duckdb.connect(str(path), read_only=True) as con:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        found = {}
        for table in sorted(set(tables) - {"schema_version"}):
            columns = [
                name
                for name, kind in con.execute(
                    "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ?",
                    [table],
                ).fetchall()
                if kind not in _CLOCK_TYPES and not name.endswith("_json")
            ]
            select = ", ".join(f'"{c}"' for c in columns)
            rows = con.execute(f'SELECT {select} FROM "{table}"').fetchall()
            found[table] = sorted(rows, key=repr)
    return found


def _figures(summary: dict) -> dict:
    return {k: summary[k] for k in ("planned_gpu_hours", "mfu", "mfu_source", "gates")}


def test_prelaunch_flow_and_command_agree(prefect_harness, prelaunch, cli, tmp_path: Path) -> None:
    demo = demo_inputs()
    flow_summary = prelaunch.prelaunch_estimate(
        plan=demo.plan,
        pilot_logs=demo.pilot_logs,
        traces=demo.traces,
        ablations=demo.ablations,
        baseline_loss=DEMO_BASELINE_LOSS,
        bootstrap=50,
        ledger=tmp_path / "flow.duckdb",
        report_root=tmp_path / "flow",
    )
    run = cli(
        "prelaunch", str(demo.plan), *(a for p in demo.pilot_logs for a in ("--pilot-log", str(p))),
        *(a for p in demo.traces for a in ("--trace", str(p))), "--ablations", str(demo.ablations),
        "--baseline-loss", str(DEMO_BASELINE_LOSS), "--bootstrap", "50",
        "--ledger", str(tmp_path / "cli.duckdb"), "--report-root", str(tmp_path / "cli"), "--json",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    flow_json = orjson.loads(orjson.dumps(flow_summary, default=float))
    assert _figures(run.json()) == _figures(flow_json)
    assert flow_json["mfu_source"] == "pilot"
    assert ledger_rows(tmp_path / "cli.duckdb") == ledger_rows(tmp_path / "flow.duckdb")
    for door in ("flow", "cli"):
        written = orjson.loads(
            (tmp_path / door / "prelaunch-demo-1b" / "summary.json").read_bytes()
        )
        assert _figures(written) == _figures(flow_json)


def test_weekly_flow_and_run_weekly_agree(prefect_harness, weekly, tmp_path: Path) -> None:
    """The flow hands `run_weekly` its Prefect step runner; run inline, the same procedure
    lands the same rows, records the same decisions and writes the same summary."""
    from trainbudget.ledger import Ledger
    from trainbudget.weekly import WeeklyInputs, run_weekly

    demo = demo_inputs()
    files = {"registry": demo.registry, "progress": demo.progress, "manifest": demo.manifest}
    summary = weekly.weekly_review(
        plan=demo.plan, sacct=demo.sacct, week="2026-W47", cluster=DEMO_CLUSTER,
        ledger=tmp_path / "flow.duckdb", report_root=tmp_path / "flow", **files,
    )  # fmt: skip
    inputs = WeeklyInputs(
        sacct=list(demo.sacct), plan=demo.plan, week="2026-W47", cluster=DEMO_CLUSTER,
        report_root=tmp_path / "inline", **files,
    )  # fmt: skip
    with Ledger.open(tmp_path / "inline.duckdb") as book:
        _, inline = run_weekly(inputs, book)
    flow_json = orjson.loads(orjson.dumps(summary, default=float))
    inline_json = orjson.loads(orjson.dumps(inline, default=float))
    assert {k: v for k, v in flow_json.items() if k != "report"} == {
        k: v for k, v in inline_json.items() if k != "report"
    }
    assert ledger_rows(tmp_path / "inline.duckdb") == ledger_rows(tmp_path / "flow.duckdb")


def test_weekly_flow_and_reconcile_land_the_same_rows(
    prefect_harness, weekly, cli, tmp_path: Path
) -> None:
    demo = demo_inputs()
    files = {"registry": demo.registry, "progress": demo.progress, "manifest": demo.manifest}
    summary = weekly.weekly_review(
        plan=demo.plan, sacct=demo.sacct, week="2026-W47", cluster=DEMO_CLUSTER,
        ledger=tmp_path / "flow.duckdb", report_root=tmp_path / "flow", **files,
    )  # fmt: skip
    run = cli(
        "reconcile", *(a for p in demo.sacct for a in ("--sacct", str(p))),
        *(a for k, p in files.items() for a in (f"--{k}", str(p))), "--plan", str(demo.plan),
        "--week", "2026-W47", "--cluster", DEMO_CLUSTER, "--ledger", str(tmp_path / "cli.duckdb"),
        "--json",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    payload = run.json()
    flow_json = orjson.loads(orjson.dumps(summary, default=float))
    assert payload["totals"] == flow_json["totals"]
    assert payload["variance"]["planned_gpu_hours"] == flow_json["planned_gpu_hours"]
    flow_rows = ledger_rows(tmp_path / "flow.duckdb")
    cli_rows = ledger_rows(tmp_path / "cli.duckdb")
    # The flow also records its gate decisions; reconcile stops after the review.
    assert flow_rows.pop("decisions") and not cli_rows.pop("decisions")
    assert cli_rows == flow_rows


def test_the_weekly_review_prices_the_plan_with_the_prelaunch_mfu(
    prefect_harness, prelaunch, weekly, tmp_path: Path
) -> None:
    demo = demo_inputs()
    ledger = tmp_path / "ledger.duckdb"
    before = prelaunch.prelaunch_estimate(
        plan=demo.plan, pilot_logs=demo.pilot_logs, gain=0.2, gain_uncertainty=0.05,
        ledger=ledger, report_root=tmp_path,
    )  # fmt: skip
    after = weekly.weekly_review(
        plan=demo.plan, sacct=demo.sacct, registry=demo.registry, progress=demo.progress,
        manifest=demo.manifest, week="2026-W47", cluster=DEMO_CLUSTER, ledger=ledger,
        report_root=tmp_path,
    )  # fmt: skip
    # One MFU per campaign: the pilot's, chosen before launch, prices the plan every week.
    assert (after["mfu"], after["mfu_source"]) == (before["mfu"], "pilot")
    assert after["planned_gpu_hours"] == before["planned_gpu_hours"]
    for summary in (before, after):
        page = Path(summary["report"]).read_text(encoding="utf-8")
        assert f"Main-run MFU: {float(before['mfu']):.3g} (pilot)." in page


# Two impossible scheduler lines (issue 14): negative elapsed, and negative GPUs.
BAD_LINES = (
    "3901|3901|bad-elapsed|lm-team|gpu|COMPLETED|0:0|01:00:00|-3600|2026-11-17T07:55:00|"
    "2026-11-17T08:00:00|2026-11-17T09:00:00|billing=16,cpu=16,gres/gpu=8,mem=128G,node=1|"
    "billing=16,cpu=16,gres/gpu=8,mem=128G,node=1|1|16|\n"
    "3902|3902|bad-gpus|lm-team|gpu|COMPLETED|0:0|01:00:00|3600|2026-11-17T07:55:00|"
    "2026-11-17T08:00:00|2026-11-17T09:00:00|billing=16,cpu=16,gres/gpu=-8,mem=128G,node=1|"
    "billing=16,cpu=16,gres/gpu=8,mem=128G,node=1|1|16|\n"
)


def test_a_bad_sacct_line_is_quarantined_alike_by_reconcile_and_the_flow(
    prefect_harness, weekly, cli, tmp_path: Path
) -> None:
    demo = demo_inputs()
    week = tmp_path / "sacct-2026-W47.psv"
    week.write_text(demo.sacct[-1].read_text(encoding="utf-8") + BAD_LINES, encoding="utf-8")
    summary = weekly.weekly_review(
        plan=demo.plan, sacct=[week], week="2026-W47", cluster=DEMO_CLUSTER,
        ledger=tmp_path / "flow.duckdb", report_root=tmp_path / "flow",
    )  # fmt: skip
    run = cli(
        "reconcile", "--sacct", str(week), "--plan", str(demo.plan), "--week", "2026-W47",
        "--cluster", DEMO_CLUSTER, "--ledger", str(tmp_path / "cli.duckdb"), "--json",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert "2 rows quarantined" in run.stderr
    flow_rows, cli_rows = (
        ledger_rows(tmp_path / "flow.duckdb"),
        ledger_rows(tmp_path / "cli.duckdb"),
    )
    assert cli_rows["quarantine"] == flow_rows["quarantine"]
    lines = sorted(row for row in cli_rows["quarantine"] if "390" in repr(row))
    assert len(lines) == 2, cli_rows["quarantine"]
    totals = run.json()["totals"]
    assert totals == orjson.loads(orjson.dumps(summary["totals"], default=float))
    assert min(v for k, v in totals.items() if k.endswith("_gpu_hours")) >= 0
