"""Idempotent decisions (issue 15, item 7): the same gate on the same inputs for the same
campaign and run is recorded once, however often it runs; a changed input records a new one."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import duckdb
import orjson

from trainbudget.demo_data import DEMO_BASELINE_LOSS, DEMO_CLUSTER, demo_inputs
from trainbudget.gates.admission import AdmissionRequest, admit_run
from trainbudget.gates.campaign import continue_main_run
from trainbudget.gates.outcome import GateOutcome
from trainbudget.ledger import Ledger
from trainbudget.ledger.decisions import decision_key, list_decisions, record_decision
from trainbudget.prelaunch import PrelaunchInputs, run_prelaunch
from trainbudget.weekly import WeeklyInputs, run_weekly

from ..reconcile.conftest import HEADER, sacct_line


def _decisions(ledger_path: Path) -> list[tuple]:
    with duckdb.connect(str(ledger_path), read_only=True) as con:
        return con.execute(
            "SELECT gate, campaign_id, run_id, outcome, CAST(inputs AS VARCHAR) FROM decisions"
            " ORDER BY decision_id"
        ).fetchall()


def test_the_same_decision_twice_is_one_row_with_one_id(ledger) -> None:
    outcome = continue_main_run(D(600), D(652), D(2000))
    first = record_decision(ledger, outcome, campaign_id="c", run_id="r")
    assert record_decision(ledger, outcome, campaign_id="c", run_id="r") == first
    assert len(list_decisions(ledger)) == 1
    # Another campaign, another run or another input: each a decision of its own.
    record_decision(ledger, outcome, campaign_id="d", run_id="r")
    record_decision(ledger, outcome, campaign_id="c", run_id="s")
    record_decision(ledger, continue_main_run(D(601), D(652), D(2000)), campaign_id="c",
                    run_id="r")  # fmt: skip
    assert len(list_decisions(ledger)) == 4


def test_the_key_does_not_depend_on_key_order_but_on_every_value() -> None:
    a = GateOutcome("g", "admit", None, "ok", {"x": D("1.5"), "y": [1, {"b": 2, "a": 1}]})
    b = GateOutcome("g", "admit", None, "ok", {"y": [1, {"a": 1, "b": 2}], "x": D("1.5")})
    assert decision_key(a, "c", "r") == decision_key(b, "c", "r")
    changed = GateOutcome("g", "admit", None, "ok", {"x": D("1.6"), "y": [1, {"a": 1, "b": 2}]})
    assert decision_key(changed, "c", "r") != decision_key(a, "c", "r")
    assert decision_key(a, "c", None) != decision_key(a, "c", "r")
    assert decision_key(a, None, "r") != decision_key(a, "c", "r")
    assert len(decision_key(a, "c", "r")) == 64


def _weekly(tmp_path: Path, extra: list[Path] = ()) -> WeeklyInputs:
    demo = demo_inputs()
    return WeeklyInputs(
        sacct=[*demo.sacct, *extra], registry=demo.registry, progress=demo.progress,
        manifest=demo.manifest, plan=demo.plan, week="2026-W47", cluster=DEMO_CLUSTER,
        report_root=tmp_path / "reports",
    )  # fmt: skip


def test_the_weekly_review_twice_records_its_decisions_once(tmp_path: Path) -> None:
    ledger_path = tmp_path / "l.duckdb"
    with Ledger.open(ledger_path) as book:
        result, _ = run_weekly(_weekly(tmp_path), book)
    once = _decisions(ledger_path)
    assert len(once) == len(result.gates) >= 3
    with Ledger.open(ledger_path) as book:
        run_weekly(_weekly(tmp_path), book)
    assert _decisions(ledger_path) == once
    # A new export with one more failed job of 4 GPUs x 1 h in the week changes the inputs.
    extra = tmp_path / "late.psv"
    late = sacct_line(
        "9901", "FAILED", name="late", exit_code="1:0", submit="2026-11-18T10:00:00",
        start="2026-11-18T10:00:00", end="2026-11-18T11:00:00", tres="cpu=8,gres/gpu=4,node=1",
    )  # fmt: skip
    extra.write_text(f"{HEADER}\n{late}\n", encoding="utf-8")
    with Ledger.open(ledger_path) as book:
        run_weekly(_weekly(tmp_path, [extra]), book)
    after = _decisions(ledger_path)
    assert after[: len(once)] == once
    assert len(after) > len(once)
    continuation = [orjson.loads(d[4]) for d in after if d[0] == "continuation"]
    assert len(continuation) == 2 and continuation[0] != continuation[1]


def test_admit_twice_with_the_same_arguments_is_one_row(cli, ledger_path: Path) -> None:
    args = ["--ledger", str(ledger_path), "admit", "--estimated-gpu-hours", "18.5",
            "--budget-gpu-hours", "23", "--expected-interruptions", "2", "--campaign", "c",
            "--run-id", "r1", "--json"]  # fmt: skip
    first, second = cli(*args), cli(*args)
    assert first.code == second.code == 0, first.stderr + second.stderr
    assert first.json()["decision_id"] == second.json()["decision_id"]
    assert len(_decisions(ledger_path)) == 1
    third = cli(*args[:-1], "--no-checkpoint", "--json")
    assert third.code == 0 and third.json()["decision_id"] != first.json()["decision_id"]
    assert len(_decisions(ledger_path)) == 2


def test_prelaunch_twice_records_one_row_per_gate(tmp_path: Path) -> None:
    demo = demo_inputs()
    inputs = PrelaunchInputs(
        plan=demo.plan, pilot_logs=demo.pilot_logs, traces=demo.traces,
        report_root=tmp_path / "reports", ablations=demo.ablations,
        baseline_loss=D(str(DEMO_BASELINE_LOSS)),
    )  # fmt: skip
    ledger_path = tmp_path / "l.duckdb"
    for _ in range(2):
        with Ledger.open(ledger_path) as book:
            result, _ = run_prelaunch(inputs, book)
    gates = [d[0] for d in _decisions(ledger_path)]
    assert sorted(gates) == sorted(g.gate for g in result.gates) == ["admission", "decision"]


def test_admission_outcomes_differ_by_inputs_not_by_time(ledger) -> None:
    a = admit_run(AdmissionRequest(D(1), D(2), D(0)))
    assert record_decision(ledger, a, campaign_id="x") == record_decision(
        ledger, admit_run(AdmissionRequest(D(1), D(2), D(0))), campaign_id="x"
    )
