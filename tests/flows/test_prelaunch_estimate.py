"""The pre-launch flow end to end on the demo campaign, in the session's Prefect harness."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import orjson
import pytest

from trainbudget.demo_data import DEMO_BASELINE_LOSS, demo_inputs

# The demo ablations are drawn from Hoffmann et al.'s published law; its loss at the demo
# target (N = 1.3e9, D = 2.6e10) gives the true gain the fitted interval should cover.
E, A, B, ALPHA, BETA = 1.69, 406.4, 410.7, 0.34, 0.28
TRUE_GAIN = DEMO_BASELINE_LOSS - (E + A / 1.3e9**ALPHA + B / 2.6e10**BETA)


def outcomes(summary: dict) -> dict[str, str]:
    """gate → outcome from a run summary's `gates` list (one retry gate per failed job)."""
    return {g["gate"]: g["outcome"] for g in summary["gates"]}


@pytest.fixture(scope="module")
def estimated(prefect_harness, prelaunch, demo_run, tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("prelaunch")
    parameters, _ = demo_run.demo_parameters(tmp_path)
    state = prelaunch.prelaunch_estimate(**parameters, return_state=True)
    return tmp_path, state


def _decision(ledger: Path, gate: str) -> tuple[str, dict, dict]:
    with duckdb.connect(str(ledger), read_only=True) as con:
        outcome, inputs, details = con.execute(
            "SELECT outcome, inputs, details FROM decisions WHERE gate = ?", [gate]
        ).fetchone()
    return outcome, orjson.loads(inputs), orjson.loads(details)


def test_demo_plan_is_admitted_and_worth_running(estimated) -> None:
    tmp_path, state = estimated
    assert state.is_completed(), state.message
    assert state.name == "Admitted"  # named for the admission verdict
    assert outcomes(state.result()) == {"admission": "admit", "decision": "run"}
    _, inputs, _ = _decision(tmp_path / "trainbudget.duckdb", "admission")
    # Pilot MFU (≈0.40) re-derives the main run; every other line is fixed by the plan:
    # pilots 4·4·3 = 48, evaluation 11·2·2.5 = 55, diagnostics 2·1·1 = 2, retries 8·12 = 96.
    main = 6 * 1.3e9 * 2.6e10 / (312e12 * 0.40) / 3600  # GPU-hours at MFU 0.40
    assert inputs["estimated_gpu_hours"] == pytest.approx(48 + 55 + 2 + 96 + main, rel=0.03)
    assert inputs["budget_gpu_hours"] == 900


def test_fitted_gain_interval_covers_the_true_gain(estimated) -> None:
    tmp_path, _ = estimated
    outcome, inputs, details = _decision(tmp_path / "trainbudget.duckdb", "decision")
    gain = inputs["gain"]
    assert gain["low"] <= TRUE_GAIN <= gain["high"]
    assert details["gain_exceeds_uncertainty"] is True
    assert outcome == "run"


def test_ranks_pilot_and_report_are_landed(estimated) -> None:
    tmp_path, state = estimated
    with duckdb.connect(str(tmp_path / "trainbudget.duckdb"), read_only=True) as con:
        ranks = con.execute("SELECT count(*) FROM trace_ranks").fetchone()[0]
        steps = con.execute("SELECT count(*) FROM pilot_steps").fetchone()[0]
    assert (ranks, steps) == (len(demo_inputs().traces), 120 + 60)
    page = Path(state.result()["report"]).read_text(encoding="utf-8")
    for heading in ("Sensitivity grid", "Campaign lines", "Scaling fit", "Profiler trace by rank"):
        assert heading in page
    report_dir = Path(state.result()["report"]).parent
    assert 'href="data-docs/index.html"' in page
    assert (report_dir / "data-docs" / "index.html").is_file()


def test_direct_gain_within_its_uncertainty_asks_for_more_data(
    prefect_harness, prelaunch, tmp_path: Path
) -> None:
    inputs = demo_inputs()
    tight = tmp_path / "tight.plan.yaml"
    # Same plan, but a 500 GPU-hour ceiling: below the ≈650 planned, so admission defers.
    tight.write_text(
        inputs.plan.read_text(encoding="utf-8").replace("gpu_hours: 900", "gpu_hours: 500"),
        encoding="utf-8",
    )
    state = prelaunch.prelaunch_estimate(
        plan=tight,
        pilot_logs=inputs.pilot_logs,
        gain=0.01,
        gain_uncertainty=0.05,
        ledger=tmp_path / "ledger.duckdb",
        report_root=tmp_path / "reports",
        return_state=True,
    )
    assert state.is_completed(), state.message
    # Seed 001: over budget defers; seed 004: a gain inside its uncertainty is ambiguous.
    assert outcomes(state.result()) == {"admission": "defer", "decision": "collect-more-data"}
    assert state.name == "Over budget"  # the runs list tells it from an admit
    outcome, inputs_seen, _ = _decision(tmp_path / "ledger.duckdb", "admission")
    assert inputs_seen["budget_gpu_hours"] == 500 and outcome == "defer"
    assert not math.isnan(inputs_seen["estimated_gpu_hours"])


def test_missing_gain_and_ablations_is_an_input_error(prefect_harness, prelaunch, tmp_path):
    inputs = demo_inputs()
    state = prelaunch.prelaunch_estimate(
        plan=inputs.plan,
        pilot_logs=inputs.pilot_logs,
        ledger=tmp_path / "ledger.duckdb",
        return_state=True,
    )
    assert state.is_failed()
    assert "give gain" in state.message


def test_each_step_tells_the_run_log_what_it_did(estimated) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogHandler

    _, state = estimated
    run_id = state.state_details.flow_run_id
    APILogHandler().flush()  # the log worker sends in batches; wait for it
    with get_client(sync_client=True) as client:
        logs = client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run_id])))
        run = client.read_flow_run(run_id)
    said = "\n".join(log.message for log in logs)
    assert run.name == "demo-1b"  # from the procedure's one parse of the plan
    assert f"{len(demo_inputs().traces)} trace rank file(s)" in said
    assert said.count("Trace ") == len(demo_inputs().traces)  # one task per rank
    assert "Predicted gain" in said and "scaling fit of" in said
    assert "Landed the plan and 180 pilot steps" in said
    assert "admission: admit" in said and "decision: run" in said
    assert "Published the report" in said
