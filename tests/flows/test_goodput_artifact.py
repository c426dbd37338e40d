"""The weekly flow publishes the main run's goodput: a table artifact and summary.json."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from trainbudget.demo_data import DEMO_CLUSTER, demo_inputs


def test_goodput_table_artifact_and_summary(prefect_harness, weekly, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    inputs = demo_inputs()
    state = weekly.weekly_review(
        plan=inputs.plan, sacct=inputs.sacct, registry=inputs.registry,
        progress=inputs.progress, manifest=inputs.manifest, week="2026-W47",
        cluster=DEMO_CLUSTER, ledger=tmp_path / "ledger.duckdb",
        report_root=tmp_path / "reports", return_state=True,
    )  # fmt: skip
    assert state.is_completed(), state.message
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            flow_run_filter=FlowRunFilter(
                id=FlowRunFilterId(any_=[state.state_details.flow_run_id])
            )
        )
    artifacts = {a.key: a for a in found}
    rows = orjson.loads(artifacts["demo-1b-weekly-goodput-of-the-main-run-by-week"].data)
    # Cells are the report's display text under its worded headers (issue 17).
    by_week = {r["Week"]: {k: float(v.replace(",", "")) for k, v in r.items() if k != "Week"}
               for r in rows}  # fmt: skip
    # The main run is all in W46 (story.py): 8 GPUs × (22.5 + 24 + 20.5) h allocated; kept new
    # progress 20 + 12 + 19 h by the hourly step events; restarts 1.5 h twice; 2 h redone.
    assert set(by_week) == {"2026-W46", "total"}
    w46 = by_week["2026-W46"]
    assert w46["Allocated GPU-hours"] == 8 * 67
    assert w46["ETTR"] == pytest.approx(51 / 67, abs=5e-4)  # shown to 3 decimals
    assert w46["Restart"] == 8 * 3 and w46["Recomputation"] == 8 * 2
    assert w46["Lost progress"] == 8 * (2.5 + 8.5)
    summary = orjson.loads(Path(state.result()["report"]).with_name("summary.json").read_bytes())
    assert summary["goodput"]["total"]["ettr"] == pytest.approx(51 / 67)
