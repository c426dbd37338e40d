"""Run both flows on the bundled demo campaign into one folder (`trainbudget demo`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import tags

from prelaunch_estimate import prelaunch_estimate
from trainbudget.demo_data import DEMO_BASELINE_LOSS, DEMO_CLUSTER, demo_inputs
from trainbudget.report.index import write_index
from weekly_review import weekly_review


def demo_parameters(out_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The pre-launch and weekly-review parameters for the demo data, writing under out_dir."""
    inputs = demo_inputs()
    common = {"ledger": out_dir / "trainbudget.duckdb", "report_root": out_dir}
    prelaunch = {
        "plan": inputs.plan,
        "pilot_logs": inputs.pilot_logs,
        "traces": inputs.traces,
        "ablations": inputs.ablations,
        "baseline_loss": DEMO_BASELINE_LOSS,
        **common,
    }
    weekly = {
        "plan": inputs.plan,
        "sacct": inputs.sacct,
        "registry": inputs.registry,
        "progress": inputs.progress,
        "manifest": inputs.manifest,
        "week": inputs.review_week,
        "cluster": DEMO_CLUSTER,
        **common,
    }
    return prelaunch, weekly


def run_demo(out_dir: Path, on_step: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run the pre-launch flow, then the weekly review; return both results and the index."""
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    prelaunch, weekly = demo_parameters(out_dir)
    on_step("pre-launch estimate")
    with tags("trainbudget", "demo", "prelaunch"):
        first = prelaunch_estimate(**prelaunch)
    on_step("weekly review")
    with tags("trainbudget", "demo", "weekly-review"):
        second = weekly_review(**weekly)
    index = write_index(out_dir, title="trainbudget demo")
    return {"index": str(index), "prelaunch": first, "weekly_review": second}
