"""The pre-launch procedure as plain calls (no Prefect): one MFU rule, every plan limit, and the
same figures as the commands that answer each part on their own."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import orjson
import pytest

from trainbudget.demo_data import DEMO_BASELINE_LOSS, demo_inputs
from trainbudget.ledger import Ledger
from trainbudget.prelaunch import PrelaunchInputs, run_prelaunch

REPO = Path(__file__).resolve().parents[1]
A100_BF16_FLOPS = Decimal("312e12")  # NVIDIA A100 datasheet, dense BF16


def _inputs(tmp_path: Path, plan: Path | None = None, **kw) -> PrelaunchInputs:
    demo = demo_inputs()
    given = {"gain": Decimal("0.2"), "gain_uncertainty": Decimal("0.05")}
    return PrelaunchInputs(
        plan=plan or demo.plan,
        pilot_logs=demo.pilot_logs,
        traces=demo.traces,
        report_root=tmp_path / "reports",
        **(kw or given),
    )


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("prelaunch")
    inputs = _inputs(
        tmp_path, ablations=demo_inputs().ablations, baseline_loss=Decimal(str(DEMO_BASELINE_LOSS))
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, summary = run_prelaunch(inputs, book)
    return tmp_path, result, summary


def test_summary_json_is_what_the_run_returns(demo_run) -> None:
    tmp_path, _, summary = demo_run
    written = orjson.loads(
        (tmp_path / "reports" / "prelaunch-demo-1b" / "summary.json").read_bytes()
    )
    assert written == orjson.loads(orjson.dumps(summary, default=float))
    assert written["flow"] == "prelaunch-estimate" and written["campaign"] == "demo-1b"
    assert [g["gate"] for g in written["gates"]] == ["admission", "decision"]
    assert Path(written["report"]).is_file()


def test_the_pilot_mfu_is_the_one_the_pilot_command_measures(demo_run, cli) -> None:
    _, result, summary = demo_run
    demo = demo_inputs()
    pilot = cli("pilot", *map(str, demo.pilot_logs), "--params", "1.3e9", "--gpu", "A100-80GB",
                "--no-ledger", "--json").json()  # fmt: skip
    assert summary["mfu_source"] == "pilot"
    assert float(summary["mfu"]) == pilot["mfu"]
    # Planned = fixed lines (pilots 4·4·3 + evaluation 11·2·2.5 + diagnostics 2·1·1 + retries
    # 8·12) + the main run's 6·N·T FLOPs at the pilot MFU on A100 BF16, as GPU-hours.
    mfu = result.mfu.mfu
    main = Decimal(6) * Decimal("1.3e9") * Decimal("2.6e10") / (A100_BF16_FLOPS * mfu) / 3600
    expected = Decimal(48 + 55 + 2 + 96) + main
    assert summary["planned_gpu_hours"] == pytest.approx(expected, rel=Decimal("1e-15"))


def test_the_run_stores_its_mfu_choice_and_decisions(demo_run) -> None:
    tmp_path, result, _ = demo_run
    with duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True) as con:
        choice = con.execute("SELECT mfu, mfu_source FROM mfu_choices").fetchall()
        gates = con.execute("SELECT gate, outcome FROM decisions ORDER BY decision_id").fetchall()
    assert choice == [(str(result.mfu.mfu), "pilot")]
    assert gates == [(g.gate, g.outcome) for g in result.gates]


def test_admission_honours_every_limit_the_plan_declares(tmp_path: Path, cli) -> None:
    demo = demo_inputs()
    plan = tmp_path / "limited.plan.yaml"
    plan.write_text(
        demo.plan.read_text(encoding="utf-8")
        + "gates: {admission: {max_gpus: 4, max_runtime_hours: 50}}\n",
        encoding="utf-8",
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, _ = run_prelaunch(_inputs(tmp_path, plan), book)
    admission = result.gates[0]
    assert admission.outcome == "defer"
    reasons = [r["reason"] for r in admission.details["reasons"]]
    assert reasons == ["accelerator-limit", "runtime-limit"]
    # The runtime limit is the main run's wall clock, 6·N·T at the pilot MFU over 8 GPUs,
    # not the whole campaign's GPU-hours over 8.
    main_gpu_hours = (
        Decimal(6)
        * Decimal("1.3e9")
        * Decimal("2.6e10")
        / (A100_BF16_FLOPS * result.mfu.mfu)
        / 3600
    )
    runtime = admission.inputs["runtime_hours"]
    assert runtime == pytest.approx(main_gpu_hours / 8, rel=Decimal("1e-15"))
    assert runtime < result.estimate.planned_gpu_hours / 8
    # `admit --plan` with the same request reaches the same reasons in the same order.
    planned = result.estimate.planned_gpu_hours
    billing = result.estimate.billing.billing_hours  # the demo's allocation is in billing-hours
    admitted = cli(
        "admit", "--plan", str(plan), "--estimated-gpu-hours", str(planned),
        "--estimated-billing-hours", str(billing),
        "--expected-interruptions", "1", "--gpus", "8", "--runtime-hours", str(runtime),
        "--ledger", str(tmp_path / "other.duckdb"), "--json",
    ).json()  # fmt: skip
    assert [r["reason"] for r in admitted["reasons"]] == reasons
    assert admitted["state"] == "defer"


def test_a_quarantined_pilot_row_is_said_everywhere(tmp_path: Path, cli) -> None:
    """Issue 23, deliverable 7: `prelaunch` quarantined line 18 (empty wall_seconds) of a pilot
    log and said nothing; `pilot` on the same file warned. Now stderr, --json `quarantined`,
    the report and the verdict artifact say it, in `pilot`'s words."""
    from trainbudget.prelaunch import build_report
    from trainbudget.report.prefect_view import verdict_markdown

    log = tmp_path / "steps.csv"
    lines = (REPO / "examples" / "pilot-7b.steps.csv").read_text(encoding="utf-8").splitlines()
    cells = lines[17].split(",")
    cells[2] = ""  # line 18's wall_seconds
    log.write_text("\n".join([*lines[:17], ",".join(cells)]) + "\n", encoding="utf-8")
    plan = REPO / "tests" / "corpus" / "inputs" / "plan" / "good.yaml"
    first = "line 18: wall_seconds: required, but empty"
    said = f"{log}: 1 row(s) rejected and quarantined; first: {first}"
    pilot = cli("pilot", str(log), "--no-ledger", "--json")
    assert pilot.code == 0 and said in pilot.stderr.replace("\n", " ")
    run = cli("--ledger", str(tmp_path / "l.duckdb"), "prelaunch", str(plan), "--pilot-log",
              str(log), "--gain", "0.1", "--report-root", str(tmp_path / "r"),
              "--json")  # fmt: skip
    assert run.code == 0, run.stderr
    assert said in run.stderr.replace("\n", " ")
    assert run.json()["quarantined"] == {
        "rows": 1, "files": [{"path": str(log), "kind": "pilot", "rows": 1, "first": first}]
    }  # fmt: skip
    with Ledger.open(tmp_path / "l2.duckdb") as book:
        result, _ = run_prelaunch(
            PrelaunchInputs(plan=plan, pilot_logs=[log], gain=Decimal("0.1"),
                            report_root=tmp_path / "r2"), book,
        )  # fmt: skip
        quarantined = book.con.execute("SELECT source_line, reason FROM quarantine").fetchall()
    assert quarantined == [(18, "wall_seconds: required, but empty")]
    report = build_report(result)
    assert f"**quarantine: 1 row quarantined** — {log}: 1 row(s) (first: {first})" in (
        verdict_markdown(report, result.prepared.folder)
    )
    html = (result.prepared.folder / "report.html").read_text(encoding="utf-8")
    assert "1 row quarantined" in html


