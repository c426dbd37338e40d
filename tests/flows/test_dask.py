"""Trace summaries mapped over ranks on a local Dask cluster through prefect-dask."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pytest

from trainbudget.demo_data import demo_inputs
from trainbudget.trace.summary import summarize_rank


def test_task_runner_follows_the_environment(prelaunch, monkeypatch) -> None:
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect_dask import DaskTaskRunner

    support = sys.modules["prefect_steps"]  # loaded with the flows
    monkeypatch.delenv(support.DASK_ADDRESS_ENV, raising=False)
    assert isinstance(support.task_runner(), ThreadPoolTaskRunner)
    monkeypatch.setenv(support.DASK_ADDRESS_ENV, "local")
    assert isinstance(support.task_runner(), DaskTaskRunner)
    monkeypatch.setenv(support.DASK_ADDRESS_ENV, "tcp://scheduler:8786")
    assert support.task_runner().address == "tcp://scheduler:8786"


@pytest.mark.slow
def test_ranks_summarized_on_dask_match_in_process(prefect_harness, prelaunch, tmp_path: Path):
    from prefect_dask import DaskTaskRunner

    inputs = demo_inputs()
    runner = DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1})
    flow = prelaunch.prelaunch_estimate.with_options(task_runner=runner)
    state = flow(
        plan=inputs.plan,
        pilot_logs=inputs.pilot_logs,
        traces=inputs.traces,
        gain=0.2,
        gain_uncertainty=0.05,
        ledger=tmp_path / "ledger.duckdb",
        report_root=tmp_path / "reports",
        return_state=True,
    )
    assert state.is_completed(), state.message
    with duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True) as con:
        landed = dict(con.execute("SELECT rank, gpu_busy_ns FROM trace_ranks").fetchall())
    expected = {}
    for path in inputs.traces:
        summary = summarize_rank(path)
        expected[summary.rank] = summary.gpu.busy_ns
    assert landed == expected