SNAPSHOT_GATE = (
    "gates: {admission: {require_data_snapshot: true, data_snapshots: [fineweb-edu-2026-10-01]}}\n"
)


@pytest.mark.parametrize(
    ("snapshot", "outcome", "reasons"),
    [
        ("fineweb-edu-2026-10-01", "admit", []),
        ("fineweb-edu-2025-01-01", "defer", ["no-data-snapshot"]),
        (None, "defer", ["no-data-snapshot"]),
    ],
)
def test_the_data_snapshot_is_checked_and_recorded_as_admit_does(
    tmp_path: Path, cli, snapshot, outcome, reasons
) -> None:
    # Seed 001: defer a job whose data snapshot is missing (or unknown), not every job.
    demo = demo_inputs()
    plan = tmp_path / "snapshot.plan.yaml"
    plan.write_text(demo.plan.read_text(encoding="utf-8") + SNAPSHOT_GATE, encoding="utf-8")
    inputs = _inputs(tmp_path, plan, gain=Decimal("0.2"), data_snapshot=snapshot)
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, _ = run_prelaunch(inputs, book)
    admission = result.gates[0]
    assert admission.outcome == outcome
    assert [r["reason"] for r in admission.details["reasons"]] == reasons
    with duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True) as con:
        (recorded,) = con.execute(
            "SELECT inputs FROM decisions WHERE gate = 'admission'"
        ).fetchone()
    assert orjson.loads(recorded)["data_snapshot"] == snapshot
    # `admit --plan --data-snapshot` on the same plan and hours gives the same verdict.
    hours = str(admission.details["reserved_gpu_hours"] or result.estimate.planned_gpu_hours)
    billing = str(result.estimate.billing.billing_hours)  # the allocation is in billing-hours
    admit = cli(
        "admit", "--plan", str(plan), "--estimated-gpu-hours", hours,
        "--estimated-billing-hours", billing,
        "--expected-interruptions", "1", "--gpus", "8", "--no-ledger", "--json",
        *(("--data-snapshot", snapshot) if snapshot else ()),
    )  # fmt: skip
    assert admit.code == 0, admit.stderr
    assert admit.json()["state"] == outcome


def test_prelaunch_takes_the_data_snapshot_on_the_command_line(tmp_path: Path, cli) -> None:
    demo = demo_inputs()
    plan = tmp_path / "snapshot.plan.yaml"
    plan.write_text(demo.plan.read_text(encoding="utf-8") + SNAPSHOT_GATE, encoding="utf-8")
    run = cli(
        "--ledger", str(tmp_path / "l.duckdb"), "prelaunch", str(plan),
        *(a for p in demo.pilot_logs for a in ("--pilot-log", str(p))), "--gain", "0.2",
        "--gain-uncertainty", "0.05", "--data-snapshot", "fineweb-edu-2026-10-01",
        "--report-root", str(tmp_path / "r"), "--json",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    assert {g["gate"]: g["outcome"] for g in run.json()["gates"]}["admission"] == "admit"


def test_without_a_measured_mfu_the_report_and_the_forecast_show_one_prior_mfu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A plan the forecast prices (reliability), no mfu, and no measured MFU: the pilot's is
    # withheld from the rule, as for a pilot whose logs give none.
    import math
    import tomllib

    import trainbudget.estimate as pkg
    import trainbudget.prelaunch as procedure
    from trainbudget.estimate import mfu_rule

    real = mfu_rule.choose_mfu
    # The procedure imports the rule by name: patch the name it calls.
    monkeypatch.setattr(procedure, "choose_mfu", lambda plan, **_: real(plan))
    plan = tmp_path / "prior.plan.yaml"
    plan.write_text(
        demo_inputs().plan.read_text(encoding="utf-8").replace(", mfu: 0.4}", "}")
        + "reliability: {job_mtbf_hours: 40, restart_minutes: 10, checkpoint_write_minutes: 2}\n",
        encoding="utf-8",
    )
    with Ledger.open(tmp_path / "ledger.duckdb") as book:
        result, summary = run_prelaunch(_inputs(tmp_path, plan), book)
    # The prior's median, worked from the data file: e^(mean ln MFU) of its dense runs,
    # fp8 ones moved to 16-bit (÷ 0.7), to 4 significant digits.
    runs = tomllib.loads((Path(pkg.__file__).parent / "published_runs.toml").read_text())["run"]
    logs = [
        math.log(r["mfu"] if r["group"] == "16-bit" else r["mfu"] / 0.7)
        for r in runs
        if r["kind"] == "dense"
    ]
    median = Decimal(f"{math.exp(sum(logs) / len(logs)):.4g}")
    forecast_mfu = result.estimate.forecast.phases[0].mfu
    assert (result.mfu.mfu, result.mfu.mfu_source) == (median, "prior")
    assert forecast_mfu == result.mfu.mfu
    html = Path(summary["report"]).read_text(encoding="utf-8")
    assert f"Main-run MFU: {median:.3g} (prior)." in html
    assert "class-default" not in html  # the main-run table too: one MFU, one source
    assert result.estimate.main.mfu == median and result.estimate.main.mfu_source == "prior"
